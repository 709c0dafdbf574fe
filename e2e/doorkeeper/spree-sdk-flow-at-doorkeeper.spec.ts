import type { Request } from '@playwright/test';
import { sdk } from '../spreeSdk.js';
import { expect, expectNoTokenWorks, openSpreeShop, revocationsAnswered, test } from './support.js';

const CART = '/api/v2/storefront/cart';
const ACCOUNT = '/api/v2/storefront/account';
const ASSOCIATE = '/api/v2/storefront/cart/associate';

test('a shop on the Spree SDK passes no token at all, against Doorkeeper: the worker adds the headers, keeps the tokens and revokes them', async ({ context, doorkeeper }) => {
  // Every request of the page and of its service worker, as Chromium sent it.
  const sent: Request[] = [];
  context.on('request', (request) => sent.push(request));
  const page = await openSpreeShop(context, doorkeeper, '/site/spree.html');
  const state = () => page.evaluate(() => window.storefrontAuth.getState());
  const { username, password } = doorkeeper.user;

  // 1. A guest cart: the request carries nothing, and the worker keeps the cart from the answer.
  const created = await sdk(page, 'cart', 'create');
  expect(created).toMatchObject({ ok: true, status: 201 });
  const { token: sealedCart, number: cartNumber } = (created as { data: { data: { attributes: { token: string; number: string } } } }).data.data.attributes;
  // Sealed tokens: the SDK holds a placeholder; the real token is the one the worker sends (step 2).
  expect(sealedCart).toBe('sealed:cart');
  expect((await state()).cart).toEqual({ number: cartNumber });
  const creations = await doorkeeper.requestsTo('POST', CART);
  expect(creations).toHaveLength(1);
  expect(creations[0]?.headers.authorization).toBeUndefined();
  expect(creations[0]?.headers.orderToken).toBeUndefined();

  // 2. Showing the cart with no token argument: the worker adds X-Spree-Order-Token.
  expect(await sdk(page, 'cart', 'show', {})).toMatchObject({ ok: true, status: 200, data: { data: { attributes: { number: cartNumber } } } });
  const shown = (await doorkeeper.requestsTo('GET', CART)).at(-1);
  const cartToken = shown?.headers.orderToken ?? '';
  expect(cartToken).toMatch(/^[\w-]{16,}$/);
  expect(shown?.headers.authorization).toBeUndefined();

  // 3. The SDK's own password grant (a JSON body): the worker keeps the pair and assigns the guest cart.
  const granted = await sdk(page, 'authentication', 'getToken', { username, password });
  expect(granted).toMatchObject({ ok: true, status: 200, data: { token_type: 'Bearer', expires_in: 7200 } });
  expect((granted as { data: { access_token: string } }).data.access_token).toBe('sealed:access');
  const accessToken = (await doorkeeper.issuedPairs()).at(-1)?.access_token;
  const [grant, ...moreGrants] = await doorkeeper.requestsTo('POST', '/spree_oauth/token');
  expect(moreGrants).toHaveLength(0);
  expect(grant?.headers.contentType).toContain('application/json');
  expect(JSON.parse(grant?.body ?? '{}')).toMatchObject({ grant_type: 'password', username, password });
  expect(grant?.headers.authorization).toBeUndefined();
  await expect.poll(state).toMatchObject({ signedIn: true, cart: { number: cartNumber } });
  await expect.poll(async () => (await doorkeeper.requestsTo('PATCH', ASSOCIATE)).map((request) => request.status), { message: 'the guest cart is assigned to the user' }).toEqual([200]);
  const [associated] = await doorkeeper.requestsTo('PATCH', ASSOCIATE);
  expect(new URLSearchParams(associated?.search).get('guest_order_token')).toBe(cartToken);
  expect(associated?.headers.authorization).toBe(`Bearer ${accessToken}`);

  // 4. Account info with no token argument: the worker adds the bearer the SDK got.
  expect(await sdk(page, 'account', 'accountInfo', {})).toMatchObject({ ok: true, status: 200, data: { data: { attributes: { email: username } } } });
  expect((await doorkeeper.requestsTo('GET', ACCOUNT)).at(-1)?.headers.authorization).toBe(`Bearer ${accessToken}`);

  // 4b. The placeholders handed back through the SDK's own arguments go out as the real values.
  expect(await sdk(page, 'account', 'accountInfo', { bearer_token: 'sealed:access' })).toMatchObject({ ok: true, status: 200 });
  expect((await doorkeeper.requestsTo('GET', ACCOUNT)).at(-1)?.headers.authorization).toBe(`Bearer ${accessToken}`);
  expect(await sdk(page, 'cart', 'show', { order_token: sealedCart, bearer_token: 'sealed:access' })).toMatchObject({ ok: true, status: 200 });
  expect((await doorkeeper.requestsTo('GET', CART)).at(-1)?.headers.authorization).toBe(`Bearer ${accessToken}`);

  // 5. Logout: the worker forgets the pair and revokes it at Doorkeeper, where neither token works afterwards.
  expect(await page.evaluate(() => window.storefrontAuth.logout())).toMatchObject({ signedIn: false, cart: null });
  await revocationsAnswered(doorkeeper, 2);
  expect(await sdk(page, 'account', 'accountInfo', {})).toMatchObject({ ok: false, status: 403 });
  expect((await doorkeeper.requestsTo('GET', ACCOUNT)).at(-1)?.headers.authorization).toBeUndefined();
  await expectNoTokenWorks(doorkeeper, await doorkeeper.issuedPairs());

  // The spree preset's header only: no request, the page's or the worker's, carried X-Store-Order-Token.
  const headers = await Promise.all(sent.map(async (request) => ({ url: request.url(), fromWorker: request.serviceWorker() !== null, headers: await request.allHeaders() })));
  expect(headers.filter((request) => request.headers['x-spree-order-token'] !== undefined)).toContainEqual(
    expect.objectContaining({ fromWorker: true, headers: expect.objectContaining({ 'x-spree-order-token': cartToken }) }),
  );
  expect(headers.filter((request) => request.headers['x-store-order-token'] !== undefined)).toEqual([]);
});
