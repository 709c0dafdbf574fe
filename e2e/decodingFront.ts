/**
 * A front server that routes by the path as nginx reads it: percent-decoded (`%2F` becomes `/`),
 * slashes merged, `.` and `..` segments resolved (nginx's `ngx_http_parse_complex_uri`). Its
 * `/other/` location is another application of the same origin, a collector that records the
 * headers it got; every other path goes to the reference storefront (the shop's API under `/store`,
 * the test site and the built files). Like nginx's `proxy_pass` without a URI, it passes the request
 * URI on as the client sent it. So a request the worker judges to be under `/store` can land in
 * `/other/`, as in a real deployment.
 */
import http from 'node:http';

/** One request that reached the `/other/` application. */
export interface Collected {
  method: string;
  /** The URI as the client sent it. */
  url: string;
  authorization: string | undefined;
  orderToken: string | undefined;
}

export interface DecodingFront {
  /** `http://127.0.0.1:<port>`, the origin the page and the worker use. */
  url: string;
  /** What reached `/other/`, in order. */
  collected: Collected[];
  close(): Promise<void>;
}

/**
 * The path nginx routes by: `raw` decoded, slashes merged and dot segments resolved; `null` where
 * nginx answers 400 (a bad escape, or `..` above the root).
 */
export function nginxPath(raw: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    return null;
  }
  const segments: string[] = [];
  for (const segment of decoded.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment !== '..') segments.push(segment);
    else if (segments.pop() === undefined) return null;
  }
  const trailing = decoded.endsWith('/') || decoded.endsWith('/.') || decoded.endsWith('/..');
  return `/${segments.join('/')}${trailing && segments.length > 0 ? '/' : ''}`;
}

/** Starts a front on an ephemeral port of 127.0.0.1 in front of `upstream` (the storefront's URL). */
export async function startDecodingFront(upstream: string): Promise<DecodingFront> {
  const collected: Collected[] = [];
  const target = new URL(upstream);
  const server = http.createServer((req, res) => {
    const raw = req.url ?? '/';
    const path = nginxPath(raw.split('?')[0] ?? '/');
    if (path === null) {
      res.writeHead(400, { 'Content-Type': 'text/plain' }).end('Bad Request');
      return;
    }
    if (path === '/other' || path.startsWith('/other/')) {
      const header = (name: string) => (typeof req.headers[name] === 'string' ? (req.headers[name] as string) : undefined);
      collected.push({ method: req.method ?? 'GET', url: raw, authorization: header('authorization'), orderToken: header('x-store-order-token') });
      req.resume();
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"collected":true}');
      return;
    }
    const proxied = http.request({ host: target.hostname, port: target.port, method: req.method, path: raw, headers: { ...req.headers, host: target.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    proxied.on('error', () => res.destroy());
    req.pipe(proxied);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    collected,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
