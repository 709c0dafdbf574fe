/**
 * Online, the connection drops after a write left. A v2 `add_item` may have been applied (Spree
 * keeps no idempotency keys, and a second one adds a second line): the page gets the network error,
 * as without the option. A `set_quantity` sets: it is queued, and its replay leaves the cart as one
 * application would.
 */
import { ADD_ITEM, addItem, cartLines, eventDetails, pageWrite, queuedId, SET_QUANTITY } from './offlineWrites.js';
import { expect, openShop, requestsTo, test } from './support.js';

// A fresh connection per request: Chromium sends a request again by itself when a reused connection
// closes before any answer, which would hide the dropped answer from the page (and apply add_item twice).
test.use({ storefrontOptions: { keepAlive: false } });

test('a v2 add_item whose answer is lost while online is not queued; a set_quantity is, and is applied once', async ({ context, storefront }) => {
  const page = await openShop(context, storefront, { offlineWrites: '' });
  const { cart } = await page.evaluate(() => window.storefrontAuth.createCart());
  expect(await addItem(page, '1')).toMatchObject({ status: 200 });
  const lineItem = [...(storefront.carts as unknown as ReadonlyMap<string, { number: string; lineItems: Array<{ id: string }> }>).values()].find((candidate) => candidate.number === cart?.number)?.lineItems[0]?.id;

  // The server applies the add, and the answer is lost on the way back.
  storefront.override('POST', ADD_ITEM, { drop: true, passThrough: true });
  expect(await addItem(page, '2')).toBe('network error');
  expect(await eventDetails(page, 'writequeued')).toEqual([]);
  expect(cartLines(storefront, cart?.number), 'applied once by the server, never again').toEqual(['1 × 1', '2 × 1']);

  storefront.override('PATCH', SET_QUANTITY, { drop: true, passThrough: true });
  const id = queuedId(await pageWrite(page, SET_QUANTITY, { line_item_id: lineItem, quantity: 5 }, 'PATCH'));
  await expect.poll(() => eventDetails(page, 'writequeued')).toEqual([{ id, method: 'PATCH', path: SET_QUANTITY }]);
  expect(await page.evaluate(() => window.storefrontAuth.getState())).toMatchObject({ pendingWrites: 1 });

  // No answer while the browser reported itself online: the replay waits its 5 s back-off.
  await expect.poll(() => eventDetails(page, 'writesettled'), { timeout: 15_000 }).toEqual([{ id, outcome: 'applied', status: 200 }]);
  expect(requestsTo(storefront, 'PATCH', SET_QUANTITY)).toHaveLength(2);
  expect(requestsTo(storefront, 'POST', ADD_ITEM)).toHaveLength(2);
  expect(cartLines(storefront, cart?.number)).toEqual(['1 × 5', '2 × 1']);
});
