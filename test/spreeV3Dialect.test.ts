// The spree-v3 dialect (docs/behaviour.md, "The spree-v3 preset"; docs/servers.md, "Spree 5's Store
// API"): its grant bodies and headers, how it reads and judges token responses (a JWT's `exp` is
// the only lifetime), its flat cart documents, its path table, the page bodies it reads for
// placeholders, and the credential table it gives the generic rules (requestRules.ts), pure
// functions of plain values.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isStorefrontAuthError } from '../src/shared/errors.js';
import type { Dialect, PageBody, RequestKind, WireRequest } from '../src/sw/dialect.js';
import { spree } from '../src/sw/dialects/spree.js';
import { judgeTokenReply, readTokenBody, readV3Cart, spreeV3 } from '../src/sw/dialects/spreeV3.js';
import { store } from '../src/sw/dialects/store.js';
import { resolveOptions } from '../src/sw/options.js';
import { classifyRequest, credentialFor, decideRequest, type Decision, type HeldCredentials, type PageHeaders } from '../src/sw/requestRules.js';
import type { Session } from '../src/sw/tokenResponse.js';
import { storeApiJwt } from './fakes.js';

const KEY = 'pk_test_123';
const NOW = 1_700_000_000_000;
const EXP = NOW / 1000 + 3600;
const JWT = storeApiJwt(EXP);
const REFRESH = 'rFrEsH5ecReT0000000000ab';
const CART_TOKEN = 'cArT-t0ken-0123456789abcdefghijklmnop';
const USER = { id: 'cus_1', email: 'shopper@example.com', first_name: 'Ada', last_name: 'L' };
const PASSWORD = 'hunter2-SECRET';
const v3 = spreeV3(KEY);
const JSON_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json', 'X-Spree-Api-Key': KEY };

/** The token response of login, refresh, registration and a password reset (docs/servers.md, "Signing in"). */
function tokenBody(more: Record<string, unknown> = {}): Record<string, unknown> {
  return { token: JWT, refresh_token: REFRESH, user: USER, ...more };
}

/** The session `tokenBody()` gives, received at NOW. */
const SESSION: Session = { accessToken: JWT, refreshToken: REFRESH, expiresAt: EXP * 1000, lifetimeMs: EXP * 1000 - NOW, confirmed: true, user: USER };

/** A reply as outbound.ts hands it to the dialect. */
function reply(status: number, body: unknown): { status: number; text: string; receivedAt: number } {
  return { status, text: typeof body === 'string' ? body : JSON.stringify(body), receivedAt: NOW };
}

/** Expects `fn` to throw a StorefrontAuthError with `code` and `status`. */
function throwsWith(fn: () => unknown, code: string, status: number): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(isStorefrontAuthError(error), String(error));
    assert.equal(error.code, code, error.message);
    assert.equal(error.status, status);
    assert.ok(!error.message.includes(REFRESH) && !error.message.includes(JWT), error.message);
    return true;
  });
}

/** Asserts a wire request's label names none of `secrets`. */
function labelHoldsNo(wire: WireRequest, ...secrets: string[]): void {
  for (const secret of secrets) assert.ok(!wire.label.includes(secret), `${wire.label} holds ${secret}`);
}

