/**
 * A guest adds to the cart offline; back online, the shop is down for a moment (503), and meanwhile
 * the guest signs in, taking the cart along. The retry goes as the signed-in shopper's request: the
 * bearer, after the cart's assignment to the shopper, and the item lands in that cart.
 */
import { ADD_ITEM, BACK_ONLINE, addItem, cartLines, eventDetails, queuedId } from './offlineWrites.js';
import { expect, lastIssuedAccessToken, login, openShop, realCartToken, requestsTo, test } from './support.js';

test('a guest’s queued write whose cart the shopper takes into a sign-in is replayed with the bearer', async ({ context, storefront }) => {
  const page = await openShop(context, storefront, { offlineWrites: '' });
  const { cart } = await page.evaluate(() => window.storefrontAuth.createCart());
  const token = realCartToken(storefront, cart?.number);

  await context.setOffline(true);
  const id = queuedId(await addItem(page, '4', 2));
  storefront.override('POST', ADD_ITEM, { status: 503, body: { error: 'Service Unavailable' } });
  await context.setOffline(false);
  await expect.poll(() => requestsTo(storefront, 'POST', ADD_ITEM).map((request) => request.status), BACK_ONLINE).toEqual([503]);
  expect(requestsTo(storefront, 'POST', ADD_ITEM)[0]?.headers.orderToken, 'first tried as the guest it was').toBe(token);

  const signedIn = await login(page, storefront.user);
  expect(signedIn).toMatchObject({ signedIn: true, cart, pendingWrites: 1 });
  // Retried when its 5 s back-off ends.
  await expect.poll(() => eventDetails(page, 'writesettled'), { timeout: 15_000 }).toEqual([{ id, outcome: 'applied', status: 200 }]);
  const [, retry, ...more] = requestsTo(storefront, 'POST', ADD_ITEM);
  expect(more).toEqual([]);
  expect(retry?.headers.authorization).toBe(`Bearer ${lastIssuedAccessToken(storefront)}`);
  const association = requestsTo(storefront, 'PATCH', '/api/v2/storefront/cart/associate')[0];
  expect(association?.status).toBe(200);
  expect(storefront.requests.indexOf(association!)).toBeLessThan(storefront.requests.indexOf(retry!));
  expect(cartLines(storefront, cart?.number)).toEqual(['4 × 2']);
});
