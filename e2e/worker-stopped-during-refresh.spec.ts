import { expect, login, openShop, pageFetch, stopServiceWorkers, test, waitForExpiry } from './support.js';

test.use({ storefrontOptions: { rotation: 'doorkeeper', accessTokenLifetime: 3 } });

test('the browser stopping the worker in the middle of a refresh does not sign the shopper out', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  await login(page, storefront.user);
  await waitForExpiry(page);

  storefront.override('POST', '/store_oauth/token', { delayMs: 3_000, passThrough: true });
  const pending = pageFetch(page, '/api/v2/storefront/account').then(
    (result) => result.status,
    () => 'network error',
  );
  await expect.poll(() => storefront.stats().refreshGrants).toBe(1);
  await stopServiceWorkers(page);
  await pending;

  // A new worker starts from IndexedDB with the old pair, refreshes again, and the call succeeds.
  expect((await pageFetch(page, '/api/v2/storefront/account')).status).toBe(200);
  const state = await page.evaluate(() => window.storefrontAuth.getState());
  expect(state.signedIn).toBe(true);
  expect(state.accessTokenExpiresAt).toBeGreaterThan(Date.now());
  expect(storefront.stats().invalidGrants).toBe(0);
});