describe('spree-v3: the worker’s own requests', () => {
  it('login: POST /api/v3/store/auth/login with { email, password } as JSON and the key', () => {
    const wire = v3.passwordGrant('shopper@example.com', PASSWORD);
    assert.deepEqual(wire, {
      method: 'POST',
      path: '/api/v3/store/auth/login',
      label: '/api/v3/store/auth/login',
      headers: JSON_HEADERS,
      body: JSON.stringify({ email: 'shopper@example.com', password: PASSWORD }),
    });
    labelHoldsNo(wire, PASSWORD, 'shopper@example.com');
  });

  it('refresh: POST /api/v3/store/auth/refresh with { refresh_token } and the rotation’s Idempotency-Key', () => {
    const wire = v3.refreshGrant(REFRESH, 'key-1');
    assert.deepEqual(wire, {
      method: 'POST',
      path: '/api/v3/store/auth/refresh',
      label: '/api/v3/store/auth/refresh',
      headers: { ...JSON_HEADERS, 'Idempotency-Key': 'key-1' },
      body: JSON.stringify({ refresh_token: REFRESH }),
    });
    assert.equal(v3.refreshGrant(REFRESH, 'key-2').headers['Idempotency-Key'], 'key-2');
    labelHoldsNo(wire, REFRESH, 'key-1');
  });

  it('logout: one POST /api/v3/store/auth/logout with the refresh token only (a JWT cannot be revoked)', () => {
    const wires = v3.revoke({ accessToken: JWT, refreshToken: REFRESH });
    assert.deepEqual(wires, [{ method: 'POST', path: '/api/v3/store/auth/logout', label: '/api/v3/store/auth/logout', headers: JSON_HEADERS, body: JSON.stringify({ refresh_token: REFRESH }) }]);
    assert.ok(!JSON.stringify(wires).includes(JWT), 'the access token is not sent');
    assert.equal(v3.touchAfterRefresh, null, 'no expired-pair dance: Spree revokes a refresh token whatever the JWT');
  });

  it('createCart: POST /api/v3/store/carts with the key and no body', () => {
    const wire = v3.createCart();
    assert.deepEqual(wire, { method: 'POST', path: '/api/v3/store/carts', label: '/api/v3/store/carts', headers: JSON_HEADERS });
    assert.ok(!('body' in wire));
  });

  it('associate: PATCH /api/v3/store/carts/{id}/associate with the bearer, x-spree-token and the key, and no body', () => {
    const wire = v3.associate({ id: 'cart_Abc1', token: CART_TOKEN, number: 'R123' }, JWT);
    assert.deepEqual(wire, {
      method: 'PATCH',
      path: '/api/v3/store/carts/cart_Abc1/associate',
      label: '/api/v3/store/carts/…/associate',
      headers: { ...JSON_HEADERS, Authorization: `Bearer ${JWT}`, 'x-spree-token': CART_TOKEN },
    });
    assert.ok(wire !== null && !('body' in wire));
    labelHoldsNo(wire, CART_TOKEN, JWT);
    assert.equal(v3.associate({ id: 'cart/1?x', token: CART_TOKEN, number: 'R1' }, JWT)?.path, '/api/v3/store/carts/cart%2F1%3Fx/associate', 'the id is one path segment');
  });

  it('associate: null for a cart without an id (nothing to put in the path)', () => {
    assert.equal(v3.associate({ token: CART_TOKEN, number: 'R123' }, JWT), null);
  });

  it('sends the key it was made with, and each dialect its own', () => {
    assert.equal(spreeV3('pk_other').passwordGrant('a', 'b').headers['X-Spree-Api-Key'], 'pk_other');
    assert.equal(v3.passwordGrant('a', 'b').headers['X-Spree-Api-Key'], KEY);
  });
});

