/**
 * Sends a page's request with a credential header added, so that the credential never follows a
 * redirect out of the base URL: fetch keeps custom headers across cross-origin redirects, and the
 * bearer too where the browser predates the Fetch change that strips it.
 */

/** One header the worker adds. */
export type AddedHeader = readonly [name: string, value: string];

/** A request body read once, so the request can be sent again (replay, redirect). */
export type BufferedBody = ArrayBuffer | undefined;

/** Reads the body up front; GET and HEAD have none. The original stays unread for the page's sake. */
export async function bufferBody(request: Request): Promise<BufferedBody> {
  return request.method === 'GET' || request.method === 'HEAD' ? undefined : request.clone().arrayBuffer();
}

/**
 * Sends `request` with `header` added. A redirect is not followed with the header: the redirect is
 * sent with `redirect: 'manual'`, and because a manual redirect's location is hidden from scripts
 * (Fetch: opaque-redirect filtered response), the worker asks again without its header and lets the
 * browser follow. When the redirect ended under the base URL, the final location is asked once more
 * with the header (GET and HEAD only: repeating a write there is the page's decision, not ours).
 */
export async function sendWithHeader(
  fetchFn: typeof fetch,
  request: Request,
  body: BufferedBody,
  header: AddedHeader,
  isUnderBase: (url: string) => boolean,
): Promise<Response> {
  const headers = new Headers(request.headers);
  headers.set(header[0], header[1]);
  const pageFollows = request.redirect === 'follow';
  const response = await fetchFn(copy(request, body, { headers, redirect: pageFollows ? 'manual' : request.redirect }));
  if (!pageFollows || response.type !== 'opaqueredirect') return response;

  const followed = await fetchFn(copy(request, body, { redirect: 'follow' }));
  const idempotent = request.method === 'GET' || request.method === 'HEAD';
  if (!followed.redirected || !idempotent || !isUnderBase(followed.url)) return followed;
  const again = await fetchFn(
    new Request(followed.url, {
      method: request.method,
      headers,
      mode: request.mode,
      credentials: request.credentials,
      cache: request.cache,
      redirect: 'manual',
      referrerPolicy: request.referrerPolicy,
      signal: request.signal,
    }),
  );
  return again.type === 'opaqueredirect' ? followed : again;
}

/** Sends the request as the page made it, but from the buffered body (a replay after a refresh). */
export function copy(request: Request, body: BufferedBody, init: RequestInit): Request {
  return new Request(request, body === undefined ? init : { ...init, body });
}
