/**
 * A store whose order tokens are standard base64 (`a/N…`, `/x…`, `+/…`) and which writes JSON as
 * PHP does (`\/` for `/`) answers a checkout step with an error that names the order. The worker
 * must read that message as the page's `JSON.parse` will, whatever the token's first characters.
 * On 3ffce34, a string longer than six times the longest field name was decoded only when its text
 * as sent held the first three characters of a spelling, and `a\/N` does not hold `a/N`: the page's
 * `JSON.parse` gave the real cart token (the check of the parsed message fails).
 */
import { leakedSecrets } from './leaks.js';
import { expect, openShop, pageFetch, test } from './support.js';

const CART = '/api/v2/storefront/cart';
const NEXT = '/api/v2/storefront/checkout/next';
const JSON_API = { 'Content-Type': 'application/vnd.api+json' };

/** A standard base64 token (22 characters after `prefix`), as some stores issue them. */
function base64Token(prefix: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  return prefix + Array.from({ length: 22 }, () => alphabet[Math.floor(Math.random() * 64)]).join('');
}

/** `value` as PHP's `json_encode` writes it inside a string: `/` as `\/`. */
const phpEscaped = (value: string) => JSON.stringify(value).slice(1, -1).replace(/\//g, '\\/');

test('a shopper whose store escapes "/" reads no token opening with "a/", "/" or "+/" in a checkout error', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  for (const prefix of ['a/', '/', '+/']) {
    const token = base64Token(prefix);
    const number = `R-${prefix.length}${Math.floor(Math.random() * 1e6)}`;
    // The page creates the cart; the worker keeps its token from the escaped document.
    storefront.override('POST', CART, { status: 201, headers: JSON_API, body: `{"data":{"id":"7","type":"cart","attributes":{"number":"${number}","token":"${phpEscaped(token)}"},"relationships":{}}}` });
    const created = await pageFetch(page, CART, { method: 'POST', headers: JSON_API });
    expect(JSON.parse(created.body).data.attributes.token).toBe('sealed:cart');
    await expect.poll(() => page.evaluate(() => window.storefrontAuth.getState().then((state) => state.cart))).toEqual({ number });

    storefront.override('PATCH', NEXT, { status: 404, headers: JSON_API, body: `{"error":"The order ${phpEscaped(token)} could not be found"}` });
    const answer = await pageFetch(page, NEXT, { method: 'PATCH', headers: JSON_API });
    expect(answer.status).toBe(404);
    expect(storefront.requests.at(-1)?.headers.orderToken, 'the worker sent the real token').toBe(token);
    expect(JSON.parse(answer.body).error, `the message as the page parses it (token ${token})`).toBe('The order sealed:cart could not be found');
    expect(leakedSecrets([token], [answer.body, created.body])).toEqual([]);
  }
});
