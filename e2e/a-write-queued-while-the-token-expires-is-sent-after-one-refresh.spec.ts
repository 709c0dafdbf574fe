/**
 * Signed in, a shopper adds to the cart offline, and the access token expires before the network
 * returns. The replay goes as a page request would then: the worker refreshes once, and the write
 * carries the new bearer, never the stored one.
 */
import { ADD_ITEM, BACK_ONLINE, addItem, cartLines, eventDetails, queuedId } from './offlineWrites.js';
import { expect, lastIssuedAccessToken, login, openShop, requestsTo, test, waitForExpiry } from './support.js';

test.use({ storefrontOptions: { accessTokenLifetime: 3, rotation: 'strict' } });

test('after the access token expired offline, the replay refreshes once and carries the new bearer', async ({ context, storefront }) => {
  const page = await openShop(context, storefront, { offlineWrites: 'true' });
  await page.evaluate(() => window.storefrontAuth.createCart());
  const signedIn = await login(page, storefront.user);
  const expired = lastIssuedAccessToken(storefront);

  await context.setOffline(true);
  const id = queuedId(await addItem(page, '3'));
  await waitForExpiry(page, 300);
  storefront.clearLog();

  await context.setOffline(false);
  await expect.poll(() => eventDetails(page, 'writesettled'), BACK_ONLINE).toEqual([{ id, outcome: 'applied', status: 200 }]);
  expect(storefront.stats()).toMatchObject({ refreshGrants: 1, refreshSuccesses: 1, invalidGrants: 0 });
  const fresh = lastIssuedAccessToken(storefront);
  expect(fresh).not.toBe(expired);
  const sent = requestsTo(storefront, 'POST', ADD_ITEM);
  expect(sent.map((request) => request.headers.authorization)).toEqual([`Bearer ${fresh}`]);
  expect(storefront.requests.findIndex((request) => request.path === '/store_oauth/token')).toBeLessThan(storefront.requests.indexOf(sent[0]!));
  expect(cartLines(storefront, signedIn.cart?.number)).toEqual(['3 × 1']);
});