describe('spree-v3: token responses', () => {
  it('readTokenBody: the JWT’s exp is the expiry, the lifetime counts from arrival, and the user is kept', () => {
    assert.deepEqual(readTokenBody(tokenBody(), NOW), SESSION);
    assert.deepEqual(v3.readTokenBody(tokenBody(), NOW - 60_000), { ...SESSION, lifetimeMs: EXP * 1000 - NOW + 60_000 });
  });

  describe("the lifetime is exp minus the answer's Date: a device clock off by any amount changes nothing", () => {
    // The server's clock at NOW wrote Date and exp (an hour ahead); the device's clock reads `skew` more.
    const DATE = NOW - 400; // Date counts whole seconds: the server's clock read NOW
    for (const [what, skew] of [['65 minutes ahead', 65 * 60_000], ['65 minutes behind', -65 * 60_000], ['a day ahead', 86_400_000], ['2 hours ahead (past the JWT)', 2 * 3_600_000]] as const) {
      it(`a device clock ${what}: kept, an hour less at most a second, on the device's clock`, () => {
        const receivedAt = NOW + skew;
        const session = readTokenBody(tokenBody(), receivedAt, DATE);
        assert.ok(session !== null, 'kept');
        // exp less the end of the second Date names: the lifetime is never longer than the server's.
        assert.equal(session.lifetimeMs, EXP * 1000 - (DATE + 1_000));
        assert.ok(session.lifetimeMs <= EXP * 1000 - NOW && session.lifetimeMs > EXP * 1000 - NOW - 1_000);
        assert.equal(session.expiresAt, receivedAt + session.lifetimeMs);
        const judged = judgeTokenReply({ ...reply(200, tokenBody()), receivedAt, serverDate: DATE }, 'password');
        assert.deepEqual(judged, session);
      });
    }

    it("a device clock that agrees with Date keeps its own finer reading: the expiry is exp itself", () => {
      assert.deepEqual(readTokenBody(tokenBody(), NOW, DATE), SESSION);
      assert.deepEqual(readTokenBody(tokenBody(), NOW + 1_200, DATE), { ...SESSION, lifetimeMs: EXP * 1000 - NOW - 1_200 });
    });

    it('without a Date the device clock serves: 65 minutes ahead, the JWT has expired on arrival', () => {
      assert.equal(readTokenBody(tokenBody(), NOW + 65 * 60_000), null);
      assert.equal(readTokenBody(tokenBody(), NOW + 65 * 60_000, null), null);
      throwsWith(() => judgeTokenReply({ ...reply(200, tokenBody()), receivedAt: NOW + 65 * 60_000 }, 'password'), 'bad_response', 200);
    });

    it('a JWT the server already counts as expired by its own clock is refused whatever the device clock says', () => {
      const expired = tokenBody({ token: storeApiJwt(NOW / 1000) });
      for (const receivedAt of [NOW, NOW - 65 * 60_000, NOW + 65 * 60_000]) assert.equal(readTokenBody(expired, receivedAt, DATE), null, String(receivedAt));
    });
  });

  it('readTokenBody: no user, or one that is no object, is left out', () => {
    const { user: _user, ...withoutUser } = SESSION;
    assert.deepEqual(readTokenBody(tokenBody({ user: undefined }), NOW), withoutUser);
    assert.deepEqual(readTokenBody(tokenBody({ user: 'cus_1' }), NOW), withoutUser);
  });

  for (const [what, body] of [
    ['a token that is no JWT', tokenBody({ token: 'opaque-access-token' })],
    ['a JWT without exp', tokenBody({ token: storeApiJwt(null, '{"user_id":1}') })],
    ['a JWT whose exp is past the last time a Date holds (1e306)', tokenBody({ token: storeApiJwt(1e306) })],
    ['a JWT whose exp is past the last time a Date holds (1e13)', tokenBody({ token: storeApiJwt(1e13) })],
    ['no refresh_token', tokenBody({ refresh_token: undefined })],
    ['an empty refresh_token', tokenBody({ refresh_token: '' })],
    ['no token', tokenBody({ token: undefined })],
    ['v2’s shape', { access_token: JWT, refresh_token: REFRESH, token_type: 'Bearer', expires_in: 3600 }],
    ['an array', [tokenBody()]],
    ['null', null],
  ] as const) {
    it(`readTokenBody: null for ${what}; judgeTokenReply: bad_response`, () => {
      assert.equal(readTokenBody(body, NOW), null);
      throwsWith(() => judgeTokenReply(reply(200, body), 'password'), 'bad_response', 200);
      throwsWith(() => v3.judgeTokenReply(reply(200, body), 'refresh'), 'bad_response', 200);
    });
  }

  // Spree replays a rotation's first answer under its key for 24 h: a retry after the JWT's hour
  // gets that JWT, expired, with the only live refresh token, which the refresher spends at once.
  for (const [what, exp] of [['an exp at the arrival', NOW / 1000], ['an exp before the arrival', NOW / 1000 - 3600]] as const) {
    it(`${what}: null and bad_response for a login, but a refresh keeps the pair, due at once`, () => {
      const body = tokenBody({ token: storeApiJwt(exp) });
      assert.equal(readTokenBody(body, NOW), null);
      throwsWith(() => v3.judgeTokenReply(reply(200, body), 'password'), 'bad_response', 200);
      assert.deepEqual(v3.judgeTokenReply(reply(200, body), 'refresh'), { ...SESSION, accessToken: storeApiJwt(exp), expiresAt: exp * 1000, lifetimeMs: 0 });
    });
  }

  it('judgeTokenReply: a body that is not JSON is bad_response', () => {
    throwsWith(() => judgeTokenReply(reply(200, '<html>shop</html>'), 'password'), 'bad_response', 200);
    throwsWith(() => judgeTokenReply(reply(200, ''), 'refresh'), 'bad_response', 200);
  });

  it('judgeTokenReply: 200 (login, refresh) and 201 (registration) sign in', () => {
    assert.deepEqual(judgeTokenReply(reply(200, tokenBody()), 'password'), SESSION);
    assert.deepEqual(judgeTokenReply(reply(200, tokenBody()), 'refresh'), SESSION);
    assert.deepEqual(judgeTokenReply(reply(201, tokenBody()), 'password'), SESSION);
  });

  /** Spree's error shape (docs/servers.md, "Every request"). */
  const error = (code: string, message = 'x') => ({ error: { code, message } });

  it('judgeTokenReply: 401 authentication_failed refuses the password grant: invalid_grant, status 401', () => {
    throwsWith(() => judgeTokenReply(reply(401, error('authentication_failed', 'Invalid email or password')), 'password'), 'invalid_grant', 401);
  });

  it('judgeTokenReply: 401 invalid_refresh_token refuses the refresh: invalid_grant, status 401', () => {
    throwsWith(() => judgeTokenReply(reply(401, error('invalid_refresh_token', 'Invalid or expired refresh token')), 'refresh'), 'invalid_grant', 401);
  });

  it('judgeTokenReply: 429 is a failure to retry (network_error, status 429), not a refusal', () => {
    throwsWith(() => judgeTokenReply(reply(429, error('rate_limit_exceeded')), 'refresh'), 'network_error', 429);
    throwsWith(() => judgeTokenReply(reply(429, ''), 'password'), 'network_error', 429);
  });

  it('judgeTokenReply: 400 and 422 are invalid_request', () => {
    throwsWith(() => judgeTokenReply(reply(400, error('invalid_provider')), 'password'), 'invalid_request', 400);
    throwsWith(() => judgeTokenReply(reply(422, error('idempotency_key_reused')), 'refresh'), 'invalid_request', 422);
  });

  it('judgeTokenReply: a refused publishable key (401 invalid_token) is bad_response, not a wrong password', () => {
    throwsWith(() => judgeTokenReply(reply(401, error('invalid_token', 'Valid API key required')), 'password'), 'bad_response', 401);
    throwsWith(() => judgeTokenReply(reply(401, error('invalid_token', 'Valid API key required')), 'refresh'), 'bad_response', 401);
  });

  it('judgeTokenReply: a 401 without a refusal code, v2’s refusal, and a 5xx are bad_response with their status', () => {
    throwsWith(() => judgeTokenReply(reply(401, ''), 'refresh'), 'bad_response', 401);
    throwsWith(() => judgeTokenReply(reply(400, { error: 'invalid_grant' }), 'refresh'), 'invalid_request', 400);
    throwsWith(() => judgeTokenReply(reply(500, '<html>500</html>'), 'refresh'), 'bad_response', 500);
    throwsWith(() => judgeTokenReply(reply(503, error('service_unavailable')), 'password'), 'bad_response', 503);
  });

  it('sealedTokenBody: the Store API’s shape with placeholders, and the user kept', () => {
    assert.deepEqual(v3.sealedTokenBody(SESSION, NOW), { token: 'sealed:access', refresh_token: 'sealed:refresh', user: USER });
    const { user: _user, ...withoutUser } = SESSION;
    assert.deepEqual(v3.sealedTokenBody(withoutUser, NOW), { token: 'sealed:access', refresh_token: 'sealed:refresh', user: null });
    assert.ok(!JSON.stringify(v3.sealedTokenBody(SESSION, NOW)).includes(REFRESH));
  });

  it('refusedRefresh and revocationAnswer: what Spree answers (401 invalid_refresh_token; logout 204, no body)', () => {
    assert.deepEqual(v3.refusedRefresh, { status: 401, body: { error: { code: 'invalid_refresh_token', message: 'Invalid or expired refresh token' } } });
    assert.deepEqual(v3.revocationAnswer, { status: 204, body: null });
    assert.deepEqual(v3.tokenFields, { access: 'token', refresh: 'refresh_token' });
  });
});

