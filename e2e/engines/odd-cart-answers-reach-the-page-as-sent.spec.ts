/**
 * Answers a server may legally send on a cart path, read by the page through the worker in every
 * engine (e2e/answers-a-server-may-send-reach-the-page-as-sent.spec.ts in Chromium), against
 * docs/security.md ("How sealing works"): a HEAD keeps the server's Content-Length; a reason phrase
 * with a control character answers the page as it does without the worker; a gzip answer reaches
 * the page decoded once, sealed, with no Content-Encoding the page would decode again.
 */
import zlib from 'node:zlib';
import type { Storefront } from '../support.js';
import type { Tab } from './driver.js';
import { expect, inEveryEngine, test } from './fixtures.js';
import { getState, pageFetch } from './shop.js';

const CART = '/api/v2/storefront/cart';
const PRODUCTS = '/api/v2/storefront/products';
const JSON_API = { 'Content-Type': 'application/vnd.api+json' };

/** A token with the characters a store's tokens may hold. */
function oddToken(prefix: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  return prefix + Array.from({ length: 24 }, () => alphabet[Math.floor(Math.random() * 64)]).join('');
}

/** The page's own cart, created by its own request, with `token`, kept by the worker. */
async function pageCart(tab: Tab, storefront: Storefront, token: string, api = ''): Promise<void> {
  const number = `R${Math.floor(Math.random() * 1e8)}`;
  storefront.override('POST', CART, { status: 201, headers: JSON_API, body: JSON.stringify({ data: { id: '7', type: 'cart', attributes: { number, token }, relationships: {} } }) });
  const created = await pageFetch(tab, api + CART, { method: 'POST', headers: JSON_API });
  expect(JSON.parse(created.body).data.attributes.token).toBe('sealed:cart');
  await expect.poll(async () => (await getState(tab)).cart).toEqual({ number });
}

interface Read {
  fetchError?: string;
  readError?: string;
  status?: number;
  statusText?: string;
  headers?: [string, string][];
  text?: string;
  length?: number;
}

/** What the page reads of `url`: status, reason, headers, body; or how its fetch or read failed. */
function read(tab: Tab, url: string, init: RequestInit = {}): Promise<Read> {
  return tab.evaluate(
    async ({ url, init }) => {
      let response: Response;
      try {
        response = await fetch(url, init);
      } catch (error) {
        return { fetchError: String(error) };
      }
      const head = { status: response.status, statusText: response.statusText, headers: [...response.headers] as [string, string][] };
      try {
        const bytes = new Uint8Array(await response.arrayBuffer());
        return { ...head, text: new TextDecoder().decode(bytes), length: bytes.length };
      } catch (error) {
        return { ...head, readError: String(error) };
      }
    },
    { url, init },
  );
}

const header = (result: Read, name: string) => result.headers?.find(([key]) => key === name)?.[1] ?? null;

