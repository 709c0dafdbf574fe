/**
 * Answers a real server may legally send on cart paths, read by the page through the
 * worker in real Chromium, against what docs/security.md ("How sealing works") says the page gets.
 */
import zlib from 'node:zlib';
import { leakedSecrets } from './leaks.js';
import { expect, openShop, pageFetch, test } from './support.js';

const CART = '/api/v2/storefront/cart';
const JSON_API = { 'Content-Type': 'application/vnd.api+json' };

/** A token with the characters a store's tokens may hold. */
function oddToken(prefix: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  return prefix + Array.from({ length: 24 }, () => alphabet[Math.floor(Math.random() * 64)]).join('');
}

type Page = import('@playwright/test').Page;

/** The page's own cart, created by its own request, with `token`. */
async function pageCart(page: Page, storefront: { override: (m: string, p: string, r: object) => void }, token: string): Promise<string> {
  const number = `R${Math.floor(Math.random() * 1e8)}`;
  storefront.override('POST', CART, { status: 201, headers: JSON_API, body: JSON.stringify({ data: { id: '7', type: 'cart', attributes: { number, token }, relationships: {} } }) });
  const created = await pageFetch(page, CART, { method: 'POST', headers: JSON_API });
  expect(JSON.parse(created.body).data.attributes.token).toBe('sealed:cart');
  await expect.poll(() => page.evaluate(() => window.storefrontAuth.getState().then((state) => state.cart))).toEqual({ number });
  return number;
}

/** What the page read. */
interface Read {
  fetchError?: string;
  readError?: string;
  status?: number;
  statusText?: string;
  headers?: [string, string][];
  bytes?: number[];
}

/** What the page reads of `url`: status, reason, headers, body bytes; or how its fetch or read failed. */
function read(page: Page, url: string, init: RequestInit = {}): Promise<Read> {
  return page.evaluate<Read, { url: string; init: RequestInit }>(
    async ({ url, init }) => {
      let response: Response;
      try {
        response = await fetch(url, init);
      } catch (error) {
        return { fetchError: String(error) };
      }
      const head = { status: response.status, statusText: response.statusText, headers: [...response.headers] };
      try {
        return { ...head, bytes: [...new Uint8Array(await response.arrayBuffer())] };
      } catch (error) {
        return { ...head, readError: String(error) };
      }
    },
    { url, init },
  );
}

const text = (bytes: number[] | undefined) => Buffer.from(bytes ?? []).toString('utf8');
const header = (result: { headers?: [string, string][] }, name: string) => result.headers?.find(([key]) => key === name)?.[1] ?? null;

for (const [encoding, compress] of [
  ['gzip', zlib.gzipSync],
  ['deflate', zlib.deflateSync],
  ['br', zlib.brotliCompressSync],
] as const) {
  test(`a ${encoding} cart answer with its compressed Content-Length reaches the page decoded once, whole, its length true`, async ({ context, storefront }) => {
    const page = await openShop(context, storefront);
    const token = oddToken('a/+');
    await pageCart(page, storefront, token);
    for (const withToken of [false, true]) {
      const body = JSON.stringify({ data: { id: '7', type: 'cart', attributes: { state: 'cart', note: withToken ? `order ${token} held` : 'x'.repeat(3000) } } });
      storefront.override('GET', CART, { headers: { ...JSON_API, 'Content-Encoding': encoding, Vary: 'Accept-Encoding' }, body: compress(Buffer.from(body)) });
      const result = await read(page, CART);
      expect(result.fetchError).toBeUndefined();
      const expected = withToken ? body.replace(token, 'sealed:cart') : body;
      expect(text(result.bytes), `${encoding} body`).toBe(expected);
      const length = header(result, 'content-length');
      if (length !== null) expect(Number(length), 'a Content-Length says the decoded length').toBe(result.bytes?.length);
      expect(header(result, 'content-encoding'), 'no encoding the page would decode again').toBeNull();
      expect(header(result, 'vary')).toBe('Accept-Encoding');
    }
  });
}

