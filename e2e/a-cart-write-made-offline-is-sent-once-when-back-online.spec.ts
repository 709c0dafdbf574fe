/**
 * A guest adds to the cart on a train: the network is gone, the worker queues the write and
 * answers 202, every tab is told, and once the network returns the write reaches the server once,
 * with the cart's order-token header, and every tab hears it applied.
 */
import type { Page } from '@playwright/test';
import { expect, openShop, realCartToken, recordedEvents, requestsTo, test } from './support.js';

const ADD_ITEM = '/api/v2/storefront/cart/add_item';

test('a write made offline is answered 202, told to both tabs, and sent once with the order token when back online', async ({ context, storefront }) => {
  const first = await openShop(context, storefront, { offlineWrites: '' });
  const second = await openShop(context, storefront, { offlineWrites: '' });
  const { cart } = await first.evaluate(() => window.storefrontAuth.createCart());
  const token = realCartToken(storefront, cart?.number);

  await context.setOffline(true);
  const answer = await first.evaluate(async (path) => {
    const response = await fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/vnd.api+json' }, body: JSON.stringify({ variant_id: '2', quantity: 3 }) });
    return { status: response.status, type: response.headers.get('Content-Type'), queued: response.headers.get('Storefront-Auth-Queued'), body: await response.json() };
  }, ADD_ITEM);
  expect(answer).toEqual({ status: 202, type: 'application/json', queued: expect.any(String), body: { queued: true, id: answer.queued } });
  const { id } = answer.body as { id: string };
  for (const page of [first, second]) {
    await expect.poll(() => details(page, 'writequeued')).toEqual([{ id, method: 'POST', path: ADD_ITEM }]);
    expect(await page.evaluate(() => window.storefrontAuth.getState())).toMatchObject({ pendingWrites: 1 });
  }
  expect(requestsTo(storefront, 'POST', ADD_ITEM), 'nothing left while offline').toEqual([]);

  await context.setOffline(false);
  for (const page of [first, second]) {
    await expect.poll(() => details(page, 'writesettled')).toEqual([{ id, outcome: 'applied', status: 200 }]);
    expect(await page.evaluate(() => window.storefrontAuth.getState())).toMatchObject({ pendingWrites: 0, cart });
  }
  const sent = requestsTo(storefront, 'POST', ADD_ITEM);
  expect(sent, 'sent once').toHaveLength(1);
  expect(sent[0]?.headers.orderToken).toBe(token);
  expect(sent[0]?.headers.authorization).toBeUndefined();
  expect(JSON.parse(sent[0]?.body ?? '')).toEqual({ variant_id: '2', quantity: 3 });
  const stored = [...storefront.carts.values()].find((candidate) => candidate.number === cart?.number) as unknown as { lineItems: Array<{ variantId: string; quantity: number }> };
  expect(stored.lineItems.map(({ variantId, quantity }) => ({ variantId, quantity }))).toEqual([{ variantId: '2', quantity: 3 }]);
  // Each change of the count was a change event, in both tabs: 1 when queued, 0 when applied.
  for (const page of [first, second]) {
    const counts = (await details(page, 'change')).map((detail) => (detail as { pendingWrites: number }).pendingWrites);
    expect(counts.slice(-2)).toEqual([1, 0]);
  }
  // No event or state holds the token.
  for (const page of [first, second]) expect(JSON.stringify(await recordedEvents(page))).not.toContain(token);
});

/** The details of the page's events of `type`, in order. */
async function details(page: Page, type: string): Promise<unknown[]> {
  return (await recordedEvents(page)).filter((event) => event.type === type).map((event) => event.detail);
}
