import { expect, login, openShop, pageFetch, test, waitForExpiry } from './support.js';

test.use({ storefrontOptions: { rotation: 'strict', accessTokenLifetime: 2 } });

const accountOutcome = (page: import('@playwright/test').Page): Promise<string> =>
  page.evaluate(() => fetch('/api/v2/storefront/account').then((r) => `status ${r.status}`, (e: Error) => e.name));

test('a refresh that cannot reach the server, or hangs, fails the request but keeps the session, and the next attempt backs off', async ({ context, storefront }) => {
  test.setTimeout(60_000);
  const page = await openShop(context, storefront);
  const signedIn = await login(page, storefront.user);
  await waitForExpiry(page);

  // Offline: the refresh fails on the network, the page's fetch fails, and the pair is kept.
  await context.setOffline(true);
  expect(await accountOutcome(page)).toBe('TypeError');
  await context.setOffline(false);
  expect((await page.evaluate(() => window.storefrontAuth.getState())).signedIn).toBe(true);

  // Within the back-off (5 s after the first failure) no refresh goes out: the request fails at once.
  const grants = storefront.stats().refreshGrants;
  expect(await accountOutcome(page)).toBe('TypeError');
  expect(storefront.stats().refreshGrants).toBe(grants);
  await page.waitForTimeout(5_100);

  // A token endpoint that hangs: the worker gives up after its 8 s budget rather than hold the lock.
  storefront.override('POST', '/store_oauth/token', { delayMs: 12_000, status: 503, body: { error: 'too late' } });
  const started = Date.now();
  expect(await accountOutcome(page)).toBe('TypeError');
  expect(Date.now() - started).toBeGreaterThanOrEqual(7_500);
  expect(Date.now() - started).toBeLessThan(10_000);

  // The lock was released; once the doubled back-off (10 s after that failure) has passed, the next call refreshes.
  await page.waitForTimeout(10_100);
  expect((await pageFetch(page, '/api/v2/storefront/account')).status).toBe(200);
  const state = await page.evaluate(() => window.storefrontAuth.getState());
  expect(state.signedIn).toBe(true);
  expect(state.accessTokenExpiresAt).toBeGreaterThan(signedIn.accessTokenExpiresAt ?? 0);
  expect(storefront.stats().invalidGrants).toBe(0);
});
