import type { Page } from '@playwright/test';
import { expect, login, openShop, test, waitForExpiry } from './support.js';

test.use({ storefrontOptions: { rotation: 'strict', accessTokenLifetime: 3 } });

/** Fires `count` concurrent account requests in the page and returns their statuses. */
function burst(page: Page, count: number): Promise<number[]> {
  return page.evaluate((count) => Promise.all(Array.from({ length: count }, () => fetch('/api/v2/storefront/account').then((r) => r.status))), count);
}

test('after expiry, 4 tabs × 10 concurrent account calls cause exactly one refresh', async ({ context, storefront }) => {
  const tabs = [await openShop(context, storefront)];
  await login(tabs[0]!, storefront.user);
  for (let i = 1; i < 4; i++) tabs.push(await openShop(context, storefront));
  await waitForExpiry(tabs[0]!);
  storefront.clearLog();

  const statuses = (await Promise.all(tabs.map((tab) => burst(tab, 10)))).flat();

  expect(statuses).toEqual(Array(40).fill(200));
  const stats = storefront.stats();
  console.log(`storm, one worker: 40 requests, ${stats.refreshGrants} refresh grant(s), ${stats.invalidGrants} invalid_grant`);
  expect(stats.refreshGrants).toBe(1);
  expect(stats.invalidGrants).toBe(0);
  const state = await tabs[3]!.evaluate(() => window.storefrontAuth.getState());
  expect(state.accessTokenExpiresAt).toBeGreaterThan(Date.now());
});
