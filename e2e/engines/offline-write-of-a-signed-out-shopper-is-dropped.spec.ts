/**
 * Offline cart writes never go out as someone else, in every engine: a signed-in shopper's write
 * waits in the queue (its answer was lost), the shopper signs out in the other tab and another
 * shopper signs in. The write is dropped unsent, told in both tabs, and its back-off ends with
 * nothing sent.
 */
import { requestsTo } from '../support.js';
import { sleep } from './driver.js';
import { expect, inEveryEngine, test } from './fixtures.js';
import { createCart, login, logout, recordedEvents } from './shop.js';

const SET_QUANTITY = '/api/v2/storefront/cart/set_quantity';
const ADD_ITEM = '/api/v2/storefront/cart/add_item';

test.use({ storefrontOptions: { keepAlive: false } });

inEveryEngine(() =>
  test('a signed-in shopper’s queued write is dropped at logout and never sent under the next shopper', async ({ shop, storefront }) => {
    const first = await shop.open({ offlineWrites: '' });
    const second = await shop.open({ offlineWrites: '' });
    await createCart(first);
    const { cart } = await login(first, storefront.user);
    const add = await first.evaluate((path) => fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/vnd.api+json' }, body: '{"variant_id":"1","quantity":1}' }).then((response) => response.status), ADD_ITEM);
    expect(add).toBe(200);
    const held = [...(storefront.carts as unknown as ReadonlyMap<string, { number: string; lineItems: Array<{ id: string; quantity: number }> }>).values()].find((candidate) => candidate.number === cart?.number);

    storefront.override('PATCH', SET_QUANTITY, { drop: true });
    const queued = await first.evaluate(
      ({ path, lineItem }) =>
        fetch(path, { method: 'PATCH', headers: { 'Content-Type': 'application/vnd.api+json' }, body: JSON.stringify({ line_item_id: lineItem, quantity: 9 }) }).then((response) => ({
          status: response.status,
          id: response.headers.get('Storefront-Auth-Queued'),
        })),
      { path: SET_QUANTITY, lineItem: held?.lineItems[0]?.id },
    );
    expect(queued.status).toBe(202);

    expect(await logout(second)).toEqual({ signedIn: false, accessTokenExpiresAt: null, cart: null, pendingWrites: 0 });
    for (const tab of [first, second]) {
      await expect.poll(async () => (await recordedEvents(tab)).filter((event) => event.type === 'writesettled').map((event) => event.detail)).toEqual([{ id: queued.id, outcome: 'dropped' }]);
    }
    await login(second, { username: 'shopper2@example.com', password: 'secret456' });
    await createCart(second);
    // Past the write's 5 s back-off, and a storefront request to wake any replay: nothing goes.
    await sleep(5_500);
    await second.evaluate(() => fetch('/api/v2/storefront/cart').then((response) => response.status));
    expect(requestsTo(storefront, 'PATCH', SET_QUANTITY).map((request) => request.dropped === true), 'only the lost first attempt').toEqual([true]);
    expect(held?.lineItems.map((line) => line.quantity)).toEqual([1]);
  }),
);
