/**
 * A page that does not ask for offline writes (no option, or `data-offline-writes="false"`) gets the
 * network error it always got, and no write is kept: it would show an error and let the shopper add
 * the item again, so a queued copy would be applied twice.
 */
import { ADD_ITEM, addItem, eventDetails } from './offlineWrites.js';
import { expect, openShop, requestsTo, test } from './support.js';

for (const [what, attributes] of [
  ['without the option', {}],
  ['with data-offline-writes="false"', { offlineWrites: 'false' }],
] as const) {
  test(`${what}, a write made offline fails as it always did and is never sent later`, async ({ context, storefront }) => {
    const page = await openShop(context, storefront, attributes);
    await page.evaluate(() => window.storefrontAuth.createCart());
    const script = await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL ?? '');
    expect(new URL(script).searchParams.has('offline')).toBe(false);

    await context.setOffline(true);
    expect(await addItem(page, '1')).toBe('network error');
    await context.setOffline(false);
    expect((await page.evaluate(() => fetch('/api/v2/storefront/cart').then((response) => response.status)))).toBe(200);
    expect(await page.evaluate(() => window.storefrontAuth.getState())).toMatchObject({ pendingWrites: 0 });
    expect(await eventDetails(page, 'writequeued')).toEqual([]);
    expect(requestsTo(storefront, 'POST', ADD_ITEM)).toEqual([]);
  });
}
