/**
 * Queued writes wait on disk: the shopper closes all but one tab and the browser stops the idle
 * worker before the network returns. The next worker finds them and sends each once, in order.
 */
import { ADD_ITEM, BACK_ONLINE, addItem, cartLines, eventDetails, queuedId } from './offlineWrites.js';
import { expect, openShop, requestsTo, stopServiceWorkers, test } from './support.js';

test('writes queued in two tabs survive the other tab closing and the worker stopping, and are sent once each', async ({ context, storefront }) => {
  const kept = await openShop(context, storefront, { offlineWrites: '' });
  const closed = await openShop(context, storefront, { offlineWrites: '' });
  const { cart } = await kept.evaluate(() => window.storefrontAuth.createCart());

  await context.setOffline(true);
  const first = queuedId(await addItem(closed, '1'));
  const second = queuedId(await addItem(kept, '2', 2));
  await closed.close();
  await stopServiceWorkers(kept);
  await expect.poll(() => kept.evaluate(() => window.storefrontAuth.getState())).toMatchObject({ pendingWrites: 2 });

  await context.setOffline(false);
  await expect.poll(() => eventDetails(kept, 'writesettled'), BACK_ONLINE).toEqual([
    { id: first, outcome: 'applied', status: 200 },
    { id: second, outcome: 'applied', status: 200 },
  ]);
  expect(requestsTo(storefront, 'POST', ADD_ITEM).map((request) => JSON.parse(request.body ?? '').variant_id)).toEqual(['1', '2']);
  expect(cartLines(storefront, cart?.number)).toEqual(['1 × 1', '2 × 2']);
});
