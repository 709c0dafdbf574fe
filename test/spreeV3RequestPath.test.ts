// spree-v3's page requests through the orchestrator (docs/behaviour.md, "The spree-v3 preset", its
// credential table and "Sealing"): a signed-in cart call with both placeholders goes out with the
// real bearer and the real cart token; a guest's flat cart document reaches the page sealed and is
// kept; a token response reaches the page sealed and signs the worker in.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { storeApiJwt } from './fakes.js';
import { BASE, routedWorker } from './workerHarness.js';

const NOW = 1_700_000_000_000;
const HOUR = 3_600_000;
const OPTIONS = { preset: 'spree-v3', publishableKey: 'pk_test' } as const;
const JWT = storeApiJwt(NOW / 1000 + 3600);
const CART = { id: 'cart_1', token: 'cart-real-0123456789abcdefghijklmnopq', number: 'R100' };
const SESSION = { accessToken: JWT, refreshToken: 'refresh-real', expiresAt: NOW + HOUR, lifetimeMs: HOUR, confirmed: true };
const CART_DOC = { id: 'cart_1', number: 'R100', token: CART.token, item_count: 1, state: 'cart' };
const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('spree-v3 page requests', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  });
  after(() => {
    globalThis.BroadcastChannel = channel;
  });

  it('a signed-in cart call with Bearer sealed:access and x-spree-token sealed:cart goes out with the real bearer and the real cart token', async () => {
    const held: Credentials = { cart: CART, session: SESSION, backoff: null };
    const { calls, settled, through } = routedWorker(OPTIONS, held, { 'POST /api/v3/store/carts/cart_1/items': () => Response.json(CART_DOC) }, () => NOW);
    await settle();
    const response = await through(
      new Request(`${BASE}/api/v3/store/carts/cart_1/items`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Spree-Api-Key': 'pk_test', Authorization: 'Bearer sealed:access', 'x-spree-token': 'sealed:cart' },
        body: '{"variant_id":"variant_1","quantity":1}',
      }),
    );
    await settled();
    assert.equal(calls.length, 1);
    const sent = calls[0]!.request;
    assert.equal(sent.headers.get('Authorization'), `Bearer ${JWT}`);
    assert.equal(sent.headers.get('x-spree-token'), CART.token);
    assert.equal(sent.headers.get('X-Spree-Api-Key'), 'pk_test', "the page's own key is kept");
    assert.equal(await calls[0]!.body, '{"variant_id":"variant_1","quantity":1}');
    assert.ok(response !== null);
    const body = (await response.json()) as Record<string, unknown>;
    assert.equal(body['token'], 'sealed:cart');
  });

  it('a signed-in cart call without any credential of the page’s gets both as well (an expired JWT is a guest’s there)', async () => {
    const { calls, through } = routedWorker(OPTIONS, { cart: CART, session: SESSION, backoff: null }, { 'GET /api/v3/store/carts/cart_1': () => Response.json(CART_DOC) }, () => NOW);
    await settle();
    await through(new Request(`${BASE}/api/v3/store/carts/cart_1`));
    assert.equal(calls[0]?.request.headers.get('Authorization'), `Bearer ${JWT}`);
    assert.equal(calls[0]?.request.headers.get('x-spree-token'), CART.token);
  });

  it('a guest’s cart creation: the flat document reaches the page with token sealed:cart, and the cart is kept with its id', async () => {
    const { calls, announced, settled, storage, through } = routedWorker(OPTIONS, { cart: null, session: null, backoff: null }, { 'POST /api/v3/store/carts': () => Response.json(CART_DOC, { status: 201 }) }, () => NOW);
    await settle();
    const response = await through(new Request(`${BASE}/api/v3/store/carts`, { method: 'POST', headers: { 'X-Spree-Api-Key': 'pk_test' } }));
    await settled();
    assert.ok(response !== null);
    assert.equal(response.status, 201);
    const text = await response.text();
    assert.ok(!text.includes(CART.token), text);
    assert.deepEqual(JSON.parse(text), { ...CART_DOC, token: 'sealed:cart' });
    assert.equal(calls[0]?.request.headers.get('Authorization'), null);
    assert.deepEqual((await storage.read()).cart, CART);
    assert.deepEqual(announced.map((a) => [a.type, a.state.cart]), [['change', { number: 'R100', id: 'cart_1' }]]);
  });

  it('a guest’s cart call with x-spree-token sealed:cart gets the real token, and the answer is sealed', async () => {
    const { calls, through } = routedWorker(OPTIONS, { cart: CART, session: null, backoff: null }, { 'GET /api/v3/store/carts/cart_1': () => Response.json(CART_DOC) }, () => NOW);
    await settle();
    const response = await through(new Request(`${BASE}/api/v3/store/carts/cart_1`, { headers: { 'x-spree-token': 'sealed:cart' } }));
    assert.equal(calls[0]?.request.headers.get('x-spree-token'), CART.token);
    assert.equal(calls[0]?.request.headers.get('Authorization'), null);
    assert.deepEqual(await response?.json(), { ...CART_DOC, token: 'sealed:cart' });
  });

  for (const [what, route, status] of [
    ['a login', 'POST /api/v3/store/auth/login', 200],
    ['a registration', 'POST /api/v3/store/customers', 201],
  ] as const) {
    it(`${what}’s token response reaches the page with sealed:access and sealed:refresh, and signs the worker in`, async () => {
      const user = { id: 'cus_1', email: 'shopper@example.com' };
      const { announced, settled, storage, through } = routedWorker(OPTIONS, { cart: null, session: null, backoff: null }, { [route]: () => Response.json({ token: JWT, refresh_token: 'refresh-new', user }, { status }) }, () => NOW);
      await settle();
      const path = route.slice('POST '.length);
      const response = await through(new Request(`${BASE}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Spree-Api-Key': 'pk_test' }, body: '{"email":"shopper@example.com","password":"pw"}' }));
      await settled();
      assert.ok(response !== null);
      assert.equal(response.status, status);
      const text = await response.text();
      assert.ok(!text.includes(JWT) && !text.includes('refresh-new'), text);
      assert.deepEqual(JSON.parse(text), { token: 'sealed:access', refresh_token: 'sealed:refresh', user });
      assert.deepEqual((await storage.read()).session, { accessToken: JWT, refreshToken: 'refresh-new', expiresAt: NOW + HOUR, lifetimeMs: HOUR, confirmed: true, user });
      assert.deepEqual(announced.map((a) => [a.type, a.state]), [['change', { signedIn: true, accessTokenExpiresAt: NOW + HOUR, cart: null, pendingWrites: 0 }]]);
    });
  }
});