describe('spree-v3: cart documents', () => {
  const CART = { id: 'cart_Abc1', number: 'R123', token: CART_TOKEN, item_count: 0 };

  it('readV3Cart: a flat { id, number, token } document', () => {
    assert.deepEqual(readV3Cart(CART), { id: 'cart_Abc1', token: CART_TOKEN, number: 'R123' });
    assert.deepEqual(v3.readCart(CART), readV3Cart(CART));
  });

  for (const field of ['id', 'token', 'number'] as const) {
    it(`readV3Cart: null without ${field}, or with it empty or no string`, () => {
      for (const value of [undefined, '', 42, null]) assert.equal(readV3Cart({ ...CART, [field]: value }), null, `${field}: ${String(value)}`);
    });
  }

  it('readV3Cart: null for v2’s JSON:API document and for what is no object', () => {
    assert.equal(readV3Cart({ data: { id: '1', attributes: { number: 'R1', token: CART_TOKEN } } }), null);
    for (const body of [null, undefined, 'cart', [CART]]) assert.equal(readV3Cart(body), null);
  });

  it('names its cart token field, header and (no) query', () => {
    assert.equal(v3.cartTokenField, 'token');
    assert.equal(v3.cartTokenHeader, 'x-spree-token');
    assert.equal(v3.cartTokenQuery, null);
  });
});

