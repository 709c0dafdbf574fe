// A shop on Spree 5's Store API through the official SDK, @spree/sdk 1.2.1, unchanged and with its
// defaults (automatic Idempotency-Key on every write, two retries): the page hands the SDK back the
// placeholders the worker's sealed answers gave it (`sealed:access`, `sealed:refresh`,
// `sealed:cart`), and the server sees the real JWT, refresh token and cart token
// (docs/behaviour.md, "The spree-v3 preset").
import type { Page } from '@playwright/test';
import { expect, openShop, recordedEvents, test, type Storefront } from './support.js';
import { collectIssuedTokens, readBySdk, realV3CartToken, V3, v3Controls, v3Requests, v3sdk, v3Stats, type V3LoggedRequest, type V3Outcome } from './spreeV3Sdk.js';

const KEY = 'pk_test_storefront_auth';
const DROP_IN = { preset: 'spree-v3', publishableKey: KEY };
/** The SDK's own keys on every write (sdk-core's `generateIdempotencyKey`). */
const SDK_KEY = /^spree-sdk-retry-[0-9a-f-]{36}$/;
const BOTH = { token: 'sealed:access', spreeToken: 'sealed:cart' };

// Spree's per-IP limits (5 logins, 10 refreshes a minute) are shared by every test of the run.
test.use({ storefrontOptions: { flavour: 'spree-v3', rateLimits: { login: 100, refresh: 100, logout: 100 } } });

/** The data of a successful SDK call; fails the test with the SDK's error otherwise. */
function dataOf<T>(outcome: V3Outcome): T {
  expect(outcome, 'the SDK call succeeded').toMatchObject({ ok: true });
  return (outcome as { data: T }).data;
}

/** The first product's variant, read through the SDK as a shop does (the catalogue needs no credential). */
async function firstVariant(page: Page): Promise<string> {
  const products = dataOf<{ data: Array<{ default_variant: { id: string } }> }>(await v3sdk(page, 'products.list'));
  return products.data[0]!.default_variant.id;
}

/** The bearer a logged request carried, without `Bearer `. */
function bearerOf(request: V3LoggedRequest | undefined): string | undefined {
  return request?.headers.authorization?.replace(/^Bearer /, '');
}

/**
 * Nothing the SDK handed the page holds a real token: every JWT and refresh token the server issued
 * (as Chromium received them), every credential the server was sent, every cart token.
 */
async function expectNoRealToken(page: Page, storefront: Storefront, issued: Set<string>): Promise<void> {
  const sent = (storefront.requests as V3LoggedRequest[]).flatMap((request) => [bearerOf(request), request.headers.orderToken, request.refreshToken]);
  const carts = [...(storefront.carts as unknown as ReadonlyMap<number, { token: string }>).values()].map((order) => order.token);
  const real = new Set([...issued, ...carts, ...sent].filter((token): token is string => token !== undefined && token !== '' && !token.startsWith('sealed:')));
  const read = (await readBySdk(page)).join('\n');
  expect(read.length).toBeGreaterThan(0);
  for (const token of real) expect(read, 'a real token reached the page').not.toContain(token);
  expect(read, 'no JWT at all reached the page').not.toMatch(/eyJ[\w-]+\.[\w-]+\.[\w-]*/);
}

