import type { Page } from '@playwright/test';
import { expect, login, openShop, test, waitForExpiry } from './support.js';

test.use({ storefrontOptions: { rotation: 'strict', accessTokenLifetime: 3 } });

function burst(page: Page, count: number): Promise<number[]> {
  return page.evaluate((count) => Promise.all(Array.from({ length: count }, () => fetch('/api/v2/storefront/account').then((r) => r.status))), count);
}

test('two registrations of the worker at different scopes refresh once between them', async ({ context, storefront }) => {
  const a = await openShop(context, storefront, { scope: '/site/a/' }, '/site/a/blank.html');
  const b = await openShop(context, storefront, { scope: '/site/b/' }, '/site/b/blank.html');
  const a2 = await openShop(context, storefront, { scope: '/site/a/' }, '/site/a/blank.html');
  const b2 = await openShop(context, storefront, { scope: '/site/b/' }, '/site/b/blank.html');
  const scopes = await a.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).map((r) => new URL(r.scope).pathname).sort());
  expect(scopes).toEqual(['/site/a/', '/site/b/']);

  // Signed in through worker A; worker B learns of it from storage.
  await login(a, storefront.user);
  await expect.poll(() => b.evaluate(() => window.storefrontAuth.getState().then((s) => s.signedIn))).toBe(true);
  await waitForExpiry(a);
  storefront.clearLog();

  const statuses = (await Promise.all([a, b, a2, b2].map((tab) => burst(tab, 10)))).flat();

  expect(statuses).toEqual(Array(40).fill(200));
  const stats = storefront.stats();
  console.log(`storm, two workers: 40 requests, ${stats.refreshGrants} refresh grant(s), ${stats.invalidGrants} invalid_grant`);
  expect(stats.refreshGrants).toBe(1);
  expect(stats.invalidGrants).toBe(0);
});
