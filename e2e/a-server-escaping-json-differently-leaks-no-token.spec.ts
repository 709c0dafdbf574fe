/**
 * A server may write JSON in other legal spellings: PHP's `json_encode`
 * escapes `/` as `\/`, others write `\u0063` for `c`. The worker captures tokens from the parsed
 * value, so it must seal them in whatever spelling the server chose.
 * On 947a503, the sealer looked for `JSON.stringify`'s spelling only: these bodies reached the page
 * as the server sent them, and `JSON.parse` in the page gave the real cart, access and refresh
 * tokens (the final `leakedSecrets` check lists them all).
 */
import { leakedSecrets, oddToken, slashEscaped, unicodeEscaped } from './leaks.js';
import { expect, issuedTokens, openShop, pageFetch, realCartToken, test } from './support.js';

const CART = '/api/v2/storefront/cart';
const JSON_API = { 'Content-Type': 'application/vnd.api+json' };

/** A JSON:API cart document whose token is written exactly as `tokenSpelling` (already escaped). */
function cartDocument(number: string, tokenSpelling: string): string {
  return `{"data":{"id":"9","type":"cart","attributes":{"number":"${number}","token":"${tokenSpelling}","state":"cart","total":"0.00"},"relationships":{}},"links":{"self":"http:\\/\\/shop.example\\/api\\/v2\\/storefront\\/cart"}}`;
}

test('a shopper on a server that escapes "/" and writes \\u00XX reads no real token', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  const bodies: string[] = [];

  // A real cart, then the cart read back with every character of its token \u-escaped.
  const { cart } = await page.evaluate(() => window.storefrontAuth.createCart());
  const realCart = realCartToken(storefront, cart?.number);
  storefront.override('GET', CART, { status: 200, headers: JSON_API, body: cartDocument(cart!.number, unicodeEscaped(realCart)) });
  const shown = await pageFetch(page, CART);
  bodies.push(shown.body);
  expect(shown.status).toBe(200);
  expect(JSON.parse(shown.body).data.attributes.token).toBe('sealed:cart');
  expect(shown.body, 'every other byte as the server sent it').toContain('http:\\/\\/shop.example');

  // The page creates a cart on that server: its token, holding "/", comes back as "\/".
  const oddCart = oddToken('cart');
  storefront.override('POST', CART, { status: 201, headers: JSON_API, body: cartDocument('R-ESCAPED', slashEscaped(oddCart)) });
  const created = await pageFetch(page, CART, { method: 'POST', headers: JSON_API });
  bodies.push(created.body);
  expect(created.status).toBe(201);
  expect(JSON.parse(created.body).data.attributes.token).toBe('sealed:cart');
  await expect.poll(() => page.evaluate(() => window.storefrontAuth.getState().then((state) => state.cart)), { message: 'the worker kept the cart from the parsed value' }).toEqual({ number: 'R-ESCAPED' });

  // The page's own grant, answered with a pair written one way each: "\/" and \u00XX.
  const access = oddToken('access');
  const refresh = oddToken('refresh');
  storefront.override('POST', '/store_oauth/token', {
    status: 200,
    headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' },
    body: `{"access_token":"${slashEscaped(access)}","token_type":"Bearer","expires_in":7200,"refresh_token":"${unicodeEscaped(refresh)}","created_at":${Math.floor(Date.now() / 1000)}}`,
  });
  const grant = await pageFetch(page, '/store_oauth/token', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', ...storefront.user }).toString(),
  });
  bodies.push(grant.body);
  expect(grant.status).toBe(200);
  expect(JSON.parse(grant.body)).toMatchObject({ access_token: 'sealed:access', refresh_token: 'sealed:refresh', token_type: 'Bearer' });
  await expect.poll(() => page.evaluate(() => window.storefrontAuth.getState().then((state) => state.signedIn)), { message: 'the worker kept the pair' }).toBe(true);

  const secrets = [...issuedTokens(storefront), oddCart, access, refresh];
  expect(leakedSecrets(secrets, bodies)).toEqual([]);
});
