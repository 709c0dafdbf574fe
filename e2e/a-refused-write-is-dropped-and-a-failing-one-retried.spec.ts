/**
 * Two writes wait for the network. When it returns, the server refuses the first (422): it is
 * rejected and never sent again. It is down for the second (503): that one is kept, retried after
 * its 5 s back-off, and applied.
 */
import { ADD_ITEM, BACK_ONLINE, addItem, cartLines, eventDetails, queuedId } from './offlineWrites.js';
import { expect, openShop, requestsTo, test } from './support.js';

test('a 422 is rejected and not retried; a 503 is retried after its back-off and applied', async ({ context, storefront }) => {
  const page = await openShop(context, storefront, { offlineWrites: '' });
  const { cart } = await page.evaluate(() => window.storefrontAuth.createCart());

  await context.setOffline(true);
  const refused = queuedId(await addItem(page, '1'));
  const retried = queuedId(await addItem(page, '2'));
  storefront.override('POST', ADD_ITEM, { status: 422, body: { error: 'Quantity must be greater than 0', errors: { quantity: ['must be greater than 0'] } } });
  storefront.override('POST', ADD_ITEM, { status: 503, body: { error: 'Service Unavailable' } });
  await context.setOffline(false);

  await expect.poll(() => eventDetails(page, 'writesettled'), BACK_ONLINE).toEqual([{ id: refused, outcome: 'rejected', status: 422 }]);
  await expect.poll(() => requestsTo(storefront, 'POST', ADD_ITEM).map((request) => request.status)).toEqual([422, 503]);
  expect(await page.evaluate(() => window.storefrontAuth.getState())).toMatchObject({ pendingWrites: 1 });
  const failedAt = Date.now();
  await expect.poll(() => eventDetails(page, 'writesettled'), { timeout: 15_000 }).toEqual([
    { id: refused, outcome: 'rejected', status: 422 },
    { id: retried, outcome: 'applied', status: 200 },
  ]);
  const sent = requestsTo(storefront, 'POST', ADD_ITEM);
  expect(sent.map((request) => [JSON.parse(request.body ?? '').variant_id, request.status])).toEqual([
    ['1', 422],
    ['2', 503],
    ['2', 200],
  ]);
  expect(sent[2]!.at - failedAt, 'retried after its back-off').toBeGreaterThan(3_500);
  expect(cartLines(storefront, cart?.number)).toEqual(['2 × 1']);
});