describe('spree-v3: the path table', () => {
  const P = '/api/v3/store';
  const rows: [method: string, path: string, kind: RequestKind | null][] = [
    // Creation; GET lists the user's carts (JWT required).
    ['POST', `${P}/carts`, 'cartCreate'],
    ['GET', `${P}/carts`, 'account'],
    // A cart and its children; a completed order.
    ['GET', `${P}/carts/cart_1`, 'cartOrCheckout'],
    ['PATCH', `${P}/carts/cart_1`, 'cartOrCheckout'],
    ['DELETE', `${P}/carts/cart_1`, 'cartOrCheckout'],
    ['POST', `${P}/carts/cart_1/items`, 'cartOrCheckout'],
    ['PATCH', `${P}/carts/cart_1/items/li_1`, 'cartOrCheckout'],
    ['POST', `${P}/carts/cart_1/complete`, 'cartOrCheckout'],
    ['PATCH', `${P}/carts/cart_1/associate`, 'cartOrCheckout'],
    ['GET', `${P}/orders/or_1`, 'cartOrCheckout'],
    // The account.
    ['GET', `${P}/customers/me`, 'account'],
    ['PATCH', `${P}/customers/me`, 'account'],
    ['GET', `${P}/customers/me/orders`, 'account'],
    ['GET', `${P}/wishlists`, 'account'],
    ['POST', `${P}/wishlists/wl_1/items`, 'account'],
    // Token responses: login, refresh, registration, a password reset.
    ['POST', `${P}/auth/login`, 'tokenGrant'],
    ['POST', `${P}/auth/refresh`, 'tokenGrant'],
    // Spree 5.4's OAuth callback answers as login does.
    ['POST', `${P}/auth/oauth/callback`, 'tokenGrant'],
    ['POST', `${P}/customers`, 'tokenGrant'],
    ['PATCH', `${P}/password_resets/reset-token-1`, 'tokenGrant'],
    ['POST', `${P}/auth/logout`, 'revocation'],
    // Untouched.
    ['GET', `${P}/cartsx`, null],
    ['POST', `${P}/cartsx`, null],
    ['GET', `${P}/ordersx/1`, null],
    ['GET', `${P}/products`, null],
    ['GET', `${P}/categories/c_1`, null],
    ['GET', `${P}/markets`, null],
    ['GET', `${P}/auth/login`, null],
    ['GET', `${P}/auth/refresh`, null],
    ['GET', `${P}/auth/logout`, null],
    ['GET', `${P}/auth/oauth/callback`, null],
    ['POST', `${P}/auth/oauth`, null],
    ['POST', `${P}/auth/loginx`, null],
    ['POST', `${P}/auth`, null],
    ['PATCH', `${P}/password_resets`, null],
    ['POST', `${P}/password_resets`, null],
    ['GET', `${P}/password_resets/reset-token-1`, null],
    ['GET', `${P}/customers`, null],
    ['PATCH', `${P}/customers`, null],
    ['GET', `${P}/customers/meow`, null],
    ['GET', `${P}/customers/cus_1`, null],
    ['GET', `${P}/wishlistsx`, null],
    ['GET', '/api/v2/storefront/cart', null],
    ['POST', '/spree_oauth/token', null],
    ['GET', '/api/v3/storex/carts', null],
  ];
  for (const [method, path, kind] of rows) {
    it(`${method} ${path} → ${String(kind)}`, () => assert.equal(v3.classify(path, method), kind));
  }

  it('names a route prefix for every path it classifies', () => {
    for (const [method, path, kind] of rows) {
      if (kind !== null) assert.ok(v3.routePrefixes.some((prefix) => path === prefix || path.startsWith(`${prefix}/`)), `${method} ${path}`);
    }
  });
});

