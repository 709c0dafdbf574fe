import { lastBearer, lastIssuedAccessToken, requestsTo } from '../support.js';
import { expect, inEveryEngine, test } from './fixtures.js';
import { createCart, getState, login, pageFetch, recordedEvents } from './shop.js';

inEveryEngine(() =>
  test('after login the worker puts the bearer on account, cart and checkout calls, and nothing on others', async ({ shop, storefront }) => {
    const tab = await shop.open();
    const before = Date.now();
    const state = await login(tab, storefront.user);
    expect(state.signedIn).toBe(true);
    expect(state.accessTokenExpiresAt).toBeGreaterThanOrEqual(before + 7_200_000 - 1_000);

    const [grant] = requestsTo(storefront, 'POST', '/store_oauth/token');
    expect(Object.fromEntries(new URLSearchParams(grant?.body))).toEqual({ grant_type: 'password', ...storefront.user });
    const bearer = `Bearer ${lastIssuedAccessToken(storefront)}`;

    expect((await pageFetch(tab, '/api/v2/storefront/account')).status).toBe(200);
    expect(lastBearer(storefront, 'GET', '/api/v2/storefront/account')).toBe(bearer);
    expect((await createCart(tab)).cart).not.toBeNull();
    expect(lastBearer(storefront, 'POST', '/api/v2/storefront/cart')).toBe(bearer);
    for (const path of ['/api/v2/storefront/cart', '/api/v2/storefront/checkout']) {
      expect((await pageFetch(tab, path)).status, path).toBe(200);
      expect(lastBearer(storefront, 'GET', path), path).toBe(bearer);
      expect(requestsTo(storefront, 'GET', path).at(-1)?.headers.orderToken, `${path}: the bearer alone`).toBeUndefined();
    }
    await pageFetch(tab, '/api/v2/storefront/products');
    expect(lastBearer(storefront, 'GET', '/api/v2/storefront/products')).toBeUndefined();

    const token = lastIssuedAccessToken(storefront);
    expect(JSON.stringify(await getState(tab))).not.toContain(token);
    expect(JSON.stringify(await recordedEvents(tab))).not.toContain(token);
  }),
);
