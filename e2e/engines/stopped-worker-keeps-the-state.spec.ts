/**
 * The browser stops the worker (each engine its own way: `Session.stopServiceWorkers`), and the
 * next request starts a fresh one, which must read the cart and the pair back from IndexedDB. The
 * witnessed worker reports each of its starts, so the test knows the stop did happen.
 */
import { lastBearer, type Storefront } from '../support.js';
import { expect, inEveryEngine, test } from './fixtures.js';
import { createCart, getState, login, pageFetch } from './shop.js';

const WITNESSED = { sw: '/site/witnessed-sw.js', scope: '/site/' };

/** How many times the worker started since the log's entry `from`. */
function startsSince(storefront: Storefront, from: number): number {
  return storefront.requests.slice(from).filter((request) => request.path === '/worker-started').length;
}

inEveryEngine(() =>
  test('the cart and the sign-in survive the browser stopping the worker', async ({ shop, session, storefront }) => {
    test.setTimeout(90_000);
    const tab = await shop.open(WITNESSED);
    expect(startsSince(storefront, 0), 'the witnessed worker reports its start').toBeGreaterThanOrEqual(1);
    await createCart(tab);
    const state = await login(tab, storefront.user);
    await pageFetch(tab, '/api/v2/storefront/account');
    const bearer = lastBearer(storefront, 'GET', '/api/v2/storefront/account');

    const mark = storefront.requests.length;
    await session.stopServiceWorkers();

    // A fresh worker answers: the same bearer and cart, read back from storage.
    expect((await pageFetch(tab, '/api/v2/storefront/account')).status).toBe(200);
    await expect.poll(() => startsSince(storefront, mark), `the worker started again (${session.workerStop})`).toBeGreaterThanOrEqual(1);
    expect(lastBearer(storefront, 'GET', '/api/v2/storefront/account')).toBe(bearer);
    const cart = await pageFetch(tab, '/api/v2/storefront/cart');
    expect(JSON.parse(cart.body).data.attributes.number).toBe(state.cart?.number);

    // And a page opened afterwards sees the same state.
    const later = await shop.open(WITNESSED);
    expect(await getState(later)).toEqual(state);
  }),
);
