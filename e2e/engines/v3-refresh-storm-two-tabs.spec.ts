/**
 * Spree 5's Store API (preset spree-v3) rotates strictly: a refresh token works once, with no grace,
 * so a second refresh for one expiry would end the session. 10 requests from two tabs after the
 * JWT's exp (4 s lifetime; exp in whole seconds), then after the server ends every JWT early (each
 * request meets a 401), cause one rotation each, and every request is answered 200.
 */
import { expect, inEveryEngine, spreeV3Storefront, test } from './fixtures.js';
import { getState, login, storm, V3, v3Headers, waitForExpiry } from './shop.js';

test.use({ storefrontOptions: spreeV3Storefront({ accessTokenLifetime: 4 }) });

const ONE_ROTATION = { statuses: Array(10).fill(200), refreshGrants: 1, rotations: 1, refusedRefreshes: 0 };

inEveryEngine(() =>
  test('10 requests from two tabs after the JWT expires, then after the server ends it early, cause one rotation each', async ({ shop, storefront }) => {
    /** The storm's statuses with the refreshes it caused, so a failure shows both. */
    const outcome = async (statuses: Promise<number[]>) => {
      const [answered, { refreshGrants, rotations, refusedRefreshes }] = [await statuses, storefront.stats()];
      return { statuses: answered, refreshGrants, rotations, refusedRefreshes };
    };
    const me = () => storm([first, second], 5, `${V3}/customers/me`, { headers: v3Headers(storefront) });
    const first = await shop.openV3();
    await login(first, storefront.user);
    const second = await shop.openV3();

    await waitForExpiry(first);
    storefront.clearLog();
    expect(await outcome(me()), 'after the JWT expired').toEqual(ONE_ROTATION);

    storefront.expireAllAccessTokens();
    storefront.clearLog();
    expect(await outcome(me()), 'after the server ended every JWT').toEqual(ONE_ROTATION);

    for (const tab of [first, second]) {
      const state = await getState(tab);
      expect(state.signedIn).toBe(true);
      expect(state.accessTokenExpiresAt).toBeGreaterThan(Date.now());
    }
  }),
);
