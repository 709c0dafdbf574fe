import type { Page } from '@playwright/test';
import { login, waitForExpiry } from '../support.js';
import { expect, openSpreeShop, test } from './support.js';

// Long enough that the burst ends well before the refreshed token is due in turn.
test.use({ doorkeeperOptions: { accessTokenLifetime: 5 } });

/** Fires `count` concurrent account requests in the page and returns their statuses. */
function burst(page: Page, count: number): Promise<number[]> {
  return page.evaluate((count) => Promise.all(Array.from({ length: count }, () => fetch('/api/v2/storefront/account').then((r) => r.status))), count);
}

test('after expiry, 4 tabs × 10 concurrent account calls cause exactly one refresh grant at Doorkeeper', async ({ context, doorkeeper }) => {
  const tabs = [await openSpreeShop(context, doorkeeper)];
  const signedIn = await login(tabs[0]!, doorkeeper.user);
  for (let i = 1; i < 4; i++) tabs.push(await openSpreeShop(context, doorkeeper));
  await waitForExpiry(tabs[0]!);
  await doorkeeper.clear();

  const statuses = (await Promise.all(tabs.map((tab) => burst(tab, 10)))).flat();

  expect(statuses).toEqual(Array(40).fill(200));
  const stats = await doorkeeper.stats();
  console.log(`storm at Doorkeeper: 40 requests, ${stats.refreshGrants} refresh grant(s), ${stats.invalidGrants} invalid_grant, ${stats.unauthorized} 401`);
  expect(stats).toMatchObject({ refreshGrants: 1, refreshSuccesses: 1, invalidGrants: 0 });
  // Every account call carried the one refreshed bearer.
  const [refresh] = await doorkeeper.issuedPairs();
  const bearers = new Set((await doorkeeper.requestsTo('GET', '/api/v2/storefront/account')).map((request) => request.headers.authorization));
  expect([...bearers]).toEqual([`Bearer ${refresh?.access_token}`]);
  for (const tab of tabs) {
    const state = await tab.evaluate(() => window.storefrontAuth.getState());
    expect(state.accessTokenExpiresAt).toBeGreaterThan(signedIn.accessTokenExpiresAt ?? Infinity);
  }
});
