import { expect, openShop, pageFetch, realCartToken, recordedEvents, requestsTo, test } from './support.js';

test('two tabs share one cart and both hear of every change', async ({ context, storefront }) => {
  const first = await openShop(context, storefront);
  const second = await openShop(context, storefront);

  const state = await first.evaluate(() => window.storefrontAuth.createCart());
  const change = { type: 'change', detail: state, at: expect.any(Number) };
  await expect.poll(() => recordedEvents(second)).toEqual([change]);
  expect(await recordedEvents(first)).toEqual([change]);
  expect(await second.evaluate(() => window.storefrontAuth.getState())).toEqual(state);

  expect((await pageFetch(second, '/api/v2/storefront/cart')).status).toBe(200);
  expect(requestsTo(storefront, 'GET', '/api/v2/storefront/cart').at(-1)?.headers.orderToken, 'the second tab’s call carried the cart the first made').toBe(realCartToken(storefront, state.cart?.number));

  await second.evaluate(() => window.storefrontAuth.logout());
  const signedOut = { type: 'change', detail: { signedIn: false, accessTokenExpiresAt: null, cart: null, pendingWrites: 0 }, at: expect.any(Number) };
  await expect.poll(() => recordedEvents(first)).toEqual([change, signedOut]);
  expect((await pageFetch(first, '/api/v2/storefront/cart')).status).toBe(404);
});
