/**
 * Three tabs of the shop add to one cart while offline, interleaved. Back online, every tab's bridge
 * reports it and Background Sync fires too, but one replayer at a time sends the writes: each once,
 * in the order they were made.
 */
import { ADD_ITEM, BACK_ONLINE, addItem, cartLines, eventDetails, queuedId } from './offlineWrites.js';
import { expect, openShop, requestsTo, test } from './support.js';

test('five writes made offline in three tabs are each applied once, in the order they were made', async ({ context, storefront }) => {
  const tabs = [];
  for (let n = 0; n < 3; n++) tabs.push(await openShop(context, storefront, { offlineWrites: '' }));
  const { cart } = await tabs[0]!.evaluate(() => window.storefrontAuth.createCart());

  await context.setOffline(true);
  const ids: string[] = [];
  for (const [tab, variant] of [[0, '1'], [1, '2'], [2, '3'], [0, '4'], [1, '1']] as const) ids.push(queuedId(await addItem(tabs[tab]!, variant)));
  await context.setOffline(false);

  for (const tab of tabs) {
    await expect.poll(() => eventDetails(tab, 'writesettled'), BACK_ONLINE).toEqual(ids.map((id) => ({ id, outcome: 'applied', status: 200 })));
  }
  expect(requestsTo(storefront, 'POST', ADD_ITEM).map((request) => JSON.parse(request.body ?? '').variant_id)).toEqual(['1', '2', '3', '4', '1']);
  expect(cartLines(storefront, cart?.number)).toEqual(['1 × 2', '2 × 1', '3 × 1', '4 × 1']);
  for (const tab of tabs) expect(await tab.evaluate(() => window.storefrontAuth.getState())).toMatchObject({ pendingWrites: 0 });
});
