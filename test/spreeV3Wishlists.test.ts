// spree-v3's wishlists (docs/security.md, "Other carts and orders"): a wishlist's `token` is its share
// token (Spree's `WishlistSerializer`, `has_secure_token`), no cart's or order's, so answers under
// `/api/v3/store/wishlists` give it to the page as sent, while the held values are still sealed
// wherever they stand; an order's `token` elsewhere is still `sealed:order`, whichever answer came
// before (the seal plans are kept per kind of answer). v2's wishlists are not the worker's at all.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { opaqueRedirect, redirectedTo, storeApiJwt } from './fakes.js';
import { BASE, routedWorker } from './workerHarness.js';

const NOW = 1_700_000_000_000;
const HOUR = 3_600_000;
const OPTIONS = { preset: 'spree-v3', publishableKey: 'pk_test' } as const;
const JWT = storeApiJwt(NOW / 1000 + 3600);
const CART = { id: 'cart_1', token: 'cart-real-0123456789abcdefghijklmnopq', number: 'R100' };
const SESSION = { accessToken: JWT, refreshToken: 'refresh-real', expiresAt: NOW + HOUR, lifetimeMs: HOUR, confirmed: true };
const HELD: Credentials = { cart: CART, session: SESSION, backoff: null };
const WISHLIST = { id: 'wl_1', name: 'Mine', token: 'wishlistShareToken1234', is_default: true, is_private: false };
const ORDERS = { data: [{ id: 'or_1', number: 'R090', token: 'order-other-0123456789abcdefghijk', state: 'complete' }] };
const SEALED_ORDERS = { data: [{ ...ORDERS.data[0], token: 'sealed:order' }] };
const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};
const get = (path: string): Request => new Request(`${BASE}${path}`, { headers: { Authorization: 'Bearer sealed:access', 'X-Spree-Api-Key': 'pk_test' } });

describe('spree-v3: wishlists keep their share token', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  });
  after(() => {
    globalThis.BroadcastChannel = channel;
  });

  it('a wishlist’s token reaches the page as sent, on the wishlist, the list and an item added', async () => {
    const { calls, through } = routedWorker(OPTIONS, HELD, {
      'GET /api/v3/store/wishlists/wl_1': () => Response.json(WISHLIST),
      'GET /api/v3/store/wishlists/': () => Response.json({ data: [WISHLIST] }),
      'POST /api/v3/store/wishlists/wl_1/items': () => Response.json({ ...WISHLIST, items: [{ id: 'wi_1', variant_id: 'variant_1' }] }, { status: 201 }),
    }, () => NOW);
    await settle();
    assert.deepEqual(await (await through(get('/api/v3/store/wishlists/wl_1')))?.json(), WISHLIST);
    assert.equal(calls[0]?.request.headers.get('Authorization'), `Bearer ${JWT}`, 'the bearer still goes');
    // Rails routes a trailing slash as the path itself.
    assert.deepEqual(await (await through(get('/api/v3/store/wishlists/')))?.json(), { data: [WISHLIST] });
    const added = new Request(`${BASE}/api/v3/store/wishlists/wl_1/items`, { method: 'POST', headers: { Authorization: 'Bearer sealed:access', 'Content-Type': 'application/json' }, body: '{"variant_id":"variant_1"}' });
    assert.equal(((await (await through(added))?.json()) as { token?: unknown }).token, WISHLIST.token);
  });

  it('a held value in a wishlist answer is still sealed, in its token field too', async () => {
    const { through } = routedWorker(OPTIONS, HELD, { 'GET /api/v3/store/wishlists/wl_1': () => Response.json({ ...WISHLIST, token: CART.token, note: `for ${JWT}` }) }, () => NOW);
    await settle();
    assert.deepEqual(await (await through(get('/api/v3/store/wishlists/wl_1')))?.json(), { ...WISHLIST, token: 'sealed:cart', note: 'for sealed:access' });
  });

  it('an order’s token is sealed:order before and after a wishlist answer, and the wishlist’s kept between', async () => {
    const { through } = routedWorker(OPTIONS, HELD, {
      'GET /api/v3/store/customers/me/orders': () => Response.json(ORDERS),
      'GET /api/v3/store/wishlists/wl_1': () => Response.json(WISHLIST),
    }, () => NOW);
    await settle();
    assert.deepEqual(await (await through(get('/api/v3/store/customers/me/orders')))?.json(), SEALED_ORDERS);
    assert.deepEqual(await (await through(get('/api/v3/store/wishlists/wl_1')))?.json(), WISHLIST);
    assert.deepEqual(await (await through(get('/api/v3/store/customers/me/orders')))?.json(), SEALED_ORDERS);
    assert.deepEqual(await (await through(get('/api/v3/store/wishlists/wl_1')))?.json(), WISHLIST);
  });

  it('an order reached through a redirect from a wishlist’s URL has its token sealed, and a wishlist reached from an order’s URL keeps its own', async () => {
    const order = ORDERS.data[0];
    const orderUrl = `${BASE}/api/v3/store/orders/R090`;
    const wishlistUrl = `${BASE}/api/v3/store/wishlists/wl_1`;
    // What fetch gives for the final URL the worker asks again with its credential: the answer names where it came from.
    const from = (response: Response, url: string): Response => Object.defineProperty(response, 'url', { value: url });
    let asked = 0;
    const { through } = routedWorker(OPTIONS, HELD, {
      // Asked with `redirect: 'manual'` first (an opaque redirect), then followed by the browser.
      'GET /api/v3/store/wishlists/wl_2': () => (asked++ % 2 === 0 ? opaqueRedirect() : redirectedTo(orderUrl, JSON.stringify(order))),
      'GET /api/v3/store/orders/R090': () => from(Response.json(order), orderUrl),
      'GET /api/v3/store/orders/R091': () => (asked++ % 2 === 0 ? opaqueRedirect() : redirectedTo(wishlistUrl, JSON.stringify(WISHLIST))),
      'GET /api/v3/store/wishlists/wl_1': () => from(Response.json(WISHLIST), wishlistUrl),
    }, () => NOW);
    await settle();
    assert.deepEqual(await (await through(get('/api/v3/store/wishlists/wl_2')))?.json(), SEALED_ORDERS.data[0]);
    assert.deepEqual(await (await through(get('/api/v3/store/orders/R091')))?.json(), WISHLIST);
  });

  it('v2’s wishlists are under none of its paths: the worker leaves them to the browser', async () => {
    const { through } = routedWorker({ preset: 'spree' }, { cart: { token: CART.token, number: 'R100' }, session: { ...SESSION, accessToken: 'access-real' }, backoff: null }, {}, () => NOW);
    await settle();
    assert.equal(await through(new Request(`${BASE}/api/v2/storefront/wishlists/wl_1`, { headers: { Authorization: 'Bearer sealed:access' } })), null);
  });
});
