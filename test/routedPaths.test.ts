// A path as Rails routes it (ActionDispatch's Journey::Router::Utils.normalize_path squeezes runs of
// `/` and drops a trailing `/`): `POST /api/v2/storefront/cart/` is Spree's cart creation and
// `//store_oauth/token` Doorkeeper's token endpoint, so the worker classifies the endpoints a dialect
// names exactly (creation, grant, revocation) on that path. The request still goes out as the page
// wrote it, and the cart, checkout and account prefixes still match the path as written: a `//` there
// gets no credential, as before (docs/behaviour.md, "What the worker does to requests").
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { resolveOptions } from '../src/sw/options.js';
import { routedPath } from '../src/sw/dialects/railsRoutes.js';
import { classifyRequest } from '../src/sw/requestRules.js';
import { storeApiJwt } from './fakes.js';
import { BASE, routedWorker } from './workerHarness.js';

const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));
const HOUR = 3_600_000;
const OLD_CART = { token: 'old-cart-token', number: 'R100' };
const NEW_CART = { data: { id: '3', type: 'cart', attributes: { number: 'R200', token: 'new-cart-token' } } };
const PAIR = { access_token: 'real-access', token_type: 'Bearer', expires_in: 7200, refresh_token: 'real-refresh', created_at: 1 };
const SESSION = { accessToken: 'held-access', refreshToken: 'held-refresh', expiresAt: Date.now() + HOUR, lifetimeMs: HOUR, confirmed: true };
const V3 = { preset: 'spree-v3', publishableKey: 'pk_test' } as const;
const GUEST: Credentials = { cart: null, session: null, backoff: null };

describe('routedPath', () => {
  for (const [path, routed] of [
    ['/api/v2/storefront/cart/', '/api/v2/storefront/cart'],
    ['//store_oauth/token', '/store_oauth/token'],
    ['/api/v2//storefront///cart//', '/api/v2/storefront/cart'],
    ['/api/v2/storefront/cart', '/api/v2/storefront/cart'],
    ['/', ''],
    // Rails' optional `(.:format)`: one segment of anything but `/` and `.` after the last name.
    ['/spree_oauth/token.json', '/spree_oauth/token'],
    ['/api/v2/storefront/cart.json/', '/api/v2/storefront/cart'],
    ['/api/v3/store/auth/login.xml', '/api/v3/store/auth/login'],
    ['/api/v2/storefront/cart/.json', '/api/v2/storefront/cart/.json'],
    ['/store_oauth/token.json.json', '/store_oauth/token.json'],
    ['/store_oauth/token.', '/store_oauth/token.'],
  ] as const) {
    it(`${path} is routed as ${routed || "''"}`, () => assert.equal(routedPath(path), routed));
  }
});

