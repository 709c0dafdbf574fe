import { lastBearer } from '../support.js';
import { expect, inEveryEngine, test } from './fixtures.js';
import { addDropIn, createCart, getState, login, pageFetch } from './shop.js';

inEveryEngine(() =>
  test('a reload keeps the cart and the sign-in', async ({ shop, storefront }) => {
    const tab = await shop.open();
    await createCart(tab);
    const state = await login(tab, storefront.user);
    await pageFetch(tab, '/api/v2/storefront/account');
    const bearer = lastBearer(storefront, 'GET', '/api/v2/storefront/account');
    expect(bearer).toBeDefined();

    await tab.reload();
    await addDropIn(tab);

    expect(await getState(tab)).toEqual(state);
    expect((await pageFetch(tab, '/api/v2/storefront/account')).status).toBe(200);
    expect(lastBearer(storefront, 'GET', '/api/v2/storefront/account')).toBe(bearer);
    const cart = await pageFetch(tab, '/api/v2/storefront/cart');
    expect(cart.status).toBe(200);
    expect(JSON.parse(cart.body).data.attributes.number).toBe(state.cart?.number);
    expect(lastBearer(storefront, 'GET', '/api/v2/storefront/cart')).toBe(bearer);
  }),
);