test('headers a page relies on are kept on a sealed cart answer', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  const token = oddToken('+/');
  await pageCart(page, storefront, token);
  const headers = { ...JSON_API, ETag: 'W/"cart-7"', 'Cache-Control': 'private, max-age=0, must-revalidate', Vary: 'Accept, X-Store-Order-Token', 'Content-Disposition': 'attachment; filename="cart.json"', 'X-Request-Id': 'abc-123' };
  storefront.override('GET', CART, { headers, body: JSON.stringify({ data: { attributes: { token } } }) });
  const result = await read(page, CART);
  for (const [name, value] of Object.entries(headers)) expect(header(result, name.toLowerCase()), name).toBe(value);
  expect(text(result.bytes)).toBe('{"data":{"attributes":{"token":"sealed:cart"}}}');
});

test('204, 205 and 304 cart answers, a HEAD and an empty JSON 200 reach the page as sent', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  await pageCart(page, storefront, oddToken('/'));
  storefront.override('DELETE', `${CART}/remove_line_item/1`, { status: 204, headers: { ETag: '"e1"' } });
  const none = await read(page, `${CART}/remove_line_item/1`, { method: 'DELETE' });
  expect([none.status, none.bytes?.length, header(none, 'etag')]).toEqual([204, 0, '"e1"']);

  storefront.override('GET', CART, { status: 304, headers: { ETag: '"e2"' } });
  const notModified = await read(page, CART, { headers: { 'If-None-Match': '"e2"' } });
  expect([notModified.status, notModified.bytes?.length, header(notModified, 'etag')]).toEqual([304, 0, '"e2"']);

  storefront.override('GET', CART, { raw: Buffer.from('HTTP/1.1 205 Reset Content\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello') });
  const reset = await read(page, CART);
  expect(reset.fetchError, '205').toBeUndefined();
  expect(reset.status).toBe(205);

  // The same HEAD where the worker takes no part (the catalogue goes to the network): its Content-Length as sent.
  storefront.override('HEAD', '/api/v2/storefront/products', { headers: { ...JSON_API, 'Content-Length': '1234' }, body: 'x'.repeat(1234) });
  const plainHead = await read(page, '/api/v2/storefront/products', { method: 'HEAD' });
  expect([plainHead.status, plainHead.bytes?.length, header(plainHead, 'content-length')]).toEqual([200, 0, '1234']);
  storefront.override('HEAD', CART, { headers: { ...JSON_API, 'Content-Length': '1234' }, body: 'x'.repeat(1234) });
  const head = await read(page, CART, { method: 'HEAD' });
  expect.soft([head.status, head.bytes?.length, header(head, 'content-length')], 'a HEAD keeps its Content-Length').toEqual([200, 0, '1234']);

  storefront.override('GET', CART, { headers: { 'Content-Type': 'application/json' }, body: '' });
  const empty = await read(page, CART);
  expect([empty.status, empty.bytes?.length, header(empty, 'content-length'), header(empty, 'content-type')]).toEqual([200, 0, '0', 'application/json']);
});

test('a Content-Length shorter or longer than the body: the page gets what it gets without the worker', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  await pageCart(page, storefront, oddToken('x+'));
  const products = '/api/v2/storefront/products';
  for (const [declared, body] of [
    [10, '{"a":"0123456789abcdef"}'],
    [100, '{"a":"0123456789abcdef"}'],
  ] as const) {
    const raw = Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\nConnection: close\r\n\r\n${body}`);
    storefront.override('GET', products, { raw });
    const plain = await read(page, products);
    storefront.override('GET', CART, { raw });
    const sealed = await read(page, CART);
    if (declared < body.length) expect({ ...sealed, headers: undefined }, `Content-Length ${declared}`).toEqual({ ...plain, headers: undefined });
    // A body cut short fails the page: its read, or (where the worker met the failure reading ahead) its fetch.
    else expect([plain.readError ?? plain.fetchError, sealed.readError ?? sealed.fetchError, sealed.bytes]).toEqual([expect.any(String), expect.any(String), undefined]);
  }
});

test('duplicate Content-Type headers: nothing replaced is byte for byte, a token is sealed', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  const token = oddToken('Q/');
  await pageCart(page, storefront, token);
  const plainBody = Buffer.from('{"note":"caf\xe9"}', 'latin1');
  const raw = (body: Buffer) => Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=iso-8859-1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`), body]);
  storefront.override('GET', CART, { raw: raw(plainBody) });
  const plain = await read(page, CART);
  expect(plain.bytes, 'as sent').toEqual([...plainBody]);
  const tokenBody = Buffer.from(`{"note":"caf\xe9 ${token}"}`, 'latin1');
  storefront.override('GET', CART, { raw: raw(tokenBody) });
  const sealed = await read(page, CART);
  expect(leakedSecrets([token], [Buffer.from(sealed.bytes ?? []).toString('latin1'), text(sealed.bytes)])).toEqual([]);
});