inEveryEngine(() =>
  test('a HEAD keeps its Content-Length, a control character in the reason phrase still answers, a gzip answer is decoded once and sealed', async ({ shop, storefront }) => {
    const tab = await shop.open();
    const token = oddToken('g/+');
    await pageCart(tab, storefront, token);

    // A HEAD: the Content-Length (and Content-Encoding) the server sent, as the page reads them where the worker takes no part.
    for (const encoding of [null, 'gzip']) {
      const headers = { ...JSON_API, 'Content-Length': '1234', ...(encoding === null ? {} : { 'Content-Encoding': encoding }) };
      for (const path of [PRODUCTS, CART]) storefront.override('HEAD', path, { headers, ...(encoding === null ? { body: 'x'.repeat(1234) } : {}) });
      const plainHead = await read(tab, PRODUCTS, { method: 'HEAD' });
      const head = await read(tab, CART, { method: 'HEAD' });
      expect([plainHead.status, plainHead.length, header(plainHead, 'content-length'), header(plainHead, 'content-encoding')], `${encoding}: without the worker`).toEqual([200, 0, '1234', encoding]);
      expect.soft([head.status, head.length, header(head, 'content-length'), header(head, 'content-encoding')], `${encoding}: a HEAD through the worker keeps its Content-Length and Content-Encoding`).toEqual([200, 0, '1234', encoding]);
    }

    // A reason phrase with a control character: what the page gets without the worker (Firefox hands
    // on even a NUL, which Chromium and WebKit refuse: then the page's fetch fails either way).
    for (const reason of ['O\x7fK', 'O\x01K', 'OK\x0b', '\x1bOK', '\x00OK']) {
      const raw = Buffer.concat([Buffer.from('HTTP/1.1 200 '), Buffer.from(reason, 'latin1'), Buffer.from('\r\nContent-Type: application/json\r\nContent-Length: 11\r\nConnection: close\r\n\r\n{"ok":true}')]);
      storefront.override('GET', PRODUCTS, { raw });
      const plain = await read(tab, PRODUCTS);
      storefront.override('GET', CART, { raw });
      const sealed = await read(tab, CART);
      expect.soft({ failed: sealed.fetchError !== undefined, status: sealed.status, text: sealed.text }, `reason ${JSON.stringify(reason)}: ${sealed.fetchError ?? plain.fetchError ?? ''}`).toEqual({ failed: plain.fetchError !== undefined, status: plain.status, text: plain.text });
    }

    // gzip, short and long: decoded once, the token sealed, no Content-Encoding, a Content-Length (if any) true.
    for (const pad of [0, 3000, 200_000]) {
      const body = JSON.stringify({ data: { id: '7', type: 'cart', attributes: { state: 'cart', note: `${'y'.repeat(pad)} order ${token} held` } } });
      storefront.override('GET', CART, { headers: { ...JSON_API, 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' }, body: zlib.gzipSync(Buffer.from(body)) });
      const result = await read(tab, CART);
      expect(result.fetchError, `pad ${pad}`).toBeUndefined();
      expect(result.text, `pad ${pad}: decoded once, sealed`).toBe(body.replace(token, 'sealed:cart'));
      expect(header(result, 'content-encoding'), `pad ${pad}: no encoding the page would decode again`).toBeNull();
      const length = header(result, 'content-length');
      if (length !== null) expect(Number(length), `pad ${pad}: a Content-Length says the decoded length`).toBe(result.length);
      expect(header(result, 'vary')).toBe('Accept-Encoding');
    }
  }),
);

inEveryEngine(() =>
  test('a cross-origin gzip cart answer, whose Content-Encoding CORS hides from the worker, reaches the page decoded once and sealed', async ({ shop, storefront }) => {
    const api = `http://localhost:${new URL(storefront.url).port}`;
    const tab = await shop.open({ baseUrl: api });
    const token = oddToken('k\\+/');
    await pageCart(tab, storefront, token, api);
    const bodyOf = (pad: number) => JSON.stringify({ note: `x${'y'.repeat(pad)} ${token} z` });
    // Where the body's decoded length equals the compressed Content-Length the worker sees, the first
    // chunk looks whole by its length alone.
    const equal = Array.from({ length: 300 }, (_, pad) => pad).find((pad) => zlib.gzipSync(bodyOf(pad)).length === Buffer.byteLength(bodyOf(pad)));
    for (const pad of [0, ...(equal === undefined ? [] : [equal]), 300, 200_000]) {
      const body = bodyOf(pad);
      storefront.override('GET', CART, { headers: { ...JSON_API, 'Content-Encoding': 'gzip' }, body: zlib.gzipSync(body) });
      const result = await read(tab, `${api}${CART}`);
      expect(result.fetchError, `pad ${pad}`).toBeUndefined();
      expect(result.text, `pad ${pad}: decoded once, sealed`).toBe(body.replace(JSON.stringify(token).slice(1, -1), 'sealed:cart'));
      const length = header(result, 'content-length');
      if (length !== null) expect(Number(length), `pad ${pad}: Content-Length`).toBe(result.length);
    }
  }),
);
