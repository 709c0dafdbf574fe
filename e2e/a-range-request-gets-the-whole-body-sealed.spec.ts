/**
 * A page asks for a cart answer in two ranges, cut inside the order token, from a server that
 * honours `Range`, and joins the parts. The worker drops `Range` (and `If-Range`) from what it
 * seals: each answer is the whole body, sealed, so no join can give the token back.
 * On 3ffce34, each part was sealed alone: neither held the whole token, so both reached the page,
 * which joined them into the real token (the leak check fails).
 */
import { leakedSecrets } from './leaks.js';
import { expect, openShop, realCartToken, requestsTo, test } from './support.js';

const CART = '/api/v2/storefront/cart';

test('a page joining two ranges of a cart answer gets no token, and the server sees no Range', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  const { cart } = await page.evaluate(() => window.storefrontAuth.createCart());
  const real = realCartToken(storefront, cart?.number);
  // The token in a link, not a token field: a field's cut-off value is sealed whole, a link's is not.
  const body = JSON.stringify({ data: { id: '1', type: 'cart', attributes: { number: cart?.number, state: 'cart' } }, links: { self: `https://shop.example/api/v2/storefront/cart?guest_order_token=${real}&include=line_items` } });
  const cut = body.indexOf(real) + 6;
  storefront.override('GET', CART, { headers: { 'Content-Type': 'application/vnd.api+json' }, body, ranges: true, times: 2 });
  const parts = await page.evaluate(
    async ({ url, cut }) => {
      const read = async (range: string) => {
        const response = await fetch(url, { headers: { Range: range, 'If-Range': '"v1"' } });
        return { status: response.status, text: await response.text() };
      };
      return [await read(`bytes=0-${cut - 1}`), await read(`bytes=${cut}-`)];
    },
    { url: CART, cut },
  );
  const joined = parts.map((part) => part.text).join('');
  expect(leakedSecrets([real], [joined])).toEqual([]);
  expect(parts.map((part) => part.status), 'the whole body each time').toEqual([200, 200]);
  for (const part of parts) expect(JSON.parse(part.text).links.self).toBe('https://shop.example/api/v2/storefront/cart?guest_order_token=sealed:cart&include=line_items');
  expect(requestsTo(storefront, 'GET', CART).slice(-2).map((request) => request.headers.range), 'no Range reached the server').toEqual([undefined, undefined]);
});
