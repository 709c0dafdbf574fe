import { realCartToken, bridgeError, expect, openShop, pageFetch, recordedEvents, requestsTo, test, type OverrideReply } from './support.js';

const CART = '/api/v2/storefront/cart';
const json = { 'Content-Type': 'application/vnd.api+json' };
const attributes = { number: 'R000000666', token: 'token-from-a-bad-reply' };

/** Cart creation answers that hold no usable cart, each with the code the bridge must reject with. */
/**
 * A reply as the page reads it with sealed tokens: the worker kept no cart from it, so a `token`
 * field holds another cart's token as far as it knows, and reads `sealed:order`, in JSON or in text
 * cut off; a token that stands in no `token` field is not one the worker can tell, and is untouched.
 */
function asThePageReadsIt(text: string): string {
  return text.replaceAll('"token":"token-from-a-bad-reply"', '"token":"sealed:order"');
}

/** A cart document with a token and no number: what a page's own `fields[cart]=token` asks for. */
const tokenOnly: OverrideReply = { status: 201, body: { data: { id: '6', type: 'cart', attributes: { token: attributes.token } } } };

const badReplies: Array<[string, OverrideReply, string]> = [
  ['an HTML gateway page', { status: 502, headers: { 'Content-Type': 'text/html' }, body: '<html><h1>502 Bad Gateway</h1></html>' }, 'bad_response'],
  ['an empty 201', { status: 201, headers: json, body: '' }, 'bad_response'],
  ['truncated JSON', { status: 201, headers: json, body: '{"data":{"attributes":{"token":"token-from-a-bad-reply","num' }, 'bad_response'],
  ['JSON that is not an object', { status: 201, headers: json, body: '"token-from-a-bad-reply"' }, 'bad_response'],
  ['no data', { status: 201, body: { attributes } }, 'bad_response'],
  ['no token', { status: 201, body: { data: { id: '6', type: 'cart', attributes: { number: attributes.number } } } }, 'bad_response'],
  ['the token as a number', { status: 201, body: { data: { id: '6', type: 'cart', attributes: { ...attributes, token: 666 } } } }, 'bad_response'],
  ['an empty token', { status: 201, body: { data: { id: '6', type: 'cart', attributes: { ...attributes, token: '' } } } }, 'bad_response'],
  ['a 200 with an error body', { status: 200, body: { error: 'The resource you were looking for could not be found.' } }, 'bad_response'],
  ['a 422 with a cart-shaped body', { status: 422, body: { error: 'Invalid', data: { attributes } } }, 'invalid_request'],
  ['a 500 with a cart-shaped body', { status: 500, body: { data: { attributes } } }, 'bad_response'],
];

test('cart responses of the wrong shape reject createCart and change nothing, whoever created the cart', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  const before = await page.evaluate(() => window.storefrontAuth.createCart());
  const token = realCartToken(storefront, JSON.parse((await pageFetch(page, CART)).body).data.attributes.number as string);

  // 1. The bridge's createCart: a clear error with the server's status, no token in it. It asks for
  // the number, so an answer without one is refused too.
  for (const [what, reply, code] of [...badReplies, ['no number', tokenOnly, 'bad_response'] as const]) {
    storefront.override('POST', CART, reply);
    const error = await bridgeError(page, 'createCart');
    expect(error, what).toMatchObject({ name: 'StorefrontAuthError', code, status: reply.status });
    expect(error?.message, what).not.toContain('token-from-a-bad-reply');
  }

  // 2. The page's own creation: the page gets the answer untouched; the worker keeps nothing from it.
  for (const [what, reply] of badReplies) {
    storefront.override('POST', CART, reply);
    const answer = await pageFetch(page, CART, { method: 'POST' });
    expect(answer.status, what).toBe(reply.status);
    // As the server sent it, but sealed: a token in a cart document's place never reaches the page.
    expect(answer.body, what).toBe(asThePageReadsIt(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body)));
  }

  // A page's own creation answered with the token and no number (it may ask for the token alone) is
  // kept with the number '': the page reads sealed:cart, which it can send back.
  storefront.override('POST', CART, tokenOnly);
  expect((await pageFetch(page, `${CART}?fields%5Bcart%5D=token`, { method: 'POST' })).body).toBe(JSON.stringify(tokenOnly.body).replace(attributes.token, 'sealed:cart'));
  await expect.poll(() => page.evaluate(() => window.storefrontAuth.getState())).toEqual({ ...before, cart: { number: '' } });

  // A very large, well-formed cart document is still a cart: size alone does not reject one.
  const big = { data: { id: '7', type: 'cart', attributes: { number: 'R000000777', token: 'big-cart-token', note: 'x'.repeat(300_000) } } };
  storefront.override('POST', CART, { status: 201, headers: json, body: big });
  expect((await pageFetch(page, CART, { method: 'POST' })).status).toBe(201);
  await expect.poll(() => page.evaluate(() => window.storefrontAuth.getState())).toEqual({ ...before, cart: { number: 'R000000777' } });

  // Only those two changed the state; the bad ones announced nothing and left the old token in use.
  const changes = (await recordedEvents(page)).filter((event) => event.type === 'change');
  expect(changes).toHaveLength(3);
  await pageFetch(page, CART);
  expect(requestsTo(storefront, 'GET', CART).at(-1)?.headers.orderToken).toBe('big-cart-token');
  expect(token).not.toBe('big-cart-token');
});
