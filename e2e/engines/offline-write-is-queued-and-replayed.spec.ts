/**
 * Offline cart writes in an engine without Background Sync (Firefox, WebKit) as in Chromium: a cart
 * write whose answer never comes is queued and answered 202 in the page, told to both tabs; a write
 * made while it waits is queued behind it, unsent; once its back-off has ended, the next storefront
 * request sends both, in order, each once, with the cart's order-token header. Offline emulation
 * is Chromium's alone, so the server drops the answer instead (a network error while the browser
 * reports itself online, which counts: the 5 s back-off). The worker's own timer may send them
 * sooner, where the worker still runs then (the suite has Firefox stop idle workers after 2 s).
 */
import { requestsTo } from '../support.js';
import { expect, inEveryEngine, test } from './fixtures.js';
import { createCart, pageFetch, recordedEvents } from './shop.js';
import { sleep, type Tab } from './driver.js';

const ADD_ITEM = '/api/v2/storefront/cart/add_item';
const SET_QUANTITY = '/api/v2/storefront/cart/set_quantity';

// A fresh connection per request: a browser sends a request again by itself when a reused
// connection closes before any answer.
test.use({ storefrontOptions: { keepAlive: false } });

/** A cart write from the tab: its status and queue id, or 0 for a network error. */
function write(tab: Tab, path: string, method: string, body: unknown): Promise<{ status: number; queued: string | null }> {
  return tab.evaluate(
    ({ path, method, body }) =>
      fetch(path, { method, headers: { 'Content-Type': 'application/vnd.api+json' }, body: JSON.stringify(body) }).then(
        (response) => ({ status: response.status, queued: response.headers.get('Storefront-Auth-Queued') }),
        () => ({ status: 0, queued: null }),
      ),
    { path, method, body },
  );
}

async function details(tab: Tab, type: string): Promise<unknown[]> {
  return (await recordedEvents(tab)).filter((event) => event.type === type).map((event) => event.detail);
}

inEveryEngine(() =>
  test('a cart write whose answer is lost is queued, told to both tabs, and replayed once after its back-off, with the writes behind it in order', async ({ shop, storefront }) => {
    const first = await shop.open({ offlineWrites: '' });
    const second = await shop.open({ offlineWrites: '' });
    const { cart } = await createCart(first);
    expect((await write(first, ADD_ITEM, 'POST', { variant_id: '1', quantity: 1 })).status).toBe(200);
    const held = [...(storefront.carts as unknown as ReadonlyMap<string, { number: string; token: string; lineItems: Array<{ id: string; variantId: string; quantity: number }> }>).values()].find((candidate) => candidate.number === cart?.number);
    const lineItem = held?.lineItems[0]?.id;

    storefront.override('PATCH', SET_QUANTITY, { drop: true });
    const set = await write(first, SET_QUANTITY, 'PATCH', { line_item_id: lineItem, quantity: 4 });
    expect(set.status).toBe(202);
    const behind = await write(second, ADD_ITEM, 'POST', { variant_id: '2', quantity: 1 });
    expect(behind.status, 'queued behind the first, unsent').toBe(202);
    for (const tab of [first, second]) {
      await expect.poll(() => details(tab, 'writequeued')).toEqual([
        { id: set.queued, method: 'PATCH', path: SET_QUANTITY },
        { id: behind.queued, method: 'POST', path: ADD_ITEM },
      ]);
    }
    expect(requestsTo(storefront, 'POST', ADD_ITEM), 'the write behind never left').toHaveLength(1);

    await sleep(5_500);
    expect((await pageFetch(second, '/api/v2/storefront/cart')).status).toBe(200);
    for (const tab of [first, second]) {
      await expect.poll(() => details(tab, 'writesettled')).toEqual([
        { id: set.queued, outcome: 'applied', status: 200 },
        { id: behind.queued, outcome: 'applied', status: 200 },
      ]);
    }
    const sets = requestsTo(storefront, 'PATCH', SET_QUANTITY);
    expect(sets.map((request) => request.dropped === true)).toEqual([true, false]);
    expect(sets[1]?.headers.orderToken).toBe(held?.token);
    expect(requestsTo(storefront, 'POST', ADD_ITEM).map((request) => request.headers.orderToken)).toEqual([held?.token, held?.token]);
    expect(storefront.requests.indexOf(sets[1]!)).toBeLessThan(storefront.requests.indexOf(requestsTo(storefront, 'POST', ADD_ITEM)[1]!));
    expect(held?.lineItems.map((line) => `${line.variantId} × ${line.quantity}`)).toEqual(['1 × 4', '2 × 1']);
    expect(JSON.stringify(await recordedEvents(first))).not.toContain(held?.token ?? 'no token');
  }),
);
