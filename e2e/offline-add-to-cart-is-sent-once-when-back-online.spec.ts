/**
 * A guest adds to the cart on a train: the network is gone, the worker queues the write and answers
 * 202, every tab is told, and once the network returns the write reaches the server once, with the
 * cart's order-token header, and every tab hears it applied.
 */
import { ADD_ITEM, BACK_ONLINE, addItem, cartLines, eventDetails, queuedId } from './offlineWrites.js';
import { expect, openShop, realCartToken, recordedEvents, requestsTo, test } from './support.js';

test('a write made offline is answered 202, told to both tabs, and sent once with the order token when back online', async ({ context, storefront }) => {
  const first = await openShop(context, storefront, { offlineWrites: '' });
  const second = await openShop(context, storefront, { offlineWrites: '' });
  const { cart } = await first.evaluate(() => window.storefrontAuth.createCart());
  const token = realCartToken(storefront, cart?.number);
  // data-offline-writes (present, with any value but "false") puts offline=1 in the worker's URL.
  expect(new URL(await first.evaluate(() => navigator.serviceWorker.controller?.scriptURL ?? '')).searchParams.get('offline')).toBe('1');

  await context.setOffline(true);
  const answer = await addItem(first, '2', 3);
  const id = queuedId(answer);
  expect(answer).toEqual({ status: 202, queued: id, body: JSON.stringify({ queued: true, id }) });
  for (const page of [first, second]) {
    await expect.poll(() => eventDetails(page, 'writequeued')).toEqual([{ id, method: 'POST', path: ADD_ITEM }]);
    expect(await page.evaluate(() => window.storefrontAuth.getState())).toMatchObject({ pendingWrites: 1 });
  }
  expect(requestsTo(storefront, 'POST', ADD_ITEM), 'nothing left while offline').toEqual([]);

  await context.setOffline(false);
  for (const page of [first, second]) {
    await expect.poll(() => eventDetails(page, 'writesettled'), BACK_ONLINE).toEqual([{ id, outcome: 'applied', status: 200 }]);
    expect(await page.evaluate(() => window.storefrontAuth.getState())).toMatchObject({ pendingWrites: 0, cart });
  }
  const sent = requestsTo(storefront, 'POST', ADD_ITEM);
  expect(sent, 'sent once').toHaveLength(1);
  expect(sent[0]?.headers.orderToken).toBe(token);
  expect(sent[0]?.headers.authorization).toBeUndefined();
  expect(JSON.parse(sent[0]?.body ?? '')).toEqual({ variant_id: '2', quantity: 3 });
  expect(cartLines(storefront, cart?.number)).toEqual(['2 × 3']);
  // Each change of the count was a change event, in both tabs: 1 when queued, 0 when applied.
  for (const page of [first, second]) {
    const counts = (await eventDetails(page, 'change')).map((detail) => (detail as { pendingWrites: number }).pendingWrites);
    expect(counts.slice(-2)).toEqual([1, 0]);
    expect(JSON.stringify(await recordedEvents(page)), 'no event holds the token').not.toContain(token);
  }
});
