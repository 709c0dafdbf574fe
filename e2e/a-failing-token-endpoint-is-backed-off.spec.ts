/**
 * A token endpoint that fails, or a server that refuses every bearer, must not turn each request
 * into a refresh (docs/behaviour.md, "Refresh": the back-off lines). The back-off is what a shopper
 * never sees: their calls keep working on the bearer they hold, and the server is not hammered.
 */
import type { Page } from '@playwright/test';
import { expect, lastBearer, login, openShop, pageFetch, recordedEvents, requestsTo, test } from './support.js';

const ACCOUNT = '/api/v2/storefront/account';

/** Runs `count` account calls one after another in the page and returns their statuses. */
function sequentialAccountCalls(page: Page, count: number): Promise<number[]> {
  return page.evaluate(async (count) => {
    const statuses: number[] = [];
    for (let i = 0; i < count; i++) statuses.push((await fetch('/api/v2/storefront/account')).status);
    return statuses;
  }, count);
}

test.describe('a token endpoint answering 503', () => {
  // 20 s of lifetime: the refresh margin is 2 s (a tenth of it), short enough to reach in a test.
  test.use({ storefrontOptions: { accessTokenLifetime: 20 } });

  test('while the bearer is still valid, calls keep working on it and the failing refresh is tried once', async ({ context, storefront }) => {
    const page = await openShop(context, storefront);
    const signedIn = await login(page, storefront.user);
    expect((await pageFetch(page, ACCOUNT)).status).toBe(200);
    const bearer = lastBearer(storefront, 'GET', ACCOUNT);
    expect(bearer).toMatch(/^Bearer /);

    // Inside the 2 s margin, so every call is due for a refresh, with 1.6 s of validity left.
    const expiresAt = signedIn.accessTokenExpiresAt ?? 0;
    await page.waitForTimeout(expiresAt - 1_600 - Date.now());
    storefront.override('POST', '/store_oauth/token', { status: 503, headers: { 'Retry-After': '1' }, body: { error: 'Service Unavailable' }, times: 20 });
    storefront.clearLog();

    const statuses = await sequentialAccountCalls(page, 10);
    // The premise held: everything above happened before the bearer expired.
    expect(Date.now(), 'the calls ran before the bearer expired').toBeLessThan(expiresAt);

    expect(statuses).toEqual(Array(10).fill(200));
    const calls = requestsTo(storefront, 'GET', ACCOUNT);
    expect(calls.map((request) => request.headers.authorization), 'each call carried the bearer still valid').toEqual(Array(10).fill(bearer));
    const stats = storefront.stats();
    console.log(`503 token endpoint: 10 calls, ${stats.tokenRequests} token request(s), ${stats.refreshGrants} refresh grant(s)`);
    expect(stats.tokenRequests, 'one attempt, then the back-off').toBe(1);
    expect(stats.refreshGrants).toBe(1);

    // The pair was kept: still signed in, on the same expiry.
    expect(await page.evaluate(() => window.storefrontAuth.getState())).toEqual(signedIn);
    expect((await recordedEvents(page)).filter((event) => event.type === 'sessionexpired')).toEqual([]);
  });
});

test('a server that refuses every bearer gets its 401s back, and at most one refresh per back-off step', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  const signedIn = await login(page, storefront.user);
  // The server has lost its token table: every bearer is 401, while the token endpoint keeps issuing.
  storefront.refuseEveryBearer(true);
  storefront.clearLog();

  const statuses = await sequentialAccountCalls(page, 10);

  // The page sees what the server said; a refreshed bearer that is refused on its first use is a
  // failed refresh, so the next ones wait for the back-off instead of refreshing per request.
  expect(statuses).toEqual(Array(10).fill(401));
  const stats = storefront.stats();
  console.log(`refused bearers: 10 calls, ${stats.refreshGrants} refresh grant(s), ${stats.refusedBearers} refused bearer(s), ${stats.invalidGrants} invalid_grant`);
  expect(stats.refreshGrants).toBeLessThanOrEqual(2);
  expect(stats.invalidGrants).toBe(0);

  // The session stands: a refused bearer is not a refused refresh.
  const state = await page.evaluate(() => window.storefrontAuth.getState());
  expect(state.signedIn).toBe(true);
  expect(state.cart).toEqual(signedIn.cart);
  expect((await recordedEvents(page)).filter((event) => event.type === 'sessionexpired')).toEqual([]);
});