describe('classifying a path with a trailing / or a // run', () => {
  const kinds = (preset: object, method: string, path: string): string | null =>
    classifyRequest(new URL(`${BASE}${path}`), method, resolveOptions({ baseUrl: BASE, ...preset }, 'https://shop.example/storefront-auth-sw.js'));
  for (const [preset, method, path, kind] of [
    [{}, 'POST', '/api/v2/storefront/cart/', 'cartCreate'],
    [{}, 'POST', '//api/v2/storefront/cart', 'cartCreate'],
    [{}, 'POST', '/store_oauth/token/', 'tokenGrant'],
    [{}, 'POST', '//store_oauth/token', 'tokenGrant'],
    [{ preset: 'spree' }, 'POST', '/spree_oauth/revoke/', 'revocation'],
    [{ preset: 'spree' }, 'POST', '/spree_oauth//revoke', 'revocation'],
    [V3, 'POST', '/api/v3/store/carts/', 'cartCreate'],
    [V3, 'POST', '/api/v3/store/auth/login/', 'tokenGrant'],
    [V3, 'POST', '/api/v3/store/auth/refresh/', 'tokenGrant'],
    [V3, 'POST', '/api/v3/store/customers/', 'tokenGrant'],
    [V3, 'POST', '/api/v3//store/auth/logout', 'revocation'],
    // The prefixes, as before: on a segment boundary of the path as written.
    [{}, 'GET', '/api/v2/storefront/cart/', 'cartOrCheckout'],
    [{}, 'GET', '/api/v2/storefront/account/', 'account'],
    [{}, 'GET', '//api/v2/storefront/cart', null],
    [{}, 'GET', '/api/v2//storefront/account', null],
    [{}, 'PATCH', '/api/v2/storefront//checkout/next', null],
    [V3, 'GET', '/api/v3/store//carts/cart_1', null],
    [V3, 'GET', '/api/v3/store/customers//me', null],
    // Nothing new under the base: a path the dialect does not name stays untouched, however spelled.
    [{}, 'GET', '/api/v2/storefront/products/', null],
    [{}, 'POST', '/api/v2/storefront/cart/add_item/', 'cartOrCheckout'],
    // A format extension: the endpoints named exactly are recognised, the prefixes still match as written.
    [{}, 'POST', '/api/v2/storefront/cart.json', 'cartCreate'],
    [{}, 'POST', '/store_oauth/token.json', 'tokenGrant'],
    [{ preset: 'spree' }, 'POST', '/spree_oauth/token.json', 'tokenGrant'],
    [{ preset: 'spree' }, 'POST', '/spree_oauth/revoke.json', 'revocation'],
    [V3, 'POST', '/api/v3/store/carts.json', 'cartCreate'],
    [V3, 'POST', '/api/v3/store/auth/login.json', 'tokenGrant'],
    [V3, 'POST', '/api/v3/store/auth/logout.json', 'revocation'],
    [{}, 'GET', '/api/v2/storefront/cart.json', null],
    [{}, 'GET', '/api/v2/storefront/account.json', null],
    [{}, 'POST', '/api/v2/storefront/cart/add_item.json', 'cartOrCheckout'],
    [{}, 'POST', '/store_oauth/token.json.json', null],
  ] as const) {
    it(`${'preset' in preset ? preset.preset : 'store'}: ${method} ${path} is ${kind ?? 'left alone'}`, () => assert.equal(kinds(preset, method, path), kind));
  }
});

