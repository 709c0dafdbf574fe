/**
 * One expiry, one refresh grant, for 10 requests from two tabs: once when the token's time runs
 * out, once when the server ends it early (every request then meets a 401). With strict rotation a
 * second grant would spend the refresh token twice and end the session (invalid_grant).
 */
import { expect, inEveryEngine, test } from './fixtures.js';
import { getState, login, storm, waitForExpiry } from './shop.js';

test.use({ storefrontOptions: { rotation: 'strict', accessTokenLifetime: 4 } });

inEveryEngine(() =>
  test('10 requests from two tabs after a time expiry, then after a server-side expiry, cause one refresh grant each', async ({ shop, storefront }) => {
    const first = await shop.open();
    await login(first, storefront.user);
    const second = await shop.open();

    await waitForExpiry(first);
    storefront.clearLog();
    expect(await storm([first, second], 5), 'after the time expiry').toEqual(Array(10).fill(200));
    expect(storefront.stats(), 'after the time expiry').toMatchObject({ refreshGrants: 1, invalidGrants: 0 });

    storefront.expireAllAccessTokens();
    storefront.clearLog();
    expect(await storm([first, second], 5), 'after the server-side expiry').toEqual(Array(10).fill(200));
    expect(storefront.stats(), 'after the server-side expiry').toMatchObject({ refreshGrants: 1, invalidGrants: 0 });

    for (const tab of [first, second]) {
      const state = await getState(tab);
      expect(state.signedIn).toBe(true);
      expect(state.accessTokenExpiresAt).toBeGreaterThan(Date.now());
    }
  }),
);
