import { expect, login, recordedEvents, requestsTo, test } from './support.js';
import { openV3Shop, stateOf, V3, V3_KEY, V3_STOREFRONT, v3CartToken, v3Fetch } from './storeApiV3.js';

test.use({ storefrontOptions: V3_STOREFRONT });

test('a guest cart held at login is assigned to the shopper with both the JWT and x-spree-token, as Spree 5.6 requires', async ({ context, storefront }) => {
  const page = await openV3Shop(context, storefront);
  const guest = await page.evaluate(() => window.storefrontAuth.createCart());
  const token = v3CartToken(storefront, guest.cart?.number);

  const signedIn = await login(page, storefront.user);
  expect(signedIn.cart).toEqual(guest.cart);

  await expect.poll(() => requestsTo(storefront, 'PATCH', `${V3}/carts/${guest.cart?.id}/associate`).length).toBe(1);
  const [associate] = requestsTo(storefront, 'PATCH', `${V3}/carts/${guest.cart?.id}/associate`);
  expect(associate?.headers.apiKey).toBe(V3_KEY);
  expect(associate?.headers.authorization).toMatch(/^Bearer /);
  expect(associate?.headers.orderToken).toBe(token);
  expect(associate?.status).toBe(200);

  // The cart is now the user's: the JWT alone finds it among the user's carts.
  const carts = await v3Fetch(page, '/carts');
  expect(carts.status).toBe(200);
  expect((carts.json as { data: Array<{ id: string }> }).data.map((cart) => cart.id)).toContain(guest.cart?.id);
  // No second change told of a failure.
  expect((await recordedEvents(page)).filter((event) => (event.detail as { warning?: unknown }).warning !== undefined)).toEqual([]);
  expect(await stateOf(page)).toMatchObject({ signedIn: true, cart: guest.cart });
});