test('a chunked cart answer whose chunks cut the token reaches the page sealed', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  const token = oddToken('/+');
  await pageCart(page, storefront, token);
  const body = `{"data":{"links":{"self":"/cart?t=${encodeURIComponent(token)}"},"msg":"order ${token.replace(/\//g, '\\/')} ok"}}`;
  const chunks: string[] = [];
  for (let i = 0; i < body.length; i += 3) chunks.push(body.slice(i, i + 3));
  storefront.override('GET', CART, { headers: JSON_API, chunks, everyMs: 1 });
  const result = await read(page, CART);
  expect(leakedSecrets([token], [text(result.bytes)])).toEqual([]);
  expect(JSON.parse(text(result.bytes)).data.msg).toBe('order sealed:cart ok');
});

test('cross-origin: a header the API exposes reaches the page, and one holding the token does not', async ({ context, storefront }) => {
  const api = `http://localhost:${new URL(storefront.url).port}`;
  const page = await openShop(context, storefront, { baseUrl: api });
  const token = oddToken('k/');
  const number = `R${Math.floor(Math.random() * 1e8)}`;
  storefront.override('POST', CART, { status: 201, headers: JSON_API, body: JSON.stringify({ data: { id: '7', type: 'cart', attributes: { number, token }, relationships: {} } }) });
  await pageFetch(page, `${api}${CART}`, { method: 'POST', headers: JSON_API });
  await expect.poll(() => page.evaluate(() => window.storefrontAuth.getState().then((state) => state.cart))).toEqual({ number });
  storefront.override('GET', CART, { status: 401, headers: { ...JSON_API, 'WWW-Authenticate': 'Bearer error="invalid_token"', 'Access-Control-Expose-Headers': 'WWW-Authenticate, X-Total-Count, X-Debug-Token', 'X-Total-Count': '3', 'X-Debug-Token': `t=${token}` }, body: '{"error":"nope"}' });
  const result = await read(page, `${api}${CART}`);
  expect(result.fetchError).toBeUndefined();
  expect(header(result, 'www-authenticate')).toBe('Bearer error="invalid_token"');
  expect(header(result, 'x-total-count')).toBe('3');
  expect(header(result, 'x-debug-token')).toBeNull();
  expect(leakedSecrets([token], [JSON.stringify(result)])).toEqual([]);
});

test('a gzip token answer and a gzip cart the worker keeps are read decoded, kept, and sealed for the page', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  const access = oddToken('Zx+/');
  const refresh = oddToken('/r\\');
  const grant = JSON.stringify({ access_token: access, token_type: 'Bearer', expires_in: 7200, refresh_token: refresh, created_at: Math.floor(Date.now() / 1000) });
  storefront.override('POST', '/store_oauth/token', { headers: { 'Content-Type': 'application/json; charset=utf-8', 'Content-Encoding': 'gzip' }, body: zlib.gzipSync(grant) });
  const { username, password } = storefront.user;
  const answer = await read(page, '/store_oauth/token', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ grant_type: 'password', username, password }) });
  expect(answer.fetchError).toBeUndefined();
  expect(JSON.parse(text(answer.bytes))).toMatchObject({ access_token: 'sealed:access', refresh_token: 'sealed:refresh' });
  const length = header(answer, 'content-length');
  if (length !== null) expect(Number(length)).toBe(answer.bytes?.length);
  expect(header(answer, 'content-encoding')).toBeNull();
  await expect.poll(() => page.evaluate(() => window.storefrontAuth.getState().then((state) => state.signedIn))).toBe(true);

  const token = oddToken('c/+');
  const number = `R${Math.floor(Math.random() * 1e8)}`;
  const cart = JSON.stringify({ data: { id: '7', type: 'cart', attributes: { number, token, pad: 'p'.repeat(70000) }, relationships: {} } });
  storefront.override('POST', CART, { status: 201, headers: { ...JSON_API, 'Content-Encoding': 'gzip' }, body: zlib.gzipSync(cart) });
  const created = await read(page, CART, { method: 'POST', headers: JSON_API });
  expect(created.fetchError).toBeUndefined();
  expect(JSON.parse(text(created.bytes)).data.attributes.token).toBe('sealed:cart');
  expect(leakedSecrets([access, refresh, token], [text(created.bytes), text(answer.bytes)])).toEqual([]);
  await expect.poll(() => page.evaluate(() => window.storefrontAuth.getState().then((state) => state.cart))).toEqual({ number });
});

