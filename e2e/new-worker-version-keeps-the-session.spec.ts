import { expect, expectOneRotatedSession, fire, login, openShop, settle, test, waitForExpiry } from './support.js';

test.use({ storefrontOptions: { rotation: 'strict', accessTokenLifetime: 3 } });

test('a new version of the worker activating while tabs are open keeps the session and never refreshes twice', async ({ context, storefront }) => {
  const first = await openShop(context, storefront);
  const second = await openShop(context, storefront);
  await first.evaluate(() => window.storefrontAuth.createCart());
  const signedIn = await login(first, storefront.user);
  const oldScript = await first.evaluate(() => navigator.serviceWorker.controller?.scriptURL);
  await waitForExpiry(first);

  // The old version starts the refresh, which the server answers slowly, with requests in flight.
  storefront.override('POST', '/store_oauth/token', { delayMs: 1_500, passThrough: true });
  await fire(first, 5, 'before');
  await fire(second, 5, 'before');
  await expect.poll(() => storefront.stats().refreshGrants).toBe(1);

  // Meanwhile the site ships a new version (a new script URL for the same scope): it installs,
  // skips waiting and claims both tabs once the old version's requests are done.
  const newScript = `${oldScript}&release=2`;
  await first.evaluate((script) => navigator.serviceWorker.register(script, { scope: '/' }).then(() => undefined), newScript);
  for (const page of [first, second]) {
    await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller?.scriptURL), { timeout: 15_000 }).toBe(newScript);
  }
  await fire(first, 5, 'after');
  await fire(second, 5, 'after');

  const statuses: number[] = [];
  for (const page of [first, second]) statuses.push(...(await settle(page, 'before')), ...(await settle(page, 'after')));
  expect(statuses).toEqual(Array(20).fill(200));

  // One refresh for the one expiry, whichever version sent it; the rotated pair is in use, and the
  // new version found the stored state in both tabs.
  expect(storefront.stats().refreshGrants).toBe(1);
  expect(storefront.stats().invalidGrants).toBe(0);
  await expectOneRotatedSession(storefront, [first, second], signedIn);
});
