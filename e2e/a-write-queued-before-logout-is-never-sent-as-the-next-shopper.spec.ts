/**
 * A shopper adds to the cart offline, then signs out on the shop's shared tablet, and another shopper
 * signs in once the network returns. The first shopper's write is dropped unsent, with its
 * `writesettled`: it is never sent under the next shopper's bearer, nor as a guest.
 */
import { ADD_ITEM, addItem, eventDetails, queuedId } from './offlineWrites.js';
import { expect, login, openShop, requestsTo, test } from './support.js';

const OTHER_SHOPPER = { username: 'shopper2@example.com', password: 'secret456' };

test('a write queued before a logout is dropped unsent, and never reaches the server under the next shopper', async ({ context, storefront }) => {
  const page = await openShop(context, storefront, { offlineWrites: '' });
  const other = await openShop(context, storefront, { offlineWrites: '' });
  await page.evaluate(() => window.storefrontAuth.createCart());
  await login(page, storefront.user);

  await context.setOffline(true);
  const id = queuedId(await addItem(page, '1'));
  const out = await page.evaluate(() => window.storefrontAuth.logout());
  expect(out).toEqual({ signedIn: false, accessTokenExpiresAt: null, cart: null, pendingWrites: 0 });
  for (const tab of [page, other]) await expect.poll(() => eventDetails(tab, 'writesettled')).toEqual([{ id, outcome: 'dropped' }]);

  await context.setOffline(false);
  await login(other, OTHER_SHOPPER);
  await other.evaluate(() => window.storefrontAuth.createCart());
  // The replay triggers all come and go: the network's return, bridge messages, a storefront request.
  expect((await other.evaluate(() => fetch('/api/v2/storefront/cart').then((response) => response.status)))).toBe(200);
  await other.waitForTimeout(500);
  expect(requestsTo(storefront, 'POST', ADD_ITEM), 'the dropped write was never sent').toEqual([]);
  expect(await eventDetails(other, 'writesettled')).toEqual([{ id, outcome: 'dropped' }]);
});