describe('spree-v3: page bodies', () => {
  const body = (path: string, text: string, contentType: string | null = 'application/json'): PageBody => ({ path, contentType, text });

  it('pageRefreshToken: the refresh_token of a JSON body on the refresh path only', () => {
    const text = JSON.stringify({ refresh_token: 'sealed:refresh' });
    assert.equal(v3.pageRefreshToken(body('/api/v3/store/auth/refresh', text)), 'sealed:refresh');
    assert.equal(v3.pageRefreshToken(body('/api/v3/store/auth/refresh', text, null)), 'sealed:refresh');
    for (const path of ['/api/v3/store/auth/login', '/api/v3/store/auth/logout', '/api/v3/store/customers', '/api/v3/store/password_resets/t']) {
      assert.equal(v3.pageRefreshToken(body(path, text)), null, path);
    }
  });

  it('pageRefreshToken: null for a body without a string refresh_token, or not JSON', () => {
    const path = '/api/v3/store/auth/refresh';
    for (const text of ['{}', '{"refresh_token":""}', '{"refresh_token":42}', 'refresh_token=sealed%3Arefresh', '', '["sealed:refresh"]']) {
      assert.equal(v3.pageRefreshToken(body(path, text)), null, text);
    }
  });

  it('pageRevokedToken: the refresh_token of a logout body, else none', () => {
    assert.equal(v3.pageRevokedToken(body('/api/v3/store/auth/logout', '{"refresh_token":"sealed:refresh"}')), 'sealed:refresh');
    assert.equal(v3.pageRevokedToken(body('/api/v3/store/auth/logout', `{"refresh_token":"${REFRESH}"}`)), REFRESH);
    for (const text of ['', '{}', '{"token":"sealed:access"}', 'refresh_token=sealed%3Arefresh', 'null']) {
      assert.equal(v3.pageRevokedToken(body('/api/v3/store/auth/logout', text)), null, text);
    }
  });
});

