/**
 * A token can stand inside a longer string: a JSON:API `links.self` that echoes
 * the swapped `guest_order_token` query URL-encoded, or an error message that names the token.
 * On 947a503, only whole fields were sealed: the page read the real order token inside the link
 * (URL-encoded) and inside the message (both `leakedSecrets` checks fail).
 */
import { leakedSecrets, oddToken } from './leaks.js';
import { expect, issuedTokens, openShop, pageFetch, realCartToken, test } from './support.js';

const CART = '/api/v2/storefront/cart';
const JSON_API = { 'Content-Type': 'application/vnd.api+json' };

test('a shopper whose server echoes the cart token in a link and in an error message reads neither', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  // A server whose order tokens hold characters that URL-encoding changes ("/", "+", "=").
  const token = oddToken('cart');
  storefront.override('POST', CART, { status: 201, headers: JSON_API, body: { data: { id: '7', type: 'cart', attributes: { number: 'R-LINKED', token }, relationships: {} } } });
  const created = await pageFetch(page, CART, { method: 'POST', headers: JSON_API });
  expect(JSON.parse(created.body).data.attributes.token).toBe('sealed:cart');

  // The cart read by its query placeholder; the server's links.self echoes the query it received.
  const self = `${storefront.url}/api/v2/storefront/cart?guest_order_token=${encodeURIComponent(token)}&include=line_items`;
  storefront.override('GET', CART, { status: 200, headers: JSON_API, body: { data: { id: '7', type: 'cart', attributes: { number: 'R-LINKED', token }, relationships: {} }, links: { self } } });
  const linked = await pageFetch(page, `${CART}?guest_order_token=sealed:cart&include=line_items`);
  expect(linked.status).toBe(200);
  expect(storefront.requests.at(-1)?.search, 'the placeholder was swapped on the way out').toBe(`?guest_order_token=${encodeURIComponent(token)}&include=line_items`);
  const links = JSON.parse(linked.body).links as { self: string };
  expect(links.self, 'the rest of the link as the server wrote it').toContain('&include=line_items');

  // An error that names the token, inside a sentence.
  storefront.override('PATCH', '/api/v2/storefront/checkout', { status: 422, headers: JSON_API, body: { error: `Order ${token} cannot move to delivery`, errors: { base: [`token=${token};state=cart`] } } });
  const refused = await pageFetch(page, '/api/v2/storefront/checkout', { method: 'PATCH', headers: JSON_API, body: '{}' });
  expect(refused.status).toBe(422);
  expect(JSON.parse(refused.body).error).toMatch(/^Order .* cannot move to delivery$/);

  expect(leakedSecrets([token, ...issuedTokens(storefront)], [linked.body, refused.body])).toEqual([]);
});

test("the reference storefront's own cart token inside a sentence is sealed too", async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  const { cart } = await page.evaluate(() => window.storefrontAuth.createCart());
  const real = realCartToken(storefront, cart?.number);
  storefront.override('GET', '/api/v2/storefront/checkout', { status: 409, headers: JSON_API, body: { error: `Cart (${real}) is locked by another checkout` } });
  const answer = await pageFetch(page, '/api/v2/storefront/checkout');
  expect(answer.status).toBe(409);
  expect(leakedSecrets([real], [answer.body])).toEqual([]);
});
