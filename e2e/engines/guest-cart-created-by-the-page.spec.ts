import { realCartToken, requestsTo } from '../support.js';
import { expect, inEveryEngine, test } from './fixtures.js';
import { getState, pageFetch, recordedEvents } from './shop.js';

inEveryEngine(() =>
  test('the worker keeps the cart token when the page creates the cart with its own fetch', async ({ shop, storefront }) => {
    const tab = await shop.open();

    const created = await pageFetch(tab, '/api/v2/storefront/cart', { method: 'POST', headers: { 'Content-Type': 'application/vnd.api+json' } });
    expect(created.status).toBe(201);
    const { number, token: sealed } = JSON.parse(created.body).data.attributes as { number: string; token: string };
    expect(sealed, 'the page reads a placeholder').toBe('sealed:cart');
    const token = realCartToken(storefront, number);

    const guestWithCart = { signedIn: false, accessTokenExpiresAt: null, cart: { number }, pendingWrites: 0 };
    expect(await getState(tab)).toEqual(guestWithCart);
    await expect.poll(() => recordedEvents(tab)).toEqual([{ type: 'change', detail: guestWithCart }]);

    const body = JSON.stringify({ variant_id: '1', quantity: 2 });
    const item = await pageFetch(tab, '/api/v2/storefront/cart/add_item', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
    expect(item.status).toBe(200);
    const added = requestsTo(storefront, 'POST', '/api/v2/storefront/cart/add_item').at(-1);
    expect(added?.headers.orderToken).toBe(token);
    expect(added?.body).toBe(body);
  }),
);
