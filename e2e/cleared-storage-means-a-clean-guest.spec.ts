import { expect, login, openShop, pageFetch, test } from './support.js';

test('when the site data is cleared, the worker drops what it held and the shopper is a clean guest', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  await page.evaluate(() => window.storefrontAuth.createCart());
  await login(page, storefront.user);

  // What "clear site data" does to the database; the worker holds an open connection meanwhile.
  const deleted = await page.evaluate(
    () =>
      new Promise<string>((resolve) => {
        const request = indexedDB.deleteDatabase('storefront-auth');
        request.onsuccess = () => resolve('deleted');
        request.onerror = () => resolve('error');
        request.onblocked = () => resolve('blocked');
      }),
  );
  expect(deleted).toBe('deleted');

  expect(await page.evaluate(() => window.storefrontAuth.getState())).toEqual({ signedIn: false, accessTokenExpiresAt: null, cart: null, pendingWrites: 0 });
  expect((await pageFetch(page, '/api/v2/storefront/account')).status).toBe(403);
  expect(storefront.requests.at(-1)?.headers.authorization).toBeUndefined();
  expect((await pageFetch(page, '/api/v2/storefront/cart')).status).toBe(404);
  expect(storefront.requests.at(-1)?.headers.orderToken).toBeUndefined();

  // And it works as a guest again from there.
  const state = await page.evaluate(() => window.storefrontAuth.createCart());
  expect(state.cart).not.toBeNull();
  expect((await pageFetch(page, '/api/v2/storefront/cart')).status).toBe(200);
});
