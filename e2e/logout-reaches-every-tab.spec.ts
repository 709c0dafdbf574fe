import { expect, lastBearer, login, openShop, pageFetch, recordedEvents, test } from './support.js';

test('login in one tab and logout in another reach both', async ({ context, storefront }) => {
  const first = await openShop(context, storefront);
  const second = await openShop(context, storefront);

  const signedIn = await login(first, storefront.user);
  await expect.poll(() => recordedEvents(second)).toEqual([{ type: 'change', detail: signedIn, at: expect.any(Number) }]);
  expect((await pageFetch(second, '/api/v2/storefront/account')).status).toBe(200);

  const signedOut = await second.evaluate(() => window.storefrontAuth.logout());
  expect(signedOut).toEqual({ signedIn: false, accessTokenExpiresAt: null, cart: null, pendingWrites: 0 });
  await expect.poll(async () => (await recordedEvents(first)).at(-1)?.detail).toEqual(signedOut);
  expect((await pageFetch(first, '/api/v2/storefront/account')).status).toBe(403);
  expect(lastBearer(storefront, 'GET', '/api/v2/storefront/account')).toBeUndefined();
});