describe('a creation, a grant and a revocation with a trailing / or a // run, through the worker', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  });
  after(() => {
    globalThis.BroadcastChannel = channel;
  });

  for (const path of ['/api/v2/storefront/cart/', '//api/v2/storefront/cart', '/api/v2/storefront/cart.json']) {
    it(`a guest's POST ${path} carries no old cart token, keeps the new cart and seals its token`, async () => {
      const { calls, through, settled, storage } = routedWorker({}, { cart: OLD_CART, session: null, backoff: null }, { [`POST ${path}`]: () => Response.json(NEW_CART, { status: 201 }) });
      await settle();
      const response = await through(new Request(`${BASE}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/vnd.api+json' } }));
      assert.ok(response !== null, 'the worker answers a cart creation');
      const text = await response.text();
      await settled();
      assert.equal(calls[0]?.request.url, `${BASE}${path}`, 'the request goes out as the page wrote it');
      assert.equal(calls[0]?.request.headers.get('X-Store-Order-Token'), null, 'a creation carries no order token');
      assert.equal((await storage.read()).cart?.token, 'new-cart-token');
      assert.match(text, /"token":"sealed:cart"/);
    });
  }

  it('a signed-in POST /api/v2/storefront/cart/ gets the bearer and no order token, as the creation does', async () => {
    const { calls, through, settled } = routedWorker({}, { cart: OLD_CART, session: SESSION, backoff: null }, { 'POST /api/v2/storefront/cart/': () => Response.json(NEW_CART, { status: 201 }) });
    await settle();
    await through(new Request(`${BASE}/api/v2/storefront/cart/`, { method: 'POST' }));
    await settled();
    assert.equal(calls[0]?.request.headers.get('Authorization'), 'Bearer held-access');
    assert.equal(calls[0]?.request.headers.get('X-Store-Order-Token'), null);
  });

  for (const path of ['/store_oauth/token/', '//store_oauth/token', '/store_oauth/token.json']) {
    it(`POST ${path}: the pair is kept and reaches the page sealed`, async () => {
      const { through, settled, storage } = routedWorker({}, GUEST, { [`POST ${path}`]: () => Response.json(PAIR) });
      await settle();
      const response = await through(new Request(`${BASE}${path}`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', username: 'u', password: 'p' }) }));
      assert.ok(response !== null, 'the worker answers a grant');
      const text = await response.text();
      await settled();
      assert.equal((await storage.read()).session?.accessToken, 'real-access');
      assert.doesNotMatch(text, /real-/);
    });
  }

  it('spree: POST /spree_oauth/revoke/ with token=sealed:access is the worker’s logout', async () => {
    const { calls, through, settled, storage } = routedWorker({ preset: 'spree' }, { cart: null, session: SESSION, backoff: null }, { 'POST /spree_oauth/revoke': () => Response.json({}) });
    await settle();
    const response = await through(new Request(`${BASE}/spree_oauth/revoke/`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'token=sealed%3Aaccess' }));
    assert.equal(response?.status, 200);
    await settled();
    assert.equal((await storage.read()).session, null);
    assert.deepEqual(await Promise.all(calls.map((call) => call.body)), ['token=held-access', 'token=held-refresh'], 'the real tokens are revoked, at the worker’s own path');
  });

  describe('spree-v3', () => {
    const now = 1_700_000_000_000;
    const jwt = storeApiJwt(now / 1000 + 3600);
    const tokenBody = { token: jwt, refresh_token: 'real-refresh', user: { id: 'u1' } };
    for (const path of ['/api/v3/store/auth/login/', '/api/v3/store/customers/']) {
      it(`POST ${path}: the pair is kept and reaches the page sealed`, async () => {
        const { through, settled, storage } = routedWorker(V3, GUEST, { [`POST ${path}`]: () => Response.json(tokenBody) }, () => now);
        await settle();
        const response = await through(new Request(`${BASE}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"email":"u@example.com","password":"p"}' }));
        assert.ok(response !== null);
        const text = await response.text();
        await settled();
        assert.equal((await storage.read()).session?.accessToken, jwt);
        assert.doesNotMatch(text, /real-refresh/);
        assert.ok(!text.includes(jwt), text);
      });
    }

    it('POST /api/v3/store/carts/: a creation, which carries no old cart token and is kept', async () => {
      const doc = { id: 'cart_2', number: 'R200', token: 'new-cart-token' };
      const { calls, through, settled, storage } = routedWorker(V3, { cart: { ...OLD_CART, id: 'cart_1' }, session: null, backoff: null }, { 'POST /api/v3/store/carts/': () => Response.json(doc, { status: 201 }) }, () => now);
      await settle();
      const response = await through(new Request(`${BASE}/api/v3/store/carts/`, { method: 'POST', headers: { 'Content-Type': 'application/json' } }));
      assert.ok(response !== null);
      await settled();
      assert.equal(calls[0]?.request.headers.get('x-spree-token'), null);
      assert.equal((await storage.read()).cart?.token, 'new-cart-token');
    });

    it('POST /api/v3/store/auth/refresh/ with sealed:refresh is answered from the worker’s pair, never sent', async () => {
      const held: Credentials = { cart: null, session: { ...SESSION, accessToken: jwt, expiresAt: now + HOUR }, backoff: null };
      const { calls, through } = routedWorker(V3, held, {}, () => now);
      await settle();
      const response = await through(new Request(`${BASE}/api/v3/store/auth/refresh/`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"refresh_token":"sealed:refresh"}' }));
      assert.equal(response?.status, 200);
      assert.deepEqual(await response?.json(), { token: 'sealed:access', refresh_token: 'sealed:refresh', user: null });
      assert.deepEqual(calls, []);
    });
  });
});
