import { expect, lastBearer, login, openShop, pageFetch, recordedEvents, requestsTo, test } from './support.js';

test('after login the worker puts the bearer on account, cart and checkout calls, and never shows it', async ({ context, storefront }) => {
  const page = await openShop(context, storefront);
  const before = Date.now();
  const state = await login(page, storefront.user);
  expect(state.signedIn).toBe(true);
  // expires_in is in seconds: the expiry is the arrival time plus 7200 s.
  expect(state.accessTokenExpiresAt).toBeGreaterThanOrEqual(before + 7_200_000 - 1_000);
  expect(state.accessTokenExpiresAt).toBeLessThanOrEqual(Date.now() + 7_200_000 + 1_000);

  const [grant] = requestsTo(storefront, 'POST', '/store_oauth/token');
  expect(grant?.headers.contentType).toContain('application/x-www-form-urlencoded');
  expect(Object.fromEntries(new URLSearchParams(grant?.body))).toEqual({ grant_type: 'password', username: storefront.user.username, password: storefront.user.password });

  expect((await pageFetch(page, '/api/v2/storefront/account')).status).toBe(200);
  const bearer = lastBearer(storefront, 'GET', '/api/v2/storefront/account');
  expect(bearer).toMatch(/^Bearer \S+$/);

  const cart = await page.evaluate(() => window.storefrontAuth.createCart());
  expect(cart.cart).not.toBeNull();
  expect(lastBearer(storefront, 'POST', '/api/v2/storefront/cart')).toBe(bearer);
  expect((await pageFetch(page, '/api/v2/storefront/cart')).status).toBe(200);
  expect(lastBearer(storefront, 'GET', '/api/v2/storefront/cart')).toBe(bearer);
  expect((await pageFetch(page, '/api/v2/storefront/checkout')).status).toBe(200);
  expect(lastBearer(storefront, 'GET', '/api/v2/storefront/checkout')).toBe(bearer);
  await pageFetch(page, '/api/v2/storefront/products');
  expect(lastBearer(storefront, 'GET', '/api/v2/storefront/products')).toBeUndefined();

  // The page's own Authorization header wins.
  await pageFetch(page, '/api/v2/storefront/account', { headers: { Authorization: 'Bearer page-own' } });
  expect(lastBearer(storefront, 'GET', '/api/v2/storefront/account')).toBe('Bearer page-own');

  // No token in the state or any event the page saw.
  const token = bearer?.slice('Bearer '.length) ?? '';
  expect(JSON.stringify(await page.evaluate(() => window.storefrontAuth.getState()))).not.toContain(token);
  expect(JSON.stringify(await recordedEvents(page))).not.toContain(token);
});
