import type { Page } from '@playwright/test';
import { expect, login, test, waitForExpiry } from './support.js';
import { openV3Shop, V3, V3_STOREFRONT, v3Stats } from './storeApiV3.js';

// 4 s JWTs: the flavour writes `exp` in whole seconds, so each lives 3 to 4 s. Spree rotates
// strictly: a second refresh with the same token would end the session.
test.use({ storefrontOptions: { ...V3_STOREFRONT, accessTokenLifetime: 4 } });

/** Fires `count` concurrent account calls in the page and returns their statuses. */
function burst(page: Page, count: number): Promise<number[]> {
  return page.evaluate(
    ({ count, url }) => Promise.all(Array.from({ length: count }, () => fetch(url, { headers: { 'X-Spree-Api-Key': 'pk_test_storefront_auth' } }).then((r) => r.status))),
    { count, url: `${V3}/customers/me` },
  );
}

test('after the JWT expires, 4 tabs × 10 concurrent calls at a Spree 5 shop cause exactly one rotation', async ({ context, storefront }) => {
  const tabs = [await openV3Shop(context, storefront)];
  await login(tabs[0]!, storefront.user);
  for (let i = 1; i < 4; i++) tabs.push(await openV3Shop(context, storefront));
  await waitForExpiry(tabs[0]!);
  storefront.clearLog();

  const statuses = (await Promise.all(tabs.map((tab) => burst(tab, 10)))).flat();

  expect(statuses).toEqual(Array(40).fill(200));
  const stats = v3Stats(storefront);
  console.log(`v3 storm: 40 requests, ${stats.refreshGrants} refresh(es), ${stats.rotations} rotation(s), ${stats.refusedRefreshes} refused`);
  expect(stats.refreshGrants).toBe(1);
  expect(stats.rotations).toBe(1);
  expect(stats.refusedRefreshes).toBe(0);
  const state = await tabs[3]!.evaluate(() => window.storefrontAuth.getState());
  expect(state.accessTokenExpiresAt).toBeGreaterThan(Date.now());
});
