import { realCartToken, expect, lastBearer, login, openShop, pageFetch, requestsTo, stopServiceWorkers, test, waitForExpiry } from './support.js';

// Strict rotation: a refresh token spent twice revokes the whole family, so a worker restarted
// from a stale pair would sign the shopper out. Each case stops the worker at one point and checks
// that what the worker had already received is still used, and that nothing is refreshed twice.
test.use({ storefrontOptions: { rotation: 'strict', accessTokenLifetime: 3 } });

const ACCOUNT = '/api/v2/storefront/account';

test('stopped before a due refresh: the restarted worker refreshes once from the stored pair', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  await login(page, storefront.user);
  await waitForExpiry(page);

  await stopServiceWorkers(page);

  expect((await pageFetch(page, ACCOUNT)).status).toBe(200);
  expect(storefront.stats()).toMatchObject({ refreshGrants: 1, invalidGrants: 0 });
  expect((await page.evaluate(() => window.storefrontAuth.getState())).signedIn).toBe(true);
});

test('stopped right after a refresh: the restarted worker uses the rotated pair and does not refresh again', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  await login(page, storefront.user);
  await waitForExpiry(page);
  expect((await pageFetch(page, ACCOUNT)).status).toBe(200);
  expect(storefront.stats().refreshGrants).toBe(1);
  const rotated = lastBearer(storefront, 'GET', ACCOUNT);

  await stopServiceWorkers(page);

  expect((await pageFetch(page, ACCOUNT)).status).toBe(200);
  expect(lastBearer(storefront, 'GET', ACCOUNT)).toBe(rotated);
  // A second, later expiry is refreshed with the rotated refresh token: the old one would be a reuse.
  await waitForExpiry(page);
  await stopServiceWorkers(page);
  expect((await pageFetch(page, ACCOUNT)).status).toBe(200);
  expect(storefront.stats()).toMatchObject({ refreshGrants: 2, invalidGrants: 0 });
});

test('stopped during a cart creation: the shopper keeps the cart the page received, or the state as it was', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  expect((await page.evaluate(() => window.storefrontAuth.getState())).cart).toBeNull();
  const CART = '/api/v2/storefront/cart';

  // The page's own cart creation, with the worker stopped while the server is answering. Chromium
  // dispatches the fetch again to a fresh worker, so the page does receive a cart: the worker must
  // hold that very cart, not the orphan the first dispatch created.
  storefront.override('POST', CART, { delayMs: 1_500, passThrough: true });
  const created = page.evaluate(() => fetch('/api/v2/storefront/cart', { method: 'POST' }).then(async (response) => ({ status: response.status, body: await response.text() })));
  await expect.poll(() => requestsTo(storefront, 'POST', CART).length).toBe(1);
  await stopServiceWorkers(page);
  const received = await created;
  expect(received.status).toBe(201);
  const { number } = JSON.parse(received.body).data.attributes as { number: string };
  const cart = { number, token: realCartToken(storefront, number) };
  const held = await page.evaluate(() => window.storefrontAuth.getState());
  expect(held.cart).toEqual({ number: cart.number });
  expect((await pageFetch(page, CART)).status).toBe(200);
  expect(requestsTo(storefront, 'GET', CART).at(-1)?.headers.orderToken).toBe(cart.token);

  // The bridge's cart creation, stopped the same way: a message is not dispatched again, so the
  // page hears nothing and times out, and the cart it already had stays.
  storefront.override('POST', CART, { delayMs: 1_500, passThrough: true });
  const bridged = page.evaluate(() => window.storefrontAuth.createCart().then(() => 'resolved', (error: { code: string }) => error.code));
  await expect.poll(() => requestsTo(storefront, 'POST', CART).length).toBe(3);
  await stopServiceWorkers(page);
  expect(await bridged).toBe('timeout');
  expect(await page.evaluate(() => window.storefrontAuth.getState())).toEqual(held);
  expect((await pageFetch(page, CART)).status).toBe(200);
  expect(requestsTo(storefront, 'GET', CART).at(-1)?.headers.orderToken).toBe(cart.token);

  // Trying again works.
  const again = await page.evaluate(() => window.storefrontAuth.createCart());
  expect(again.cart?.number).not.toBe(cart.number);
  expect((await pageFetch(page, CART)).status).toBe(200);
});
