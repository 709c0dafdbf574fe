import type { Page } from '@playwright/test';
import { expect, login, test } from './support.js';
import { openV3Shop, V3, V3_KEY, V3_STOREFRONT, v3Stats } from './storeApiV3.js';

/** How long the tabs keep sending; `LOAD_SECONDS` as for the v2 load spec. */
const SOAK_SECONDS = Number(process.env['LOAD_SECONDS'] ?? 20);
const TABS = 10;

// 4 s JWTs (3 to 4 s, exp in whole seconds) and Spree's strict rotation: every refresh spent twice
// would be refused and end the session. Run alone with the other load spec (@load), for its timing.
test.use({ storefrontOptions: { ...V3_STOREFRONT, accessTokenLifetime: 4 } });

/** One tab's load: account, cart and catalogue calls one after another until `seconds` pass; statuses counted. */
function soak(page: Page, cartId: string, seconds: number): Promise<Record<string, number>> {
  return page.evaluate(
    async ({ cartId, seconds, prefix, key }) => {
      const headers = { 'X-Spree-Api-Key': key, 'Content-Type': 'application/json' };
      const mix = [`${prefix}/customers/me`, `${prefix}/carts/${cartId}`, `${prefix}/carts`, `${prefix}/products`];
      const statuses: Record<string, number> = {};
      const end = performance.now() + seconds * 1000;
      for (let i = 0; performance.now() < end; i++) {
        const url = mix[i % mix.length]!;
        const status = await fetch(url, { headers }).then(async (response) => (await response.arrayBuffer(), String(response.status)), () => 'network error');
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
      return statuses;
    },
    { cartId, seconds, prefix: V3, key: V3_KEY },
  );
}

test(`@load ${TABS} tabs at a Spree 5 shop for ${SOAK_SECONDS} s with 4 s JWTs and strict rotation: no refused refresh, no 401 or 403 at a page`, async ({ context, storefront }) => {
  test.setTimeout((SOAK_SECONDS + 60) * 1000);
  const first = await openV3Shop(context, storefront);
  await first.evaluate(() => window.storefrontAuth.createCart());
  const signedIn = await login(first, storefront.user);
  const tabs = [first];
  for (let i = 1; i < TABS; i++) tabs.push(await openV3Shop(context, storefront));

  const results = await Promise.all(tabs.map((tab) => soak(tab, signedIn.cart?.id ?? '', SOAK_SECONDS)));

  const totals: Record<string, number> = {};
  for (const result of results) for (const [status, count] of Object.entries(result)) totals[status] = (totals[status] ?? 0) + count;
  const stats = v3Stats(storefront);
  const requests = Object.values(totals).reduce((sum, count) => sum + count, 0);
  console.log(
    `v3 soak: ${requests} requests from ${TABS} tabs in ${SOAK_SECONDS} s (${(requests / SOAK_SECONDS).toFixed(0)}/s), statuses ${JSON.stringify(totals)}, ` +
      `${stats.refreshGrants} refreshes, ${stats.rotations} rotations, ${stats.refusedRefreshes} refused, ${stats.idempotentReplays} replayed`,
  );
  expect(stats.refusedRefreshes).toBe(0);
  expect(totals['401'] ?? 0).toBe(0);
  expect(totals['403'] ?? 0).toBe(0);
  expect(totals['network error'] ?? 0).toBe(0);
  expect(Object.keys(totals).sort()).toEqual(['200']);
  expect(stats.rotations).toBeGreaterThanOrEqual(Math.floor(SOAK_SECONDS / 4));
  for (const tab of tabs) expect(await tab.evaluate(() => window.storefrontAuth.getState())).toMatchObject({ signedIn: true, cart: signedIn.cart });
});