test('the SDK signs in, keeps a cart, refreshes and signs out with the placeholders it was given', async ({ context, storefront }) => {
  const issued = collectIssuedTokens(context);
  const page = await openShop(context, storefront, DROP_IN, '/site/spree-v3.html');
  const otherTab = await openShop(context, storefront, DROP_IN);
  const state = () => page.evaluate(() => window.storefrontAuth.getState());
  const { username: email, password } = storefront.user;
  const { refreshTokens } = v3Controls(storefront);

  // 1. The SDK's login: the worker keeps the pair and hands the SDK placeholders.
  const login = await v3sdk(page, 'auth.login', { email, password });
  expect(login).toEqual({ ok: true, data: { token: 'sealed:access', refresh_token: 'sealed:refresh', user: expect.objectContaining({ email }) } });
  await expect.poll(state).toMatchObject({ signedIn: true, cart: null });
  const logins = v3Requests(storefront, 'POST', '/auth/login');
  expect(logins).toHaveLength(1);
  expect(logins[0]?.headers).toMatchObject({ apiKey: KEY, idempotencyKey: expect.stringMatching(SDK_KEY), contentType: 'application/json' });
  expect(logins[0]?.headers.authorization).toBeUndefined();
  expect(JSON.parse(logins[0]?.body ?? '{}')).toEqual({ email, password });
  const [refreshToken, ...otherRows] = [...refreshTokens.keys()];
  expect(otherRows).toEqual([]);

  // 2. A cart created with the sealed bearer: the server sees the real JWT, the SDK gets `sealed:cart`.
  const cart = dataOf<{ id: string; number: string; token: string }>(await v3sdk(page, 'carts.create', {}, { token: 'sealed:access' }));
  expect(cart).toMatchObject({ id: expect.stringMatching(/^cart_/), number: expect.stringMatching(/^R/), token: 'sealed:cart' });
  expect(await state()).toMatchObject({ signedIn: true, cart: { number: cart.number } });
  const cartToken = realV3CartToken(storefront, cart.number);
  const [creation, ...moreCreations] = v3Requests(storefront, 'POST', '/carts');
  expect(moreCreations).toEqual([]);
  const jwt = bearerOf(creation);
  expect(jwt).toMatch(/^eyJ[\w-]+\.[\w-]+\.[\w-]+$/);
  await expect.poll(() => issued.has(jwt!), { message: 'the bearer is the JWT the login issued' }).toBe(true);
  expect(creation?.headers).toMatchObject({ apiKey: KEY, idempotencyKey: expect.stringMatching(SDK_KEY) });
  expect(creation?.headers.orderToken).toBeUndefined();
  expect(creation?.status).toBe(201);

  // 3. Cart writes and reads with both placeholders: the real JWT and the real cart token go out,
  //    the SDK's own Idempotency-Key with them, unchanged.
  const variant = await firstVariant(page);
  const added = dataOf<{ token: string; total_quantity: number; items: Array<{ id: string }> }>(await v3sdk(page, 'carts.items.create', cart.id, { variant_id: variant, quantity: 1 }, BOTH));
  expect(added).toMatchObject({ token: 'sealed:cart', total_quantity: 1 });
  const lineItem = added.items[0]!.id;
  expect(dataOf(await v3sdk(page, 'carts.items.update', cart.id, lineItem, { quantity: 3 }, BOTH))).toMatchObject({ token: 'sealed:cart', total_quantity: 3 });
  expect(dataOf(await v3sdk(page, 'carts.get', cart.id, BOTH))).toMatchObject({ id: cart.id, number: cart.number, token: 'sealed:cart', total_quantity: 3 });
  const cartCalls = [
    ...v3Requests(storefront, 'POST', `/carts/${cart.id}/items`),
    ...v3Requests(storefront, 'PATCH', `/carts/${cart.id}/items/${lineItem}`),
    ...v3Requests(storefront, 'GET', `/carts/${cart.id}`),
  ];
  expect(cartCalls).toHaveLength(3);
  for (const call of cartCalls) {
    expect(call.headers).toMatchObject({ authorization: `Bearer ${jwt}`, orderToken: cartToken, apiKey: KEY });
    expect(call.status).toBeLessThan(300);
  }
  const writeKeys = cartCalls.slice(0, 2).map((call) => call.headers.idempotencyKey);
  expect(writeKeys).toEqual([expect.stringMatching(SDK_KEY), expect.stringMatching(SDK_KEY)]);
  expect(new Set(writeKeys).size).toBe(2);
  expect(cartCalls[2]?.headers.idempotencyKey, 'a read carries no key').toBeUndefined();
  expect(dataOf(await v3sdk(page, 'customer.get', { token: 'sealed:access' }))).toMatchObject({ email });
  const account = v3Requests(storefront, 'GET', '/customers/me').at(-1);
  expect(bearerOf(account)).toBe(jwt);
  expect(account?.headers.orderToken, 'the account gets the bearer only').toBeUndefined();

  // 4a. The SDK's refresh while the JWT is fresh, twice at once: answered from the worker's pair,
  //     sealed, and the server sees no refresh at all.
  const fresh = await Promise.all([1, 2].map(() => v3sdk(page, 'auth.refresh', { refresh_token: 'sealed:refresh' })));
  for (const outcome of fresh) expect(outcome).toEqual({ ok: true, data: { token: 'sealed:access', refresh_token: 'sealed:refresh', user: expect.objectContaining({ email }) } });
  expect(v3Requests(storefront, 'POST', '/auth/refresh')).toEqual([]);

  // 4b. The JWT dies at the server before the worker's clock says so: the SDK's write with the sealed
  //     bearer meets a 401; the worker refreshes once and replays it, the SDK's Idempotency-Key kept
  //     (Spree answers a missing JWT before its idempotency check, so nothing was cached under it).
  storefront.expireAllAccessTokens();
  expect(dataOf(await v3sdk(page, 'customer.update', { first_name: 'Renamed' }, { token: 'sealed:access' }))).toMatchObject({ email, first_name: 'Renamed' });
  const updates = v3Requests(storefront, 'PATCH', '/customers/me');
  expect(updates.map((update) => update.status)).toEqual([401, 200]);
  expect(bearerOf(updates[0])).toBe(jwt);
  const rotatedJwt = bearerOf(updates[1]);
  expect(rotatedJwt).not.toBe(jwt);
  await expect.poll(() => issued.has(rotatedJwt!), { message: 'the bearer is the JWT the rotation issued' }).toBe(true);
  expect(updates[1]?.headers.idempotencyKey).toBe(updates[0]?.headers.idempotencyKey);
  expect(updates[0]?.headers.idempotencyKey).toMatch(SDK_KEY);
  const [rotation, ...moreRotations] = v3Requests(storefront, 'POST', '/auth/refresh');
  expect(moreRotations).toEqual([]);
  expect(rotation?.refreshToken, 'the worker rotated the real refresh token').toBe(refreshToken);
  expect(rotation?.headers.idempotencyKey, "the worker's own key, not one of the SDK's").toMatch(/./);
  expect(rotation?.headers.idempotencyKey).not.toMatch(SDK_KEY);
  expect(v3Stats(storefront).rotations).toBe(1);

  // 4c. The SDK's refresh now: answered from that single rotation; still one at the server.
  expect(await v3sdk(page, 'auth.refresh', { refresh_token: 'sealed:refresh' })).toMatchObject({ ok: true, data: { token: 'sealed:access', refresh_token: 'sealed:refresh' } });
  expect(v3Requests(storefront, 'POST', '/auth/refresh')).toHaveLength(1);
  expect(v3Stats(storefront).rotations).toBe(1);
  expect(dataOf(await v3sdk(page, 'carts.get', cart.id, BOTH))).toMatchObject({ token: 'sealed:cart' });
  expect(v3Requests(storefront, 'GET', `/carts/${cart.id}`).at(-1)?.headers).toMatchObject({ authorization: `Bearer ${rotatedJwt}`, orderToken: cartToken });
  const [rotatedRefreshToken, ...stillOther] = [...refreshTokens.keys()];
  expect(stillOther).toEqual([]);
  expect(rotatedRefreshToken).not.toBe(refreshToken);

  // 5. The SDK's logout with the placeholder is the worker's logout: every tab told, the real
  //    refresh token revoked at the server, the SDK answered 204 as Spree answers.
  const logout = await v3sdk(page, 'auth.logout', { refresh_token: 'sealed:refresh' });
  expect(logout).toMatchObject({ ok: true });
  expect((logout as { data?: unknown }).data).toBeUndefined();
  expect(await state()).toMatchObject({ signedIn: false, cart: null });
  await expect.poll(async () => (await recordedEvents(otherTab)).at(-1), { message: 'the other tab is told' }).toMatchObject({ type: 'change', detail: { signedIn: false, cart: null } });
  await expect.poll(() => refreshTokens.has(rotatedRefreshToken!), { message: 'the refresh token row is revoked' }).toBe(false);
  const logouts = v3Requests(storefront, 'POST', '/auth/logout');
  expect(logouts.map((request) => request.refreshToken)).toEqual([rotatedRefreshToken]);
  expect(logouts[0]?.headers).toMatchObject({ apiKey: KEY });
  expect(logouts[0]?.headers.authorization).toBeUndefined();
  // Spree cannot revoke a JWT: the last one still opens the account until its exp
  // (docs/security.md).
  const stillValid = await fetch(`${storefront.url}${V3}/customers/me`, { headers: { 'X-Spree-Api-Key': KEY, Authorization: `Bearer ${rotatedJwt}` } });
  expect(stillValid.status).toBe(200);

  // After the logout, the placeholder is worth nothing: the worker sends no bearer.
  expect(await v3sdk(page, 'customer.get', { token: 'sealed:access' })).toMatchObject({ ok: false, name: 'SpreeError', status: 401, code: 'authentication_required' });
  expect(v3Requests(storefront, 'GET', '/customers/me').at(-1)?.headers.authorization).toBeUndefined();

  expect(issued.size, 'two pairs were issued and seen').toBe(4);
  await expectNoRealToken(page, storefront, issued);
});

