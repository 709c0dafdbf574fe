// spree-v3 and Spree 5.4's `POST /api/v3/store/auth/oauth/callback` (docs/servers.md, "Spree 5.4.0
// differs from 5.6.1"), which answers as login does (`{ token, refresh_token, user }`): a page's own
// call through it is a token grant, its pair reaches the page sealed and signs the worker in, a guest
// cart held is assigned to the shopper; on 5.6, where the route is a 404, nothing is kept.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { spreeV3 } from '../src/sw/dialects/spreeV3.js';
import { isUnderPrefix } from '../src/sw/requestRules.js';
import { staticRoutes } from '../src/sw/staticRoutes.js';
import { storeApiJwt } from './fakes.js';
import { BASE, routedWorker } from './workerHarness.js';

const NOW = 1_700_000_000_000;
const HOUR = 3_600_000;
const OPTIONS = { preset: 'spree-v3', publishableKey: 'pk_test' } as const;
const JWT = storeApiJwt(NOW / 1000 + 3600);
const CALLBACK = '/api/v3/store/auth/oauth/callback';
const CART = { id: 'cart_1', token: 'cart-real-0123456789abcdefghijklmnopq', number: 'R100' };
const USER = { id: 'cus_1', email: 'shopper@example.com' };
const NOBODY: Credentials = { cart: null, session: null, backoff: null };
// Spree 5.4's email provider signs in with a password, social login configured or not.
const EMAIL_BODY = '{"provider":"email","email":"shopper@example.com","password":"pw"}';
const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};
const callback = (): Request => new Request(`${BASE}${CALLBACK}`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Spree-Api-Key': 'pk_test' }, body: EMAIL_BODY });

describe('spree-v3: Spree 5.4’s OAuth callback', () => {
  const v3 = spreeV3('pk_test');
  const channel = globalThis.BroadcastChannel;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  });
  after(() => {
    globalThis.BroadcastChannel = channel;
  });

  it('is a token grant when POSTed, and nothing else on its path or beside it', () => {
    assert.equal(v3.classify(CALLBACK, 'POST'), 'tokenGrant');
    for (const [method, path] of [['GET', CALLBACK], ['POST', `${CALLBACK}/x`], ['POST', `${CALLBACK}x`], ['POST', '/api/v3/store/auth/oauth']]) {
      assert.equal(v3.classify(path!, method!), null, `${method} ${path}`);
    }
  });

  it('is under a route prefix, so the static routes send it to the fetch handler', () => {
    assert.ok(v3.routePrefixes.some((prefix) => isUnderPrefix(CALLBACK, prefix)));
    const rules = staticRoutes({ origin: 'https://shop.example', path: '' }, v3.routePrefixes);
    const storefront = rules.find((rule) => rule.source === 'fetch-event')?.condition.or ?? [];
    assert.ok(storefront.some((condition) => typeof condition.urlPattern === 'object' && condition.urlPattern.pathname === CALLBACK));
  });

  it('its token response reaches the page with sealed:access and sealed:refresh, and signs the worker in', async () => {
    const { announced, calls, settled, storage, through } = routedWorker(OPTIONS, NOBODY, { [`POST ${CALLBACK}`]: () => Response.json({ token: JWT, refresh_token: 'refresh-new', user: USER }) }, () => NOW);
    await settle();
    const response = await through(callback());
    await settled();
    assert.ok(response !== null, 'handled, not left to the browser');
    const text = await response.text();
    assert.ok(!text.includes(JWT) && !text.includes('refresh-new'), text);
    assert.deepEqual(JSON.parse(text), { token: 'sealed:access', refresh_token: 'sealed:refresh', user: USER });
    assert.equal(await calls[0]?.body, EMAIL_BODY, 'the body goes out as the page wrote it');
    assert.equal(calls[0]?.request.headers.get('Authorization'), null);
    assert.deepEqual((await storage.read()).session, { accessToken: JWT, refreshToken: 'refresh-new', expiresAt: NOW + HOUR, lifetimeMs: HOUR, confirmed: true, user: USER });
    assert.deepEqual(announced.map((a) => [a.type, a.state]), [['change', { signedIn: true, accessTokenExpiresAt: NOW + HOUR, cart: null, pendingWrites: 0 }]]);
  });

  it('a guest cart held is assigned to the shopper, as after a login', async () => {
    const { calls, settled, storage, through } = routedWorker(OPTIONS, { cart: CART, session: null, backoff: null }, {
      [`POST ${CALLBACK}`]: () => Response.json({ token: JWT, refresh_token: 'refresh-new', user: USER }),
      'PATCH /api/v3/store/carts/cart_1/associate': () => Response.json({ id: 'cart_1', number: 'R100', token: CART.token, email: USER.email }),
    }, () => NOW);
    await settle();
    await through(callback());
    await settled();
    assert.deepEqual(calls.map((call) => call.route), [`POST ${CALLBACK}`, 'PATCH /api/v3/store/carts/cart_1/associate']);
    assert.equal(calls[1]?.request.headers.get('Authorization'), `Bearer ${JWT}`);
    assert.equal(calls[1]?.request.headers.get('x-spree-token'), CART.token);
    const held = await storage.read();
    assert.deepEqual(held.cart, CART);
    assert.equal(held.session?.accessToken, JWT);
  });

  it('Spree 5.6 has no such route: its 404 reaches the page, and nothing is kept or sent besides', async () => {
    const missing = { error: { code: 'record_not_found', message: 'Not found' } };
    const { calls, settled, storage, through } = routedWorker(OPTIONS, { cart: CART, session: null, backoff: null }, { [`POST ${CALLBACK}`]: () => Response.json(missing, { status: 404 }) }, () => NOW);
    await settle();
    const response = await through(callback());
    await settled();
    assert.equal(response?.status, 404);
    assert.deepEqual(await response?.json(), missing);
    assert.deepEqual(calls.map((call) => call.route), [`POST ${CALLBACK}`]);
    assert.deepEqual(await storage.read(), { cart: CART, session: null, backoff: null });
  });
});
