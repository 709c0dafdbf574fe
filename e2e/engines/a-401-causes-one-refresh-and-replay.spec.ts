import { requestsTo } from '../support.js';
import { expect, inEveryEngine, test } from './fixtures.js';
import { getState, login, pageFetch } from './shop.js';

inEveryEngine(() =>
  test('a 401 to a bearer call causes one refresh and one replay, request body included', async ({ shop, storefront }) => {
    const tab = await shop.open();
    const signedIn = await login(tab, storefront.user);

    storefront.expireAllAccessTokens();
    storefront.clearLog();
    const body = JSON.stringify({ user: { first_name: 'Ada', last_name: 'Lovelace' } });
    const answer = await pageFetch(tab, '/api/v2/storefront/account', { method: 'PATCH', headers: { 'Content-Type': 'application/json' }, body });

    expect(answer.status).toBe(200);
    const patches = requestsTo(storefront, 'PATCH', '/api/v2/storefront/account');
    expect(patches.map((request) => request.body)).toEqual([body, body]);
    expect(patches.map((request) => request.status)).toEqual([401, 200]);
    expect(patches[0]?.headers.authorization).not.toBe(patches[1]?.headers.authorization);
    expect(storefront.stats()).toMatchObject({ refreshGrants: 1, invalidGrants: 0 });
    expect(new URLSearchParams(requestsTo(storefront, 'POST', '/store_oauth/token')[0]?.body).get('grant_type')).toBe('refresh_token');
    expect((await getState(tab)).accessTokenExpiresAt).toBeGreaterThan(signedIn.accessTokenExpiresAt ?? 0);

    expect((await pageFetch(tab, '/api/v2/storefront/account')).status).toBe(200);
    expect(storefront.stats().refreshGrants, 'the next call uses the new bearer').toBe(1);
  }),
);