test("a guest's cart through the SDK: created with no credential, written with the sealed cart token, assigned at the SDK's login", async ({ context, storefront }) => {
  const issued = collectIssuedTokens(context);
  const page = await openShop(context, storefront, DROP_IN, '/site/spree-v3.html');
  const state = () => page.evaluate(() => window.storefrontAuth.getState());

  // A cart created with no token: the server sees the key and the SDK's Idempotency-Key only.
  const cart = dataOf<{ id: string; number: string; token: string; customer_id: string | null }>(await v3sdk(page, 'carts.create'));
  expect(cart).toMatchObject({ id: expect.stringMatching(/^cart_/), token: 'sealed:cart', customer_id: null });
  await expect.poll(state).toMatchObject({ signedIn: false, cart: { number: cart.number } });
  const cartToken = realV3CartToken(storefront, cart.number);
  const [creation] = v3Requests(storefront, 'POST', '/carts');
  expect(creation?.headers).toMatchObject({ apiKey: KEY, idempotencyKey: expect.stringMatching(SDK_KEY) });
  expect(creation?.headers.authorization).toBeUndefined();
  expect(creation?.headers.orderToken).toBeUndefined();

  // An item added with `spreeToken: 'sealed:cart'`: the server sees the real cart token, no bearer.
  const variant = await firstVariant(page);
  expect(dataOf(await v3sdk(page, 'carts.items.create', cart.id, { variant_id: variant, quantity: 2 }, { spreeToken: 'sealed:cart' }))).toMatchObject({ token: 'sealed:cart', total_quantity: 2 });
  // Read with the placeholder, and with no token at all (the worker adds the guest's token by itself).
  expect(dataOf(await v3sdk(page, 'carts.get', cart.id, { spreeToken: 'sealed:cart' }))).toMatchObject({ id: cart.id, token: 'sealed:cart' });
  expect(dataOf(await v3sdk(page, 'carts.get', cart.id))).toMatchObject({ id: cart.id, token: 'sealed:cart' });
  const calls = [...v3Requests(storefront, 'POST', `/carts/${cart.id}/items`), ...v3Requests(storefront, 'GET', `/carts/${cart.id}`)];
  expect(calls).toHaveLength(3);
  for (const call of calls) {
    expect(call.headers).toMatchObject({ orderToken: cartToken, apiKey: KEY });
    expect(call.headers.authorization).toBeUndefined();
    expect(call.status).toBe(call.method === 'POST' ? 201 : 200);
  }

  // The SDK's login: the worker assigns the guest cart with the new JWT and the cart token.
  const { username: email, password } = storefront.user;
  expect(dataOf(await v3sdk(page, 'auth.login', { email, password }))).toMatchObject({ token: 'sealed:access', refresh_token: 'sealed:refresh' });
  await expect.poll(() => v3Requests(storefront, 'PATCH', `/carts/${cart.id}/associate`).length, { message: 'the guest cart is assigned' }).toBe(1);
  const [associate] = v3Requests(storefront, 'PATCH', `/carts/${cart.id}/associate`);
  expect(associate?.headers).toMatchObject({ orderToken: cartToken, apiKey: KEY });
  await expect.poll(() => issued.has(bearerOf(associate)!)).toBe(true);
  expect(associate?.status).toBe(200);
  expect(await state()).toMatchObject({ signedIn: true, cart: { number: cart.number } });
  expect(dataOf(await v3sdk(page, 'carts.get', cart.id, BOTH))).toMatchObject({ id: cart.id, token: 'sealed:cart', email, customer_id: expect.stringMatching(/^cus_/) });

  await expectNoRealToken(page, storefront, issued);
});
