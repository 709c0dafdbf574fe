/**
 * One expiry, one refresh grant, for 10 requests from two tabs: once when the token's time runs
 * out, once when the server ends it early (every request then meets a 401). With strict rotation a
 * second grant would spend the refresh token twice and end the session (invalid_grant).
 */
import { expect, inEveryEngine, test } from './fixtures.js';
import { getState, login, storm, waitForExpiry } from './shop.js';

test.use({ storefrontOptions: { rotation: 'strict', accessTokenLifetime: 4 } });

const ONE_REFRESH = { statuses: Array(10).fill(200), refreshGrants: 1, invalidGrants: 0 };

inEveryEngine(() =>
  test('10 requests from two tabs after a time expiry, then after a server-side expiry, cause one refresh grant each', async ({ shop, storefront }) => {
    /** The storm's statuses with the grants it caused, so a failure shows both. */
    const outcome = async (statuses: Promise<number[]>) => {
      const [answered, { refreshGrants, invalidGrants }] = [await statuses, storefront.stats()];
      return { statuses: answered, refreshGrants, invalidGrants };
    };
    const first = await shop.open();
    await login(first, storefront.user);
    const second = await shop.open();

    await waitForExpiry(first);
    storefront.clearLog();
    expect(await outcome(storm([first, second], 5)), 'after the time expiry').toEqual(ONE_REFRESH);

    storefront.expireAllAccessTokens();
    storefront.clearLog();
    expect(await outcome(storm([first, second], 5)), 'after the server-side expiry').toEqual(ONE_REFRESH);

    for (const tab of [first, second]) {
      const state = await getState(tab);
      expect(state.signedIn).toBe(true);
      expect(state.accessTokenExpiresAt).toBeGreaterThan(Date.now());
    }
  }),
);
