import type { Page } from '@playwright/test';
import { expect, login, openShop, requestsTo, test, waitForExpiry, type Storefront } from './support.js';

// Doorkeeper 5.5 revokes only a pair whose access token is still valid; once it has expired, revoke
// answers 200 {} and the refresh token keeps refreshing (docs/servers.md, "Doorkeeper, the token
// endpoint"). A logout must still end the session at the server (docs/behaviour.md, "The page
// API"): refresh, use the new bearer once (which, under Doorkeeper's rotation, revokes the old
// pair), then revoke the new pair. All of it in the background: the shopper sees the logout at
// once.
test.use({ storefrontOptions: { flavour: 'spree', revocation: 'doorkeeper-5.5', accessTokenLifetime: 2 } });

/** A pair in the reference storefront's token store (demo/storefront/tokens.mjs, TokenPair). */
interface TokenPair {
  accessToken: string;
  refreshToken: string;
  revoked: boolean;
}

/** Every pair the storefront ever issued: its `tokens` map holds each under both of its tokens. */
function issuedPairs(storefront: Storefront): TokenPair[] {
  const { tokens } = storefront as unknown as { tokens: Map<string, TokenPair> };
  return [...new Set(tokens.values())];
}

/** How a refresh grant with `refreshToken` is answered, sent from Node as any client could. */
async function refreshOutcome(storefront: Storefront, refreshToken: string): Promise<{ status: number; error: unknown }> {
  const response = await fetch(`${storefront.url}/spree_oauth/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }),
  });
  const body = (await response.json()) as { error?: unknown };
  return { status: response.status, error: body.error };
}

/** How the account endpoint answers `accessToken`, sent from Node. */
async function accountOutcome(storefront: Storefront, accessToken: string): Promise<{ status: number; error: unknown }> {
  const response = await fetch(`${storefront.url}/api/v2/storefront/account`, { headers: { Authorization: `Bearer ${accessToken}` } });
  const body = (await response.json()) as { error?: unknown };
  return { status: response.status, error: body.error };
}

/** Logs out in the page and returns the state it resolved with and how long that took. */
async function timedLogout(page: Page): Promise<{ state: unknown; took: number }> {
  const started = Date.now();
  const state = await page.evaluate(() => window.storefrontAuth.logout());
  const took = Date.now() - started;
  // Kept in the report, so a logout that creeps towards the bound shows before it fails.
  test.info().annotations.push({ type: 'logout took', description: `${took} ms` });
  return { state, took };
}

/** Waits until every pair the storefront ever issued is revoked. */
async function waitForEveryPairRevoked(storefront: Storefront): Promise<void> {
  await expect
    .poll(() => issuedPairs(storefront).filter((pair) => !pair.revoked).length, { message: 'every pair is revoked at the server', timeout: 10_000 })
    .toBe(0);
}

/** Proves from outside that no token ever issued works any more (these requests are logged and counted too). */
async function expectNoTokenWorks(storefront: Storefront): Promise<void> {
  for (const pair of issuedPairs(storefront)) {
    expect(await refreshOutcome(storefront, pair.refreshToken), 'no refresh token refreshes').toEqual({ status: 400, error: 'invalid_grant' });
    // Doorkeeper reports a revoked token as revoked even when it has also expired.
    expect(await accountOutcome(storefront, pair.accessToken), 'no access token is accepted').toEqual({ status: 401, error: 'The access token was revoked' });
  }
}

const SIGNED_OUT = { signedIn: false, accessTokenExpiresAt: null, cart: null, pendingWrites: 0 };

test('logout after the access token expired signs out at once and still ends both tokens at the server', async ({ context, storefront }) => {
  const page = await openShop(context, storefront, { preset: 'spree' });
  await login(page, storefront.user);
  await waitForExpiry(page);
  storefront.clearLog();

  const { state, took } = await timedLogout(page);
  expect(state).toEqual(SIGNED_OUT);
  // The refresh, the bearer's one use and the revocations happen in the background.
  expect(took, 'logout resolved at once').toBeLessThan(2_000);

  await waitForEveryPairRevoked(storefront);
  // The worker's own part: one refresh, and the new bearer used once, on the account.
  const pairs = issuedPairs(storefront);
  expect(pairs.length, 'the login pair and the one refreshed at logout').toBe(2);
  expect(storefront.stats().refreshGrants).toBe(1);
  const used = requestsTo(storefront, 'GET', '/api/v2/storefront/account');
  expect(used.map((request) => request.headers.authorization)).toEqual([`Bearer ${pairs[1]?.accessToken}`]);
  expect(await page.evaluate(() => window.storefrontAuth.getState())).toEqual(SIGNED_OUT);

  await expectNoTokenWorks(storefront);
});

test.describe('with a token that outlives the test', () => {
  // Doorkeeper 5.5 ignores revoking an expired pair, so this case needs a token valid through the revocation.
  test.use({ storefrontOptions: { flavour: 'spree', revocation: 'doorkeeper-5.5', accessTokenLifetime: 60 } });

  test('logout while the access token is valid ends both tokens without a refresh', async ({ context, storefront }) => {
    const page = await openShop(context, storefront, { preset: 'spree' });
    await login(page, storefront.user);
    storefront.clearLog();

    const { state, took } = await timedLogout(page);
    expect(state).toEqual(SIGNED_OUT);
    expect(took, 'logout resolved at once').toBeLessThan(2_000);

    await waitForEveryPairRevoked(storefront);
    // A valid pair is revoked as it is: nothing to refresh, and the worker used no bearer.
    expect(storefront.stats().refreshGrants).toBe(0);
    expect(requestsTo(storefront, 'GET', '/api/v2/storefront/account')).toEqual([]);
    expect(issuedPairs(storefront).length).toBe(1);
    await expectNoTokenWorks(storefront);
  });
});
