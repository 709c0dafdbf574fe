import type { Page } from '@playwright/test';
import { login } from '../support.js';
import { expect, openSpreeShop, test } from './support.js';

const LIFETIME_S = 2;
const SOAK_MS = 15_000;

test.use({ doorkeeperOptions: { accessTokenLifetime: LIFETIME_S } });
test.setTimeout(60_000);

/** Sends account calls from the page, three at a time with a short pause, for `ms`; the statuses the page saw. */
function keepCalling(page: Page, ms: number): Promise<number[]> {
  return page.evaluate(async (ms) => {
    const statuses: number[] = [];
    const end = performance.now() + ms;
    while (performance.now() < end) {
      const round = await Promise.all(Array.from({ length: 3 }, () => fetch('/api/v2/storefront/account').then((r) => r.status, () => 0)));
      statuses.push(...round);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return statuses;
  }, ms);
}

test('with 2-second tokens, 2 tabs calling for 15 s never see a 401 and never spend a refresh token twice', async ({ context, doorkeeper }) => {
  const tabs = [await openSpreeShop(context, doorkeeper)];
  await login(tabs[0]!, doorkeeper.user);
  tabs.push(await openSpreeShop(context, doorkeeper));

  const statuses = (await Promise.all(tabs.map((tab) => keepCalling(tab, SOAK_MS)))).flat();

  const stats = await doorkeeper.stats();
  const refreshes = (await doorkeeper.requestsTo('POST', '/spree_oauth/token')).filter((request) => new URLSearchParams(request.body).get('grant_type') === 'refresh_token');
  const gaps = refreshes.slice(1).map((request, index) => request.at - refreshes[index]!.at);
  const others = statuses.filter((status) => status !== 200);
  console.log(
    `soak at Doorkeeper: ${statuses.length} account calls from 2 tabs in ${SOAK_MS / 1000} s, ${others.length} not 200, ` +
      `${stats.refreshGrants} refresh grants (shortest gap ${Math.round(Math.min(...gaps))} ms), ${stats.invalidGrants} invalid_grant, ${stats.unauthorized} 401 at the server`,
  );
  expect(statuses.length).toBeGreaterThan(100);
  expect(others, 'no 401 (or anything else) reaches the page').toEqual([]);
  expect(stats.invalidGrants).toBe(0);
  expect(stats.refreshSuccesses).toBe(stats.refreshGrants);
  // Tokens live 2 s and are refreshed 0.2 s before expiry: about one refresh per 1.8 s, one per expiry.
  expect(stats.refreshGrants).toBeGreaterThanOrEqual(Math.floor(SOAK_MS / (LIFETIME_S * 1000)) - 1);
  expect(Math.min(...gaps), 'no two refreshes for one expiry').toBeGreaterThan(1_000);
});
