/**
 * Spree 5's Store API (preset spree-v3): login in one tab and logout in the other reach both, and
 * the logout revokes the refresh token at the server (`POST /auth/logout` with the real token and
 * the publishable key), so it refreshes no more. The JWT itself cannot be revoked in Spree.
 */
import { requestsTo } from '../support.js';
import { expect, inEveryEngine, spreeV3Storefront, test } from './fixtures.js';
import { login, logout, recordedEvents, V3, v3Fetch, v3Headers } from './shop.js';

test.use({ storefrontOptions: spreeV3Storefront() });

inEveryEngine(() =>
  test('login in one tab and logout in the other reach both, and the refresh token is revoked at the server', async ({ shop, storefront }) => {
    const first = await shop.openV3();
    const second = await shop.openV3();

    const signedIn = await login(first, storefront.user);
    await expect.poll(() => recordedEvents(second)).toEqual([{ type: 'change', detail: signedIn }]);
    expect((await v3Fetch(second, storefront, '/customers/me')).status).toBe(200);
    const refreshTokens = [...storefront.tokens.keys()];
    expect(refreshTokens, 'one live refresh token').toHaveLength(1);

    const signedOut = await logout(second);
    expect(signedOut).toEqual({ signedIn: false, accessTokenExpiresAt: null, cart: null, pendingWrites: 0 });
    await expect.poll(async () => (await recordedEvents(first)).at(-1)?.detail).toEqual(signedOut);
    const me = await v3Fetch(first, storefront, '/customers/me');
    expect(me.status).toBe(401);
    expect(JSON.parse(me.body)).toMatchObject({ error: { code: 'authentication_required' } });
    expect(requestsTo(storefront, 'GET', `${V3}/customers/me`).at(-1)?.headers.authorization).toBeUndefined();

    // Revocation is best effort and does not hold up the logout: wait for it to land.
    await expect.poll(() => requestsTo(storefront, 'POST', `${V3}/auth/logout`).map((request) => request.status)).toEqual([204]);
    const [revocation] = requestsTo(storefront, 'POST', `${V3}/auth/logout`);
    expect(revocation?.refreshToken).toBe(refreshTokens[0]);
    expect(revocation?.headers).toMatchObject({ apiKey: storefront.v3?.publishableKey, authorization: undefined });
    expect(storefront.tokens.size, 'no live refresh token').toBe(0);
    expect(storefront.stats()).toMatchObject({ revocations: 1, revocationsIgnored: 0 });
    const refresh = await fetch(`${storefront.url}${V3}/auth/refresh`, { method: 'POST', headers: v3Headers(storefront), body: JSON.stringify({ refresh_token: refreshTokens[0] }) });
    expect(refresh.status, 'the revoked refresh token refreshes no more').toBe(401);
  }),
);