describe('spree-v3: the credential table (requestRules.ts with this dialect)', () => {
  const BASE = 'https://api.shop.example/shop';
  const options = resolveOptions({ baseUrl: BASE, preset: 'spree-v3', publishableKey: KEY }, 'https://shop.example/storefront-auth-sw.js');
  const NONE: PageHeaders = { authorization: false, orderToken: false };
  const GUEST: HeldCredentials = { signedIn: false, hasCart: false };
  const GUEST_CART: HeldCredentials = { signedIn: false, hasCart: true };
  const USER_CART: HeldCredentials = { signedIn: true, hasCart: true };
  const USER_ONLY: HeldCredentials = { signedIn: true, hasCart: false };

  /** The decision for `method path` under the base, as the request path makes it. */
  function decide(method: string, path: string, held: HeldCredentials, page = NONE): Decision | null {
    const kind = classifyRequest(new URL(`${BASE}${path}`), method, options);
    return kind === null ? null : decideRequest(kind, held, page, options.dialect.cartTokenWithBearer);
  }

  const cartCall = '/api/v3/store/carts/cart_1/items';

  it('uses the spree-v3 dialect, which sends both credentials on a signed-in cart call', () => {
    assert.equal(options.dialect.name, 'spree-v3');
    assert.equal(options.dialect.cartTokenWithBearer, true);
  });

  it('a cart call: the guest’s order token; signed in with a cart, bearer and order token; without one, the bearer', () => {
    for (const path of [cartCall, '/api/v3/store/carts/cart_1', '/api/v3/store/orders/or_1']) {
      assert.deepEqual(decide('POST', path, GUEST_CART), { kind: 'cartOrCheckout', credential: 'orderToken', capture: null }, path);
      assert.deepEqual(decide('POST', path, USER_CART), { kind: 'cartOrCheckout', credential: 'bearer+orderToken', capture: null }, path);
      assert.deepEqual(decide('POST', path, USER_ONLY), { kind: 'cartOrCheckout', credential: 'bearer', capture: null }, path);
      assert.equal(decide('POST', path, GUEST), null, path);
    }
  });

  it('a cart call keeps the page’s own credential: its bearer wins outright, its cart token leaves the bearer alone', () => {
    assert.equal(decide('GET', cartCall, USER_CART, { authorization: true, orderToken: false }), null);
    assert.equal(decide('GET', cartCall, USER_CART, { authorization: true, orderToken: true }), null);
    assert.deepEqual(decide('GET', cartCall, USER_CART, { authorization: false, orderToken: true }), { kind: 'cartOrCheckout', credential: 'bearer', capture: null });
    assert.equal(decide('GET', cartCall, GUEST_CART, { authorization: false, orderToken: true }), null);
  });

  it('cart creation: nothing for a guest, the bearer when signed in (never the old cart’s token), and the cart is kept', () => {
    assert.deepEqual(decide('POST', '/api/v3/store/carts', GUEST_CART), { kind: 'cartCreate', credential: null, capture: 'cart' });
    assert.deepEqual(decide('POST', '/api/v3/store/carts', USER_CART), { kind: 'cartCreate', credential: 'bearer', capture: 'cart' });
  });

  it('the user’s carts, account and wishlists: the bearer, or nothing for a guest', () => {
    for (const [method, path] of [['GET', '/api/v3/store/carts'], ['GET', '/api/v3/store/customers/me'], ['PATCH', '/api/v3/store/customers/me'], ['GET', '/api/v3/store/wishlists/wl_1']]) {
      assert.deepEqual(decide(method as string, path as string, USER_CART), { kind: 'account', credential: 'bearer', capture: null }, path);
      assert.deepEqual(decide(method as string, path as string, USER_ONLY), { kind: 'account', credential: 'bearer', capture: null }, path);
      assert.equal(decide(method as string, path as string, GUEST_CART), null, path);
    }
  });

  it('login, refresh, registration and a password reset: no credential, and the pair is kept', () => {
    for (const [method, path] of [['POST', '/api/v3/store/auth/login'], ['POST', '/api/v3/store/auth/refresh'], ['POST', '/api/v3/store/customers'], ['PATCH', '/api/v3/store/password_resets/t1']] as const) {
      for (const held of [GUEST, GUEST_CART, USER_CART]) assert.deepEqual(decide(method, path, held), { kind: 'tokenGrant', credential: null, capture: 'token' }, `${path} ${JSON.stringify(held)}`);
    }
  });

  it('logout: a revocation, with no credential, but still handled (a page’s own may be the worker’s logout)', () => {
    for (const held of [GUEST, GUEST_CART, USER_CART, USER_ONLY]) {
      assert.deepEqual(decide('POST', '/api/v3/store/auth/logout', held), { kind: 'revocation', credential: null, capture: null });
    }
  });

  it('products and everything else: untouched', () => {
    for (const path of ['/api/v3/store/products', '/api/v3/store/products/p_1', '/api/v3/store/categories', '/api/v3/store/countries']) {
      assert.equal(classifyRequest(new URL(`${BASE}${path}`), 'GET', options), null, path);
      assert.equal(decide('GET', path, USER_CART), null, path);
    }
    // Outside the base path, the Store API's own paths are someone else's.
    assert.equal(classifyRequest(new URL('https://api.shop.example/api/v3/store/carts/cart_1'), 'GET', options), null);
  });
});

describe('the v2 presets never send both credentials', () => {
  const kinds: RequestKind[] = ['cartCreate', 'cartOrCheckout', 'account', 'tokenGrant', 'revocation'];
  const flags = [false, true];
  for (const dialect of [store, spree] as Dialect[]) {
    it(`${dialect.name}: a signed-in cart call gets the bearer alone, whatever is held and sent`, () => {
      assert.equal(dialect.cartTokenWithBearer, false);
      for (const kind of kinds) {
        for (const signedIn of flags) {
          for (const hasCart of flags) {
            for (const authorization of flags) {
              for (const orderToken of flags) {
                const held = { signedIn, hasCart };
                const page = { authorization, orderToken };
                assert.notEqual(credentialFor(kind, held, page, dialect.cartTokenWithBearer), 'bearer+orderToken');
                assert.notEqual(decideRequest(kind, held, page, dialect.cartTokenWithBearer)?.credential, 'bearer+orderToken');
              }
            }
          }
        }
      }
      assert.equal(credentialFor('cartOrCheckout', { signedIn: true, hasCart: true }, { authorization: false, orderToken: false }, dialect.cartTokenWithBearer), 'bearer');
    });
  }
});
