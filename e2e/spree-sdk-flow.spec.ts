import type { Request } from '@playwright/test';
import { sdk } from './spreeSdk.js';
import { expect, lastBearer, lastIssuedAccessToken, openShop, realCartToken, requestsTo, test, type LoggedRequest } from './support.js';

test.use({ storefrontOptions: { flavour: 'spree' } });

const CART = '/api/v2/storefront/cart';
const ACCOUNT = '/api/v2/storefront/account';
const ASSOCIATE = '/api/v2/storefront/cart/associate';

test('a shop on the Spree SDK passes no token at all: the worker adds the headers and keeps the tokens', async ({ context, storefront }) => {
  // Every request of the page and of its service worker, as Chromium sent it.
  const sent: Request[] = [];
  context.on('request', (request) => sent.push(request));
  const page = await openShop(context, storefront, { preset: 'spree' }, '/site/spree.html');
  const state = () => page.evaluate(() => window.storefrontAuth.getState());
  const { username, password } = storefront.user;

  // 1. A guest cart: the request carries nothing, and the worker keeps the cart from the answer.
  const created = await sdk(page, 'cart', 'create');
  expect(created).toMatchObject({ ok: true, status: 201 });
  const { token: sealedCart, number: cartNumber } = (created as { data: { data: { attributes: { token: string; number: string } } } }).data.data.attributes;
  // Sealed tokens: the SDK holds a placeholder, the worker the real order token.
  expect(sealedCart).toBe('sealed:cart');
  const cartToken = realCartToken(storefront, cartNumber);
  expect((await state()).cart).toEqual({ number: cartNumber });
  const creations = requestsTo(storefront, 'POST', CART);
  expect(creations).toHaveLength(1);
  expect(creations[0]?.headers.authorization).toBeUndefined();
  expect(creations[0]?.headers.orderToken).toBeUndefined();

  // 2. Showing the cart with no token argument: the worker adds X-Spree-Order-Token.
  expect(await sdk(page, 'cart', 'show', {})).toMatchObject({ ok: true, status: 200, data: { data: { attributes: { number: cartNumber } } } });
  const shown = requestsTo(storefront, 'GET', CART).at(-1);
  expect(shown?.headers.orderToken).toBe(cartToken);
  expect(shown?.headers.authorization).toBeUndefined();

  // 3. The SDK's own password grant (a JSON body): the worker keeps the pair and assigns the guest cart.
  const granted = await sdk(page, 'authentication', 'getToken', { username, password });
  expect(granted).toMatchObject({ ok: true, status: 200, data: { token_type: 'Bearer' } });
  const sealedPair = (granted as { data: { access_token: string; refresh_token: string } }).data;
  expect(sealedPair).toMatchObject({ access_token: 'sealed:access', refresh_token: 'sealed:refresh' });
  const accessToken = lastIssuedAccessToken(storefront);
  const [grant, ...moreGrants] = requestsTo(storefront, 'POST', '/spree_oauth/token');
  expect(moreGrants).toHaveLength(0);
  expect(grant?.headers.contentType).toContain('application/json');
  expect(JSON.parse(grant?.body ?? '{}')).toMatchObject({ grant_type: 'password', username, password });
  expect(grant?.headers.authorization).toBeUndefined();
  await expect.poll(state).toMatchObject({ signedIn: true, cart: { number: cartNumber } });
  const associated = (): LoggedRequest[] => requestsTo(storefront, 'PATCH', ASSOCIATE);
  await expect.poll(() => associated().length, { message: 'the guest cart is assigned to the user' }).toBe(1);
  expect(new URLSearchParams(associated()[0]?.search).get('guest_order_token')).toBe(cartToken);
  expect(associated()[0]?.headers.authorization).toBe(`Bearer ${accessToken}`);
  expect((await state()).cart).toEqual({ number: cartNumber });

  // 4. Account info with no token argument: the worker adds the bearer the SDK got.
  expect(await sdk(page, 'account', 'accountInfo', {})).toMatchObject({ ok: true, status: 200, data: { data: { attributes: { email: username } } } });
  expect(lastBearer(storefront, 'GET', ACCOUNT)).toBe(`Bearer ${accessToken}`);

  // 4b. The SDK handed its placeholders back, as an SDK client does: `bearer_token` and `order_token`
  //     go out as the real values; the SDK's own refresh is answered from the worker's pair, no grant.
  expect(await sdk(page, 'account', 'accountInfo', { bearer_token: sealedPair.access_token })).toMatchObject({ ok: true, status: 200 });
  expect(lastBearer(storefront, 'GET', ACCOUNT)).toBe(`Bearer ${accessToken}`);
  expect(await sdk(page, 'cart', 'show', { bearer_token: sealedPair.access_token, order_token: sealedCart })).toMatchObject({ ok: true, status: 200, data: { data: { attributes: { number: cartNumber, token: 'sealed:cart' } } } });
  expect(lastBearer(storefront, 'GET', CART)).toBe(`Bearer ${accessToken}`);
  const grantsBefore = storefront.stats().tokenRequests;
  const refreshed = await sdk(page, 'authentication', 'refreshToken', { refresh_token: sealedPair.refresh_token });
  expect(refreshed).toMatchObject({ ok: true, data: { access_token: 'sealed:access', refresh_token: 'sealed:refresh', token_type: 'Bearer' } });
  expect(storefront.stats().tokenRequests, 'a fresh pair is not refreshed again').toBe(grantsBefore);

  // 5. Logout: at once, whatever the revocation takes; the tokens are revoked at the server, best effort.
  storefront.override('POST', '/spree_oauth/revoke', { delayMs: 4_000, passThrough: true, times: 2 });
  const started = Date.now();
  const signedOut = await page.evaluate(() => window.storefrontAuth.logout());
  expect(Date.now() - started, 'logout does not wait for the revocation').toBeLessThan(2_500);
  expect(signedOut).toMatchObject({ signedIn: false, cart: null });
  expect(await state()).toMatchObject({ signedIn: false, cart: null });
  await expect.poll(() => storefront.stats().revocations).toBeGreaterThan(0);
  const revoked = requestsTo(storefront, 'POST', '/spree_oauth/revoke').map((request) => new URLSearchParams(request.body).get('token'));
  expect(revoked).toContain(accessToken);
  const account = await sdk(page, 'account', 'accountInfo', {});
  expect(account).toMatchObject({ ok: false, status: 403 });
  expect(lastBearer(storefront, 'GET', ACCOUNT)).toBeUndefined();

  // The spree preset's header only: no request, the page's or the worker's, carried X-Store-Order-Token.
  const headers = await Promise.all(sent.map(async (request) => ({ url: request.url(), fromWorker: request.serviceWorker() !== null, headers: await request.allHeaders() })));
  const withOrderToken = headers.filter((request) => request.headers['x-spree-order-token'] !== undefined);
  // The observation sees the worker's own requests: the cart was shown with the worker's header.
  expect(withOrderToken).toContainEqual(expect.objectContaining({ fromWorker: true, headers: expect.objectContaining({ 'x-spree-order-token': cartToken }) }));
  expect(headers.filter((request) => request.headers['x-store-order-token'] !== undefined)).toEqual([]);
});
