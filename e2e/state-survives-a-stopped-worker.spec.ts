import { realCartToken, expect, openShop, pageFetch, requestsTo, stopServiceWorkers, test } from './support.js';

test('the cart survives the browser stopping the worker', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  const state = await page.evaluate(() => window.storefrontAuth.createCart());
  const cart = await pageFetch(page, '/api/v2/storefront/cart');
  const token = realCartToken(storefront, JSON.parse(cart.body).data.attributes.number as string);

  await stopServiceWorkers(page);

  // The next fetch starts a fresh worker, which must read the token back from IndexedDB.
  expect((await pageFetch(page, '/api/v2/storefront/cart')).status).toBe(200);
  expect(requestsTo(storefront, 'GET', '/api/v2/storefront/cart').at(-1)?.headers.orderToken).toBe(token);
  expect(await page.evaluate(() => window.storefrontAuth.getState())).toEqual(state);

  // And a page opened after the restart sees the same state.
  await stopServiceWorkers(page);
  const later = await context.newPage();
  await later.goto(`${storefront.url}/site/blank.html`);
  expect((await pageFetch(later, '/api/v2/storefront/checkout')).status).toBe(200);
  expect(requestsTo(storefront, 'GET', '/api/v2/storefront/checkout').at(-1)?.headers.orderToken).toBe(token);
});
