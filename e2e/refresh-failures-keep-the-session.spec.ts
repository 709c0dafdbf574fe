import { expect, login, openShop, pageFetch, test, waitForExpiry } from './support.js';

test.use({ storefrontOptions: { rotation: 'strict', accessTokenLifetime: 2 } });

test('a refresh that cannot reach the server, or hangs, fails the request but keeps the session', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  const signedIn = await login(page, storefront.user);
  await waitForExpiry(page);

  // Offline: the refresh fails on the network, the page's fetch fails, and the pair is kept.
  await context.setOffline(true);
  const offline = await page.evaluate(() => fetch('/api/v2/storefront/account').then((r) => `status ${r.status}`, (e: Error) => e.name));
  expect(offline).toBe('TypeError');
  await context.setOffline(false);
  expect((await page.evaluate(() => window.storefrontAuth.getState())).signedIn).toBe(true);

  // A token endpoint that hangs: the worker gives up after 10 s rather than hold the lock for ever.
  storefront.override('POST', '/store_oauth/token', { delayMs: 12_000, status: 503, body: { error: 'too late' } });
  const started = Date.now();
  const hung = await page.evaluate(() => fetch('/api/v2/storefront/account').then((r) => `status ${r.status}`, (e: Error) => e.name));
  expect(hung).toBe('TypeError');
  expect(Date.now() - started).toBeGreaterThanOrEqual(9_500);
  expect(Date.now() - started).toBeLessThan(12_000);

  // The lock was released: the next call refreshes and succeeds, with no invalid_grant anywhere.
  expect((await pageFetch(page, '/api/v2/storefront/account')).status).toBe(200);
  const state = await page.evaluate(() => window.storefrontAuth.getState());
  expect(state.signedIn).toBe(true);
  expect(state.accessTokenExpiresAt).toBeGreaterThan(signedIn.accessTokenExpiresAt ?? 0);
  expect(storefront.stats().invalidGrants).toBe(0);
});
