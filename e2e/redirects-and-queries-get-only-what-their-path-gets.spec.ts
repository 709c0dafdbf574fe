/**
 * Redirects and queries reach only what the credential table gives.
 * - A redirect under the base URL from a cart path to a products path gets no credential.
 * - A `guest_order_token=sealed:cart` on the token path is not swapped (the token path gets no credential).
 * - The rest of a URL with a swapped placeholder reaches the server byte-identical (`fields%5Bcart%5D=a+b`).
 * On 947a503 (verified): the redirect to products got the order token again, the token path's query
 * reached the server with the real cart token, and `unsealQuery` re-serialised the whole query
 * through URLSearchParams: `&flag` became `&flag=` and the second `guest_order_token` was dropped.
 */
import { expect, login, openShop, realCartToken, requestsTo, test } from './support.js';

const CART = '/api/v2/storefront/cart';
const PRODUCTS = '/api/v2/storefront/products';

test('a cart link redirected to the products gets no credential there, guest or signed in', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  await page.evaluate(() => window.storefrontAuth.createCart());
  for (const who of ['guest', 'signed in']) {
    if (who === 'signed in') await login(page, storefront.user);
    storefront.clearLog();
    storefront.override('GET', `${CART}/recommendations`, { status: 302, headers: { Location: PRODUCTS }, body: '', times: 2 });
    const status = await page.evaluate((url) => fetch(url).then((response) => response.status), `${CART}/recommendations`);
    expect(status, who).toBe(200);
    const products = requestsTo(storefront, 'GET', PRODUCTS);
    expect(products.length, `${who}: the redirect was followed`).toBeGreaterThanOrEqual(1);
    expect(products.map((request) => [request.headers.authorization, request.headers.orderToken]), `${who}: products get nothing`).toEqual(products.map(() => [undefined, undefined]));
  }
});

test("a grant whose URL holds guest_order_token=sealed:cart reaches the token path with the placeholder as it is", async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  await page.evaluate(() => window.storefrontAuth.createCart());
  const answer = await page.evaluate(
    (body) => fetch('/store_oauth/token?guest_order_token=sealed:cart', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body }).then((response) => response.status),
    new URLSearchParams({ grant_type: 'password', ...storefront.user }).toString(),
  );
  expect(answer).toBe(200);
  expect(requestsTo(storefront, 'POST', '/store_oauth/token').at(-1)?.search).toBe('?guest_order_token=sealed:cart');
});

test('a cart URL with a placeholder reaches the server byte for byte but the swapped value', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  const { cart } = await page.evaluate(() => window.storefrontAuth.createCart());
  const real = realCartToken(storefront, cart?.number);
  const rest = "fields%5Bcart%5D=a+b&include=line_items%2Cvariants&q=%7E'x'&empty=&flag&guest_order_token=sealed:other";
  const searchSeen = async (url: string) => {
    storefront.clearLog();
    await page.evaluate((url) => fetch(url).then((response) => response.status), url);
    return storefront.requests.find((request) => request.path === new URL(url, storefront.url).pathname)?.search;
  };
  for (const path of [CART, `${CART}/associate`]) {
    // The same URL with the real value written by the page itself: what the browser sends of it
    // (it percent-encodes `'` in a query on its own), the reference for the placeholder's.
    const direct = await searchSeen(`${path}?${rest.replace('&flag', `&guest_order_token=${real}&flag`)}`);
    const swapped = await searchSeen(`${path}?${rest.replace('&flag', '&guest_order_token=sealed:cart&flag')}`);
    expect(swapped, path).toBe(direct);
    expect(swapped).toContain('?fields%5Bcart%5D=a+b&include=line_items%2Cvariants&q=%7E');
    expect(swapped).toContain(`&guest_order_token=${real}&flag&guest_order_token=sealed:other`);
  }
});
