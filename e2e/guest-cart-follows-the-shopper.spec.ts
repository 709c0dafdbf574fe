import { realCartToken, expect, lastBearer, login, openShop, pageFetch, recordedEvents, requestsTo, test } from './support.js';

test('a guest cart held at login is assigned to the shopper and stays in the state', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  const guest = await page.evaluate(() => window.storefrontAuth.createCart());
  const token = realCartToken(storefront, JSON.parse((await pageFetch(page, '/api/v2/storefront/cart')).body).data.attributes.number as string);

  const signedIn = await login(page, storefront.user);
  expect(signedIn.signedIn).toBe(true);
  expect(signedIn.cart).toEqual(guest.cart);

  // The login does not wait for the association (docs/behaviour.md, "Bounds on every wait"): it
  // follows.
  await expect.poll(() => requestsTo(storefront, 'PATCH', '/api/v2/storefront/cart/associate').filter((request) => request.status !== undefined)).toHaveLength(1);
  const [associate] = requestsTo(storefront, 'PATCH', '/api/v2/storefront/cart/associate');
  expect(new URLSearchParams(associate?.search).get('guest_order_token')).toBe(token);
  expect(associate?.headers.authorization).toMatch(/^Bearer /);

  // Signed in, the cart call carries the bearer, and the server answers with the same cart.
  const cart = await pageFetch(page, '/api/v2/storefront/cart');
  expect(cart.status).toBe(200);
  expect(JSON.parse(cart.body).data.attributes.number).toBe(guest.cart?.number);
  expect(lastBearer(storefront, 'GET', '/api/v2/storefront/cart')).toBe(associate?.headers.authorization);
});

test('when the cart cannot be assigned, the login stands and a second change event says why', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  const guest = await page.evaluate(() => window.storefrontAuth.createCart());
  storefront.override('PATCH', '/api/v2/storefront/cart/associate', { status: 422, body: { error: 'Cart is already associated to a user' } });

  const signedIn = await login(page, storefront.user);
  expect(signedIn).toMatchObject({ signedIn: true, cart: guest.cart });
  const [, signInChange] = await recordedEvents(page);
  expect(signInChange?.detail, 'the sign-in itself is announced without a warning').toEqual(signedIn);

  await expect.poll(async () => (await recordedEvents(page)).length).toBe(3);
  const change = (await recordedEvents(page)).at(-1);
  expect(change?.type).toBe('change');
  expect(change?.detail).toMatchObject({ signedIn: true, cart: guest.cart, warning: { code: 'bad_response', status: 422 } });
  expect((change?.detail as { warning: { message: string } }).warning.message).toContain(guest.cart?.number ?? '?');
  expect((await pageFetch(page, '/api/v2/storefront/account')).status).toBe(200);
});
