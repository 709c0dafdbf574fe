import { realCartToken, requestsTo } from '../support.js';
import { expect, inEveryEngine, test } from './fixtures.js';
import { getState, pageFetch, recordedEvents } from './shop.js';

inEveryEngine(() =>
  test('a guest creates a cart through the bridge and the worker sends its token on cart and checkout calls', async ({ shop, storefront }) => {
    const tab = await shop.open();

    const { state, eventsAtResolve } = await tab.evaluate(async () => {
      const state = await window.storefrontAuth.createCart();
      return { state, eventsAtResolve: (window as unknown as { events: unknown[] }).events.length };
    });
    expect(state).toEqual({ signedIn: false, accessTokenExpiresAt: null, cart: { number: expect.stringMatching(/^R\d+/) }, pendingWrites: 0 });
    expect(eventsAtResolve, 'the change event comes before the method resolves').toBe(1);

    const [creation] = requestsTo(storefront, 'POST', '/api/v2/storefront/cart');
    expect(creation?.search).toContain('fields%5Bcart%5D=number%2Ctoken');
    expect(creation?.headers.orderToken).toBeUndefined();
    expect(creation?.headers.authorization).toBeUndefined();

    const token = realCartToken(storefront, state.cart?.number);
    const cart = await pageFetch(tab, '/api/v2/storefront/cart');
    expect(cart.status).toBe(200);
    expect(JSON.parse(cart.body).data.attributes.number).toBe(state.cart?.number);
    expect(requestsTo(storefront, 'GET', '/api/v2/storefront/cart').at(-1)?.headers.orderToken).toBe(token);
    expect((await pageFetch(tab, '/api/v2/storefront/checkout')).status).toBe(200);
    expect(requestsTo(storefront, 'GET', '/api/v2/storefront/checkout').at(-1)?.headers.orderToken).toBe(token);
    expect((await pageFetch(tab, '/api/v2/storefront/products')).status).toBe(200);
    expect(requestsTo(storefront, 'GET', '/api/v2/storefront/products').at(-1)?.headers.orderToken, 'nothing on public calls').toBeUndefined();

    expect(JSON.stringify(await getState(tab))).not.toContain(token);
    expect(JSON.stringify(await recordedEvents(tab))).not.toContain(token);
  }),
);
