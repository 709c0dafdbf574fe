import { lastBearer } from '../support.js';
import { expect, inEveryEngine, test } from './fixtures.js';
import { login, logout, pageFetch, recordedEvents } from './shop.js';

inEveryEngine(() =>
  test('login in one tab and logout in the other reach both', async ({ shop, storefront }) => {
    const first = await shop.open();
    const second = await shop.open();

    const signedIn = await login(first, storefront.user);
    await expect.poll(() => recordedEvents(second)).toEqual([{ type: 'change', detail: signedIn }]);
    expect((await pageFetch(second, '/api/v2/storefront/account')).status).toBe(200);

    const signedOut = await logout(second);
    expect(signedOut).toEqual({ signedIn: false, accessTokenExpiresAt: null, cart: null, pendingWrites: 0 });
    await expect.poll(async () => (await recordedEvents(first)).at(-1)?.detail).toEqual(signedOut);
    expect((await pageFetch(first, '/api/v2/storefront/account')).status).toBe(403);
    expect(lastBearer(storefront, 'GET', '/api/v2/storefront/account')).toBeUndefined();
  }),
);