test('cross-origin gzip cart answers, long and short, reach the page decoded once and sealed', async ({ context, storefront }) => {
  const api = `http://localhost:${new URL(storefront.url).port}`;
  const page = await openShop(context, storefront, { baseUrl: api });
  const token = oddToken('k+/');
  const number = `R${Math.floor(Math.random() * 1e8)}`;
  storefront.override('POST', CART, { status: 201, headers: JSON_API, body: JSON.stringify({ data: { id: '7', type: 'cart', attributes: { number, token }, relationships: {} } }) });
  await pageFetch(page, `${api}${CART}`, { method: 'POST', headers: JSON_API });
  await expect.poll(() => page.evaluate(() => window.storefrontAuth.getState().then((state) => state.cart))).toEqual({ number });
  for (const pad of [0, 300, 200000]) {
    const body = JSON.stringify({ note: `x${'y'.repeat(pad)} ${token} z` });
    storefront.override('GET', CART, { headers: { ...JSON_API, 'Content-Encoding': 'gzip' }, body: zlib.gzipSync(body) });
    const result = await read(page, `${api}${CART}`);
    expect(result.fetchError, `pad ${pad}`).toBeUndefined();
    expect(text(result.bytes), `pad ${pad}`).toBe(body.replace(token, 'sealed:cart'));
    const length = header(result, 'content-length');
    if (length !== null) expect(Number(length), `pad ${pad}: Content-Length`).toBe(result.bytes?.length);
  }
});

test('a HEAD answered with a compressed representation keeps its Content-Length and Content-Encoding', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  await pageCart(page, storefront, oddToken('h+\\'));
  const headers = { ...JSON_API, 'Content-Encoding': 'gzip', 'Content-Length': '321' };
  // Where the worker takes no part (the catalogue goes to the network): the headers as sent.
  storefront.override('HEAD', '/api/v2/storefront/products', { headers });
  const plain = await read(page, '/api/v2/storefront/products', { method: 'HEAD' });
  expect([header(plain, 'content-length'), header(plain, 'content-encoding')]).toEqual(['321', 'gzip']);
  storefront.override('HEAD', CART, { headers });
  const sealed = await read(page, CART, { method: 'HEAD' });
  expect([sealed.status, header(sealed, 'content-length'), header(sealed, 'content-encoding')]).toEqual([200, '321', 'gzip']);
});

test('a reason phrase with a control character: the page gets the answer it gets without the worker', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  await pageCart(page, storefront, oddToken('r/"'));
  const products = '/api/v2/storefront/products';
  for (const reason of ['O\x7fK', 'O\x01K', 'OK\x0b', '\x1bOK']) {
    const raw = Buffer.concat([Buffer.from('HTTP/1.1 200 '), Buffer.from(reason, 'latin1'), Buffer.from('\r\nContent-Type: application/json\r\nContent-Length: 11\r\nConnection: close\r\n\r\n{"ok":true}')]);
    storefront.override('GET', products, { raw });
    const plain = await read(page, products);
    storefront.override('GET', CART, { raw });
    const sealed = await read(page, CART);
    expect.soft({ fetchError: sealed.fetchError, status: sealed.status, body: text(sealed.bytes) }, `reason ${JSON.stringify(reason)}`).toEqual({ fetchError: plain.fetchError, status: plain.status, body: text(plain.bytes) });
  }
});
