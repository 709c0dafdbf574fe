// Self-test of the spree-v3 flavour: node --test demo/storefront/storeApiV3.selftest.mjs
// Every rule of Spree 5's Store API the flavour reproduces (docs/servers.md), over real HTTP.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { startStorefront } from './server.mjs';

const STORE = '/api/v3/store';
const KEY = 'pk_test_storefront_auth';
const DEMO = { email: 'demo@example.com', password: 'spree123' };
const AUTH_REQUIRED = { error: { code: 'authentication_required', message: 'Authentication required' } };
const BAD_KEY = { error: { code: 'invalid_token', message: 'Valid API key required' } };
/** Limits high enough that only the rate-limit tests meet them. */
const ROOMY = { login: 1000, refresh: 1000, logout: 1000, register: 1000, passwordReset: 1000 };

function useStorefront(options = {}) {
  const box = /** @type {{ sf: import('./server.mjs').Storefront }} */ ({});
  before(async () => (box.sf = await startStorefront({ port: 0, flavour: 'spree-v3', rateLimits: ROOMY, ...options })));
  after(() => box.sf.close());
  return box;
}

/**
 * A Store API call: JSON body, the publishable key unless `key: null`, and optional bearer,
 * cart token, Idempotency-Key and other headers.
 */
async function store(sf, method, path, { body, key = KEY, jwt, cartToken, idempotencyKey, headers = {} } = {}) {
  const sent = { ...headers };
  if (key !== null) sent['X-Spree-Api-Key'] = key;
  if (body !== undefined) sent['Content-Type'] = 'application/json';
  if (jwt) sent.Authorization = `Bearer ${jwt}`;
  if (cartToken) sent['x-spree-token'] = cartToken;
  if (idempotencyKey) sent['Idempotency-Key'] = idempotencyKey;
  const response = await fetch(`${sf.apiUrl}${STORE}${path}`, { method, headers: sent, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await response.text();
  let json = text;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: response.status, headers: response.headers, body: json, text };
}

const login = async (sf, who = DEMO) => {
  const answer = await store(sf, 'POST', '/auth/login', { body: who });
  assert.equal(answer.status, 200, answer.text);
  return answer.body;
};
const refresh = (sf, refreshToken, options = {}) => store(sf, 'POST', '/auth/refresh', { body: { refresh_token: refreshToken }, ...options });
const me = (sf, jwt) => store(sf, 'GET', '/customers/me', { jwt });
const decode = (part) => JSON.parse(Buffer.from(part, 'base64url').toString());
/** An HS256 JWT signed with `secret`, for forged and tampered tokens. */
function sign(claims, secret) {
  const input = `${Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

describe('spree-v3: API key and error shapes', () => {
  const box = useStorefront();

  test('every route needs X-Spree-Api-Key; missing or bad: 401 invalid_token', async () => {
    const { sf } = box;
    for (const key of [null, 'pk_wrong']) {
      for (const [method, path, body] of [['GET', '/products'], ['POST', '/auth/login', DEMO], ['POST', '/carts'], ['POST', '/auth/logout', {}]]) {
        const answer = await store(sf, method, path, { key, body });
        assert.deepEqual([answer.status, answer.body], [401, BAD_KEY], `${method} ${path} with key ${key}`);
      }
    }
    const products = await store(sf, 'GET', '/products');
    assert.equal(products.status, 200);
    assert.match(products.headers.get('content-type'), /^application\/json/);
    assert.equal(products.body.data.length, 4);
    assert.match(products.body.data[0].id, /^prod_/);
    assert.match(products.body.data[0].default_variant.id, /^variant_/);
    assert.equal((await store(sf, 'GET', `/products/${products.body.data[1].slug}`)).body.id, products.body.data[1].id);
  });

  test('JWT-required routes check the JWT before the key: neither is authentication_required', async () => {
    const { sf } = box;
    for (const path of ['/customers/me', '/carts', '/customers/me/orders']) {
      const answer = await store(sf, 'GET', path, { key: null });
      assert.deepEqual([answer.status, answer.body], [401, AUTH_REQUIRED], path);
      assert.equal(answer.headers.get('www-authenticate'), null);
    }
    const { token } = await login(sf);
    assert.deepEqual((await store(sf, 'GET', '/customers/me', { key: null, jwt: token })).body, BAD_KEY, 'a JWT without the key');
  });

  test('errors: 400 invalid_request for bad JSON, 404 cart_not_found, order_not_found, record_not_found, 413 over 100 KB', async () => {
    const { sf } = box;
    const badJson = await store(sf, 'POST', '/auth/login', { body: '{"email":' });
    assert.equal(badJson.status, 400);
    assert.equal(badJson.body.error.code, 'invalid_request');
    assert.equal(typeof badJson.body.error.message, 'string');
    assert.deepEqual([(await store(sf, 'GET', '/carts/cart_nope')).status, (await store(sf, 'GET', '/carts/cart_nope')).body.error.code], [404, 'cart_not_found']);
    assert.deepEqual([(await store(sf, 'GET', '/orders/or_nope')).status, (await store(sf, 'GET', '/orders/or_nope')).body.error.code], [404, 'order_not_found']);
    for (const path of ['/products/nope', '/nothing-here']) {
      const answer = await store(sf, 'GET', path);
      assert.deepEqual([answer.status, answer.body.error.code], [404, 'record_not_found'], path);
    }
    const v2 = await fetch(`${sf.url}/api/v2/storefront/products`);
    assert.equal(v2.status, 404, 'no v2 API in this flavour');
    const large = await store(sf, 'POST', '/carts', { body: { metadata: { blob: 'x'.repeat(101 * 1024) } } });
    assert.deepEqual([large.status, large.body.error.code], [413, 'request_too_large']);
  });
});

describe('spree-v3: login, JWT and refresh', () => {
  const box = useStorefront({ jwtSecret: 'selftest-secret' });

  test('login: 200 {token, refresh_token, user}; 401 authentication_failed; 400 invalid_provider', async () => {
    const { sf } = box;
    const pair = await login(sf, { email: 'DEMO@example.com', password: 'spree123' });
    assert.deepEqual(Object.keys(pair).sort(), ['refresh_token', 'token', 'user']);
    assert.match(pair.user.id, /^cus_/);
    assert.deepEqual([pair.user.email, pair.user.first_name, pair.user.last_name, pair.user.full_name], ['demo@example.com', 'Demo', 'Shopper', 'Demo Shopper']);
    assert.ok(!('expires_in' in pair), 'no lifetime but the JWT exp');
    for (const [body, message] of [
      [{ email: DEMO.email, password: 'nope' }, 'Invalid email or password'],
      [{ email: 'nobody@example.com', password: 'x' }, 'Invalid email or password'],
      [{ password: 'x' }, 'Email is required'],
      [{ email: DEMO.email }, 'Password is required'],
    ]) {
      const answer = await store(sf, 'POST', '/auth/login', { body });
      assert.deepEqual([answer.status, answer.body], [401, { error: { code: 'authentication_failed', message } }]);
    }
    const provider = await store(sf, 'POST', '/auth/login', { body: { ...DEMO, provider: 'google' } });
    assert.deepEqual([provider.status, provider.body.error.code], [400, 'invalid_provider']);
    assert.equal((await store(sf, 'POST', '/auth/login', { body: { ...DEMO, provider: 'email' } })).status, 200);
  });

  test('login provider: a blank one ("", null, spaces) is email; an unknown one 400 "Unsupported authentication provider: …"', async () => {
    const { sf } = box;
    for (const provider of ['', null, '  ']) {
      assert.equal((await store(sf, 'POST', '/auth/login', { body: { ...DEMO, provider } })).status, 200, JSON.stringify(provider));
    }
    for (const provider of ['google', 'Email']) {
      const answer = await store(sf, 'POST', '/auth/login', { body: { ...DEMO, provider } });
      assert.deepEqual([answer.status, answer.body], [400, { error: { code: 'invalid_provider', message: `Unsupported authentication provider: ${provider}` } }]);
    }
  });

  test('JWT: HS256 over exactly user_id, user_type, jti, iss, aud, exp (no iat); lifetime 3600 s', async () => {
    const { sf } = box;
    const { token } = await login(sf);
    const [header, payload, signature] = token.split('.');
    assert.deepEqual(decode(header), { alg: 'HS256', typ: 'JWT' });
    const claims = decode(payload);
    assert.deepEqual(Object.keys(claims).sort(), ['aud', 'exp', 'iss', 'jti', 'user_id', 'user_type']);
    assert.deepEqual([claims.user_id, claims.user_type, claims.iss, claims.aud], [1, 'customer', 'spree', 'store_api']);
    assert.match(claims.jti, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.ok(Number.isInteger(claims.exp));
    const left = claims.exp - Date.now() / 1000;
    assert.ok(left > 3598 && left <= 3600, `exp ${left} s away`);
    assert.equal(signature, createHmac('sha256', 'selftest-secret').update(`${header}.${payload}`).digest('base64url'));
    assert.equal(sf.accessTokenLifetime, 3600);
    assert.equal((await me(sf, token)).status, 200);
  });

  test('the server checks signature, iss, aud and exp; a bad JWT is "no user": 401 where required, a guest where optional', async () => {
    const { sf } = box;
    const { token } = await login(sf);
    const claims = decode(token.split('.')[1]);
    const later = Math.floor(Date.now() / 1000) + 600;
    const bad = {
      'another secret': sign(claims, 'not-the-secret'),
      'tampered payload': `${token.split('.')[0]}.${Buffer.from(JSON.stringify({ ...claims, user_id: 2 })).toString('base64url')}.${token.split('.')[2]}`,
      'wrong iss': sign({ ...claims, iss: 'other' }, 'selftest-secret'),
      'wrong aud': sign({ ...claims, aud: 'admin_api' }, 'selftest-secret'),
      'exp now (no leeway)': sign({ ...claims, exp: Math.floor(Date.now() / 1000) }, 'selftest-secret'),
      'not a JWT': 'garbage',
    };
    assert.equal((await me(sf, sign({ ...claims, exp: later }, 'selftest-secret'))).status, 200, 'a well-signed forged token passes');
    for (const [what, jwt] of Object.entries(bad)) {
      const answer = await me(sf, jwt);
      assert.deepEqual([answer.status, answer.body], [401, AUTH_REQUIRED], what);
      assert.equal(answer.headers.get('www-authenticate'), null);
    }
    // Optional JWT: the user's own cart, with a bad JWT and no cart token, is refused as a guest would be.
    const cart = (await store(sf, 'POST', '/carts', { jwt: token })).body;
    assert.equal((await store(sf, 'GET', `/carts/${cart.id}`, { jwt: token })).status, 200);
    assert.equal((await store(sf, 'GET', `/carts/${cart.id}`, { jwt: bad['another secret'] })).status, 403);
    assert.equal((await store(sf, 'POST', '/carts', { jwt: bad['wrong aud'] })).body.customer_id, null, 'created as a guest');
  });

  test('Authorization: only the exact, case-sensitive "Bearer " prefix is read, and the last space-separated part is the JWT', async () => {
    const { sf } = box;
    const { token } = await login(sf);
    const meWith = (authorization) => store(sf, 'GET', '/customers/me', { headers: { Authorization: authorization } });
    for (const authorization of [`Bearer ${token}`, `Bearer  ${token}`, `Bearer junk ${token}`]) assert.equal((await meWith(authorization)).status, 200, authorization);
    for (const authorization of [`bearer ${token}`, `BEARER ${token}`, `Bearer\t${token}`, `Bearer ${token} junk`, `Token ${token}`]) {
      assert.deepEqual((await meWith(authorization)).body, AUTH_REQUIRED, authorization);
    }
  });

  test('a JWT without user_type is a customer, as any user_type but admin', async () => {
    const { sf } = box;
    const { token } = await login(sf);
    const { user_type: _type, ...claims } = decode(token.split('.')[1]);
    for (const jwt of [sign(claims, 'selftest-secret'), sign({ ...claims, user_type: null }, 'selftest-secret'), sign({ ...claims, user_type: 'shopper' }, 'selftest-secret')]) {
      const answer = await me(sf, jwt);
      assert.deepEqual([answer.status, answer.body.email], [200, DEMO.email]);
    }
    assert.deepEqual((await me(sf, sign({ ...claims, user_type: 'admin' }, 'selftest-secret'))).body, AUTH_REQUIRED, 'an admin is looked up among admin users, none here');
  });

  test('exp has no leeway: a 2 s JWT is refused once exp passes', async () => {
    const sf = await startStorefront({ port: 0, flavour: 'spree-v3', accessTokenLifetime: 2 });
    try {
      const { token } = await login(sf);
      const exp = decode(token.split('.')[1]).exp;
      assert.ok(exp - Date.now() / 1000 <= 2 && exp - Date.now() / 1000 > 0.9);
      assert.equal((await me(sf, token)).status, 200);
      await sleep(exp * 1000 - Date.now() + 20);
      assert.deepEqual((await me(sf, token)).body, AUTH_REQUIRED);
    } finally {
      await sf.close();
    }
  });

  test('refresh: strict rotation, the old token dies at once; 401 invalid_refresh_token for used, unknown, missing, revoked', async () => {
    const { sf } = box;
    sf.clearLog();
    const first = await login(sf);
    const rows = sf.v3.refreshTokens.size;
    assert.match(first.refresh_token, /^[1-9A-HJ-NP-Za-km-z]{24}$/, 'base58, 24 characters, no rt_ prefix');
    const second = await refresh(sf, first.refresh_token);
    assert.equal(second.status, 200);
    assert.deepEqual(Object.keys(second.body).sort(), ['refresh_token', 'token', 'user']);
    assert.notEqual(second.body.refresh_token, first.refresh_token);
    assert.notEqual(second.body.token, first.token);
    assert.deepEqual([sf.v3.refreshTokens.size, sf.v3.refreshTokens.has(first.refresh_token), sf.v3.refreshTokens.has(second.body.refresh_token)], [rows, false, true], 'the rotation destroyed the old row and created the one it answered, no other');
    const refused = { error: { code: 'invalid_refresh_token', message: 'Invalid or expired refresh token' } };
    const reused = await refresh(sf, first.refresh_token);
    assert.deepEqual([reused.status, reused.body], [401, refused], 'no grace');
    assert.equal((await refresh(sf, second.body.refresh_token)).status, 200, 'no family revocation after a reuse');
    assert.deepEqual((await refresh(sf, 'unknownunknownunknown123')).body, refused);
    const missing = await store(sf, 'POST', '/auth/refresh', { body: {} });
    assert.deepEqual([missing.status, missing.body], [401, { error: { code: 'invalid_refresh_token', message: 'refresh_token is required' } }]);
    assert.equal((await me(sf, first.token)).status, 200, 'the old JWT lives on until exp');

    const other = await login(sf);
    sf.revokeAllTokens();
    assert.equal((await refresh(sf, other.refresh_token)).status, 401, 'revoked');
    assert.equal((await me(sf, other.token)).status, 200, 'Spree cannot revoke a JWT');
    sf.expireAllAccessTokens();
    assert.equal((await me(sf, other.token)).status, 401, 'expireAllAccessTokens: every JWT so far counts as expired');

    const stats = sf.stats();
    assert.deepEqual(
      [stats.passwordGrants, stats.refreshGrants, stats.rotations, stats.refreshSuccesses, stats.refusedRefreshes, stats.invalidGrants, stats.tokenRequests],
      [2, 6, 2, 2, 4, 4, 8],
    );
  });

  test('login, refresh and logout ignore the Authorization header', async () => {
    const { sf } = box;
    const pair = await login(sf);
    const junk = { headers: { Authorization: 'Bearer not-a-jwt' } };
    assert.equal((await store(sf, 'POST', '/auth/login', { body: DEMO, ...junk })).status, 200);
    const rotated = await refresh(sf, pair.refresh_token, junk);
    assert.equal(rotated.status, 200);
    assert.equal((await store(sf, 'POST', '/auth/logout', { body: { refresh_token: rotated.body.refresh_token }, ...junk })).status, 204);
    sf.refuseEveryBearer(true);
    const before = sf.stats().refusedBearers;
    assert.equal((await store(sf, 'POST', '/auth/login', { body: DEMO, jwt: pair.token })).status, 200);
    assert.equal(sf.stats().refusedBearers, before, 'never read, so never refused');
    sf.refuseEveryBearer(false);
  });
});

describe('spree-v3: logout, registration, customers, password reset', () => {
  const box = useStorefront();

  test('logout: 204 with an empty body always; revokes that refresh token only, the JWT and other sessions stay', async () => {
    const { sf } = box;
    sf.clearLog();
    const one = await login(sf);
    const two = await login(sf);
    const out = await store(sf, 'POST', '/auth/logout', { body: { refresh_token: one.refresh_token } });
    assert.deepEqual([out.status, out.text], [204, '']);
    assert.equal((await refresh(sf, one.refresh_token)).status, 401);
    assert.equal((await me(sf, one.token)).status, 200);
    assert.equal((await refresh(sf, two.refresh_token)).status, 200);
    for (const body of [{ refresh_token: 'unknown' }, {}, undefined]) assert.equal((await store(sf, 'POST', '/auth/logout', { body })).status, 204);
    assert.deepEqual([sf.stats().revocations, sf.stats().revocationsIgnored], [4, 3]);
  });

  test('register: 201 {token, refresh_token, user}, signed in; 422 validation_error with details', async () => {
    const { sf } = box;
    const created = await store(sf, 'POST', '/customers', { body: { email: 'new@example.com', password: 'secret12', password_confirmation: 'secret12', first_name: 'New', last_name: 'Shopper' } });
    assert.equal(created.status, 201);
    assert.deepEqual(Object.keys(created.body).sort(), ['refresh_token', 'token', 'user']);
    assert.equal(created.body.user.email, 'new@example.com');
    assert.equal((await me(sf, created.body.token)).body.first_name, 'New');
    assert.equal((await login(sf, { email: 'new@example.com', password: 'secret12' })).user.id, created.body.user.id);

    const invalid = await store(sf, 'POST', '/customers', { body: { email: 'new@example.com', password: '123', password_confirmation: '456' } });
    assert.equal(invalid.status, 422);
    assert.equal(invalid.body.error.code, 'validation_error');
    assert.deepEqual(invalid.body.error.details, { email: ['has already been taken'], password: ['is too short (minimum is 6 characters)'], password_confirmation: ["doesn't match Password"] });
    assert.match(invalid.body.error.message, /Email has already been taken/);
  });

  test('GET/PATCH /customers/me: JWT required; current_password to change email or password; tokens survive', async () => {
    const { sf } = box;
    const pair = await login(sf, { email: 'shopper2@example.com', password: 'secret456' });
    const patched = await store(sf, 'PATCH', '/customers/me', { jwt: pair.token, body: { first_name: 'Ada' } });
    assert.deepEqual([patched.status, patched.body.first_name], [200, 'Ada']);
    assert.deepEqual((await store(sf, 'PATCH', '/customers/me', { body: { first_name: 'X' } })).body, AUTH_REQUIRED);
    const noCurrent = await store(sf, 'PATCH', '/customers/me', { jwt: pair.token, body: { password: 'another1' } });
    assert.deepEqual([noCurrent.status, noCurrent.body.error.code], [422, 'current_password_invalid']);
    const changed = await store(sf, 'PATCH', '/customers/me', { jwt: pair.token, body: { password: 'another1', password_confirmation: 'another1', current_password: 'secret456' } });
    assert.equal(changed.status, 200);
    assert.equal((await refresh(sf, pair.refresh_token)).status, 200, 'a password change does not revoke refresh tokens');
    assert.equal((await store(sf, 'POST', '/auth/login', { body: { email: 'shopper2@example.com', password: 'another1' } })).status, 200);
  });

  test('PATCH /password_resets/:token: 200 signed in, every refresh token of the user revoked; 422 password_reset_token_invalid', async () => {
    const { sf } = box;
    const one = await login(sf);
    const two = await login(sf);
    const token = sf.v3.passwordResetToken('demo@example.com');
    const wrong = await store(sf, 'PATCH', '/password_resets/nope', { body: { password: 'newpass1', password_confirmation: 'newpass1' } });
    assert.deepEqual([wrong.status, wrong.body.error.code], [422, 'password_reset_token_invalid']);
    const reset = await store(sf, 'PATCH', `/password_resets/${token}`, { body: { password: 'newpass1', password_confirmation: 'newpass1' } });
    assert.equal(reset.status, 200);
    assert.deepEqual(Object.keys(reset.body).sort(), ['refresh_token', 'token', 'user']);
    assert.equal((await refresh(sf, one.refresh_token)).status, 401);
    assert.equal((await refresh(sf, two.refresh_token)).status, 401);
    assert.equal((await refresh(sf, reset.body.refresh_token)).status, 200, 'the pair it answered survives');
    assert.equal((await store(sf, 'PATCH', `/password_resets/${token}`, { body: { password: 'newpass2', password_confirmation: 'newpass2' } })).status, 422, 'used once');
    assert.equal((await store(sf, 'POST', '/auth/login', { body: { email: DEMO.email, password: 'newpass1' } })).status, 200);
    const overHttp = await fetch(`${sf.url}/__control/password-reset-token`, { method: 'POST', body: JSON.stringify({ email: DEMO.email }) });
    assert.match((await overHttp.json()).token, /^[1-9A-HJ-NP-Za-km-z]{20}$/);
    assert.equal((await store(sf, 'POST', '/password_resets', { body: { email: DEMO.email } })).status, 202);
  });
});

describe('spree-v3: idempotency', () => {
  const box = useStorefront();

  test('a replay returns the kept answer with Idempotent-Replayed: true; another request under the key is 422', async () => {
    const { sf } = box;
    sf.clearLog();
    const first = await store(sf, 'POST', '/carts', { idempotencyKey: 'cart-1' });
    const again = await store(sf, 'POST', '/carts', { idempotencyKey: 'cart-1' });
    assert.deepEqual([again.status, again.text], [first.status, first.text]);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(first.headers.get('idempotent-replayed'), null);
    assert.notEqual((await store(sf, 'POST', '/carts')).body.id, first.body.id, 'without a key every call creates a cart');
    const reused = await store(sf, 'POST', '/carts', { idempotencyKey: 'cart-1', body: { email: 'x@example.com' } });
    assert.deepEqual([reused.status, reused.body.error.code], [422, 'idempotency_key_reused']);
    assert.equal((await store(sf, 'PATCH', `/carts/${first.body.id}`, { idempotencyKey: 'cart-1', cartToken: first.body.token })).status, 422, 'another method and path');
    assert.equal((await store(sf, 'POST', '/carts', { idempotencyKey: 'cart-1', key: null })).status, 401, 'the key check comes first');
    assert.equal((await store(sf, 'GET', '/products', { idempotencyKey: 'cart-1' })).status, 200, 'GET is not idempotency-checked');
    const tooLong = await store(sf, 'POST', '/carts', { idempotencyKey: 'k'.repeat(256) });
    assert.equal(tooLong.status, 400);
    assert.equal((await store(sf, 'POST', '/carts', { idempotencyKey: 'k'.repeat(255) })).status, 201);
    assert.equal(sf.stats().idempotentReplays, 1);
    assert.equal(sf.requests.find((entry) => entry.headers.idempotencyKey === 'cart-1' && entry.replayed)?.status, 201);
  });

  test('a retried refresh with the same key replays the first rotation; a new key after it is refused', async () => {
    const { sf } = box;
    sf.clearLog();
    const pair = await login(sf);
    const first = await refresh(sf, pair.refresh_token, { idempotencyKey: 'refresh-1' });
    const retry = await refresh(sf, pair.refresh_token, { idempotencyKey: 'refresh-1' });
    assert.deepEqual([retry.status, retry.body], [200, first.body]);
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assert.equal((await refresh(sf, pair.refresh_token, { idempotencyKey: 'refresh-2' })).status, 401);
    assert.equal((await refresh(sf, first.body.refresh_token)).status, 200);
    const stats = sf.stats();
    assert.deepEqual([stats.rotations, stats.idempotentReplays, stats.refusedRefreshes, stats.refreshGrants], [2, 1, 1, 4]);
  });

  test('an answer Spree raises (404 not found, 403 access denied) is not kept: the same key and request run again', async () => {
    const { sf } = box;
    const cart = (await store(sf, 'POST', '/carts')).body;
    const variant = (await store(sf, 'GET', '/products')).body.data[0].default_variant.id;
    const items = `/carts/${cart.id}/items`;
    const denied = await store(sf, 'POST', items, { idempotencyKey: 'raised-1', body: { variant_id: variant } });
    assert.equal(denied.status, 403);
    const added = await store(sf, 'POST', items, { idempotencyKey: 'raised-1', cartToken: cart.token, body: { variant_id: variant } });
    assert.deepEqual([added.status, added.headers.get('idempotent-replayed'), added.body.total_quantity], [201, null, 1], 'the 403 was not kept');
    const owned = (await store(sf, 'POST', '/carts', { jwt: (await login(sf)).token })).body;
    const other = (await login(sf, { email: 'shopper2@example.com', password: 'secret456' })).token;
    for (const [method, path, body, jwt] of [['POST', items, { variant_id: 'variant_nope' }], ['DELETE', `${items}/li_nope`], ['POST', '/carts/cart_nope/complete'], ['PATCH', `/carts/${owned.id}/associate`, undefined, other]]) {
      const options = { idempotencyKey: `raised-${method}-${path}`, cartToken: cart.token, body, jwt };
      const first = await store(sf, method, path, options);
      const again = await store(sf, method, path, options);
      assert.deepEqual([first.status, again.status, again.headers.get('idempotent-replayed')], [404, 404, null], `${method} ${path}`);
    }
    // A rendered error is kept, as any answer below 500 the action renders.
    const unknown = () => store(sf, 'POST', `/carts/${cart.id}/discount_codes`, { idempotencyKey: 'rendered-1', cartToken: cart.token, body: { code: 'NOPE' } });
    assert.equal((await unknown()).status, 422);
    assert.deepEqual([(await unknown()).headers.get('idempotent-replayed')], ['true']);
  });

  test('answers below 500 are kept, a 401 included; per publishable key', async () => {
    const { sf } = box;
    const refused = await refresh(sf, 'unknown', { idempotencyKey: 'refused-1' });
    const replayed = await refresh(sf, 'unknown', { idempotencyKey: 'refused-1' });
    assert.deepEqual([refused.status, replayed.status, replayed.headers.get('idempotent-replayed')], [401, 401, 'true']);
  });
});

describe('spree-v3: rate limits (after 38dc897)', () => {
  const box = useStorefront({ rateLimits: {} });
  const from = (ip) => ({ headers: { 'X-Forwarded-For': ip } });

  test('defaults: login 5, refresh 10, logout 10, register 3, password reset 3 per IP per 60 s', async () => {
    const { sf } = box;
    assert.deepEqual(sf.v3.rateLimits, { login: 5, refresh: 10, logout: 10, register: 3, passwordReset: 3, window: 60 });
    for (let i = 0; i < 5; i++) assert.equal((await store(sf, 'POST', '/auth/login', { body: DEMO, ...from('203.0.113.1') })).status, 200);
    const limited = await store(sf, 'POST', '/auth/login', { body: DEMO, ...from('203.0.113.1') });
    assert.deepEqual([limited.status, limited.body], [429, { error: { code: 'rate_limit_exceeded', message: 'Too many requests. Please retry later.' } }]);
    assert.deepEqual(['retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining'].map((name) => limited.headers.get(name)), ['60', '5', '0']);
    assert.equal((await store(sf, 'POST', '/auth/login', { body: DEMO, ...from('203.0.113.2') })).status, 200, 'per IP');
    assert.equal((await store(sf, 'POST', '/auth/logout', { body: {}, ...from('203.0.113.1') })).status, 204, 'a separate counter');
    for (let i = 0; i < 10; i++) await refresh(sf, 'x', from('203.0.113.1'));
    assert.equal((await refresh(sf, 'x', from('203.0.113.1'))).status, 429);
    for (let i = 0; i < 9; i++) await store(sf, 'POST', '/auth/logout', { body: {}, ...from('203.0.113.1') });
    assert.equal((await store(sf, 'POST', '/auth/logout', { body: {}, ...from('203.0.113.1') })).status, 429);
    const register = (i) => store(sf, 'POST', '/customers', { body: { email: `r${i}@example.com`, password: 'secret12' }, ...from('203.0.113.3') });
    for (let i = 0; i < 3; i++) assert.equal((await register(i)).status, 201);
    assert.equal((await register(3)).headers.get('x-ratelimit-limit'), '3');
    const resetCall = () => store(sf, 'PATCH', '/password_resets/nope', { body: { password: 'newpass1' }, ...from('203.0.113.3') });
    for (let i = 0; i < 3; i++) assert.equal((await resetCall()).status, 422);
    assert.equal((await resetCall()).status, 429);
    assert.equal(sf.stats().rateLimited, 5);
    assert.equal((await store(sf, 'GET', '/products', from('203.0.113.1'))).headers.get('x-ratelimit-limit'), null, 'no headers before the limit');
  });

  test('setRateLimits and the window: a short window lifts the limit; Retry-After follows the window', async () => {
    const { sf } = box;
    sf.v3.setRateLimits({ login: 1, window: 1 });
    assert.equal((await store(sf, 'POST', '/auth/login', { body: DEMO })).status, 200);
    const limited = await store(sf, 'POST', '/auth/login', { body: DEMO });
    assert.deepEqual([limited.status, limited.headers.get('retry-after')], [429, '1']);
    await sleep(1050);
    assert.equal((await store(sf, 'POST', '/auth/login', { body: DEMO })).status, 200);
    const overHttp = await fetch(`${sf.url}/__control/rate-limits`, { method: 'POST', body: JSON.stringify({ login: 2, window: 60 }) });
    assert.equal((await overHttp.json()).rateLimits.login, 2);
    assert.equal((await fetch(`${sf.url}/__control/rate-limits`, { method: 'POST', body: '{"nope":1}' })).status, 400);
    assert.throws(() => sf.v3.setRateLimits({ refresh: 0 }), TypeError);
  });

  test('forceRefreshRateLimit: the next N refreshes are 429 with the Retry-After given, then refreshes work', async () => {
    const { sf } = box;
    sf.v3.setRateLimits({ refresh: 1000 });
    const pair = await login(sf, DEMO);
    sf.clearLog();
    sf.v3.forceRefreshRateLimit({ times: 2, retryAfter: 2 });
    for (let i = 0; i < 2; i++) {
      const limited = await refresh(sf, pair.refresh_token);
      assert.deepEqual([limited.status, limited.headers.get('retry-after'), limited.headers.get('x-ratelimit-limit')], [429, '2', '1000']);
    }
    assert.equal((await refresh(sf, pair.refresh_token)).status, 200, 'the token was not spent by a 429');
    assert.deepEqual([sf.stats().rateLimited, sf.stats().rotations], [2, 1]);
  });

  test('forceRefreshRateLimit for a time, over HTTP; a 429 is kept under its Idempotency-Key', async () => {
    const { sf } = box;
    const pair = await login(sf, DEMO);
    assert.equal((await fetch(`${sf.url}/__control/force-refresh-429`, { method: 'POST', body: JSON.stringify({ forMs: 300, retryAfter: 1 }) })).status, 200);
    assert.equal((await refresh(sf, pair.refresh_token, { idempotencyKey: 'limited-1' })).status, 429);
    assert.equal((await refresh(sf, pair.refresh_token)).status, 429);
    await sleep(350);
    const replayed = await refresh(sf, pair.refresh_token, { idempotencyKey: 'limited-1' });
    assert.deepEqual([replayed.status, replayed.headers.get('idempotent-replayed')], [429, 'true'], 'why a client must not reuse a key after a 429');
    assert.equal((await refresh(sf, pair.refresh_token, { idempotencyKey: 'limited-2' })).status, 200);
  });
});

describe('spree-v3: carts and orders', () => {
  const box = useStorefront();

  test('POST /carts: 201 Cart with id cart_…, number R…, a 35-character token; a new cart every call', async () => {
    const { sf } = box;
    const created = await store(sf, 'POST', '/carts');
    assert.equal(created.status, 201);
    const cart = created.body;
    assert.match(cart.id, /^cart_[0-9A-Za-z]+$/);
    assert.match(cart.number, /^R\d{9}$/);
    assert.match(cart.token, /^[1-9A-HJ-NP-Za-km-z]{35}$/);
    assert.deepEqual([cart.state, cart.total_quantity, cart.items, cart.total, cart.email], ['cart', 0, [], '0.00', null]);
    assert.notEqual((await store(sf, 'POST', '/carts')).body.id, cart.id);
    const variant = (await store(sf, 'GET', '/products')).body.data[0].default_variant.id;
    const withItems = await store(sf, 'POST', '/carts', { body: { email: 'g@example.com', items: [{ variant_id: variant, quantity: 2 }] } });
    assert.deepEqual([withItems.body.total_quantity, withItems.body.email], [2, 'g@example.com']);
  });

  test('guest token or owner JWT; x-spree-token in any case; wrong or missing: 403 access_denied; paths use the id, never number', async () => {
    const { sf } = box;
    const cart = (await store(sf, 'POST', '/carts')).body;
    const variant = (await store(sf, 'GET', '/products')).body.data[1].default_variant.id;
    assert.equal((await store(sf, 'GET', `/carts/${cart.id}`, { headers: { 'X-SPREE-TOKEN': cart.token } })).status, 200);
    for (const cartToken of [undefined, 'wrong']) {
      const answer = await store(sf, 'GET', `/carts/${cart.id}`, { cartToken });
      assert.equal(answer.status, 403);
      assert.equal(answer.body.error.code, 'access_denied');
    }
    assert.equal((await store(sf, 'GET', `/carts/${cart.number}`, { cartToken: cart.token })).status, 404, 'not by number');
    assert.equal((await store(sf, 'GET', `/carts/${cart.id.replace('cart_', 'or_')}`, { cartToken: cart.token })).status, 200, 'the prefix is ignored');

    const added = await store(sf, 'POST', `/carts/${cart.id}/items`, { cartToken: cart.token, body: { variant_id: variant, quantity: 1 } });
    assert.deepEqual([added.status, added.body.total_quantity, added.body.token], [201, 1, cart.token], 'Cart answers carry the token');
    const item = added.body.items[0].id;
    assert.equal((await store(sf, 'PATCH', `/carts/${cart.id}/items/${item}`, { cartToken: cart.token, body: { quantity: 3 } })).body.total_quantity, 3);
    assert.equal((await store(sf, 'PATCH', `/carts/${cart.id}/items/${item}`, { body: { quantity: 3 } })).status, 403);
    assert.equal((await store(sf, 'PATCH', `/carts/${cart.id}`, { cartToken: cart.token, body: { email: 'guest@example.com' } })).body.email, 'guest@example.com');

    const user = await login(sf);
    const owned = (await store(sf, 'POST', '/carts', { jwt: user.token })).body;
    assert.equal(owned.email, DEMO.email);
    assert.equal((await store(sf, 'GET', `/carts/${owned.id}`, { jwt: user.token })).status, 200, 'the owner JWT is enough');
    assert.equal((await store(sf, 'GET', `/carts/${owned.id}`, { cartToken: owned.token })).status, 200, 'the token opens a user cart too');
    assert.equal((await store(sf, 'GET', `/carts/${cart.id}`, { jwt: user.token })).status, 403, "another's cart with a JWT only");
    const mine = await store(sf, 'GET', '/carts', { jwt: user.token });
    assert.deepEqual([mine.status, mine.body.data.map((entry) => entry.id), mine.body.meta.count], [200, [owned.id], 1]);

    const removed = await store(sf, 'DELETE', `/carts/${cart.id}/items/${item}`, { cartToken: cart.token });
    assert.equal(removed.body.total_quantity, 0);
    assert.equal((await store(sf, 'DELETE', `/carts/${owned.id}`, { jwt: user.token })).status, 204);
    assert.equal((await store(sf, 'GET', `/carts/${owned.id}`, { jwt: user.token })).status, 404);
  });

  test('discount codes: POST 201 applies SAVE10 (10 % off in promo_total and total), DELETE 200 removes it; unknown or unapplied codes 422 processing_error', async () => {
    const { sf } = box;
    const variant = (await store(sf, 'GET', '/products')).body.data[3].default_variant.id;
    const cart = (await store(sf, 'POST', '/carts', { body: { items: [{ variant_id: variant, quantity: 1 }] } })).body;
    const applied = await store(sf, 'POST', `/carts/${cart.id}/discount_codes`, { cartToken: cart.token, body: { code: 'save10' } });
    assert.deepEqual([applied.status, applied.body.item_total, applied.body.promo_total, applied.body.total, applied.body.token], [201, '49.99', '-5.00', '44.99', cart.token]);
    const unknown = await store(sf, 'POST', `/carts/${cart.id}/discount_codes`, { cartToken: cart.token, body: { code: 'NOPE' } });
    const notFound = { error: { code: 'processing_error', message: "The coupon code you entered doesn't exist. Please try again." } };
    assert.deepEqual([unknown.status, unknown.body], [422, notFound], 'render_errors(String): the code is inferred');
    assert.equal((await store(sf, 'POST', `/carts/${cart.id}/discount_codes`, { body: { code: 'SAVE10' } })).status, 403);
    const removed = await store(sf, 'DELETE', `/carts/${cart.id}/discount_codes/SAVE10`, { cartToken: cart.token });
    assert.deepEqual([removed.status, removed.body.total], [200, '49.99']);
    const unapplied = await store(sf, 'DELETE', `/carts/${cart.id}/discount_codes/SAVE10`, { cartToken: cart.token });
    assert.deepEqual([unapplied.status, unapplied.body], [422, notFound], 'the same message as an unknown code');
  });

  test('an item write whose answer is dropped after it was applied is replayed from its key, not applied again', async () => {
    const { sf } = box;
    const variant = (await store(sf, 'GET', '/products')).body.data[0].default_variant.id;
    const cart = (await store(sf, 'POST', '/carts')).body;
    sf.override('POST', `${STORE}/carts/${cart.id}/items`, { drop: true, passThrough: true });
    const write = () => store(sf, 'POST', `/carts/${cart.id}/items`, { cartToken: cart.token, idempotencyKey: 'item-1', body: { variant_id: variant, quantity: 2 } });
    await assert.rejects(write());
    const again = await write();
    assert.deepEqual([again.status, again.headers.get('idempotent-replayed'), again.body.total_quantity], [201, 'true', 2]);
    assert.equal((await store(sf, 'GET', `/carts/${cart.id}`, { cartToken: cart.token })).body.total_quantity, 2);
  });

  test('complete: 200 Order without token; then the cart is 404 except complete repeated; GET /orders/:id by token or owner JWT', async () => {
    const { sf } = box;
    const user = await login(sf);
    const guest = (await store(sf, 'POST', '/carts')).body;
    const done = await store(sf, 'POST', `/carts/${guest.id}/complete`, { cartToken: guest.token });
    assert.equal(done.status, 200);
    assert.match(done.body.id, /^or_/);
    assert.equal(done.body.state, 'complete');
    assert.ok(!('token' in done.body), 'OrderSerializer has no token');
    assert.equal((await store(sf, 'GET', `/carts/${guest.id}`, { cartToken: guest.token })).status, 404);
    assert.equal((await store(sf, 'POST', `/carts/${guest.id}/items`, { cartToken: guest.token, body: { variant_id: 'variant_x' } })).status, 404);
    const repeated = await store(sf, 'POST', `/carts/${guest.id}/complete`, { cartToken: guest.token });
    assert.deepEqual([repeated.status, repeated.body.id], [200, done.body.id]);

    const order = await store(sf, 'GET', `/orders/${done.body.id}`, { cartToken: guest.token });
    assert.deepEqual([order.status, 'token' in order.body], [200, false]);
    const byJwt = await store(sf, 'GET', `/orders/${done.body.id}`, { jwt: user.token, cartToken: guest.token });
    assert.deepEqual([byJwt.status, byJwt.body.error.code], [404, 'order_not_found'], 'with a JWT only the user’s own orders');

    const owned = (await store(sf, 'POST', '/carts', { jwt: user.token })).body;
    const ownedOrder = (await store(sf, 'POST', `/carts/${owned.id}/complete`, { jwt: user.token })).body;
    assert.equal((await store(sf, 'GET', `/orders/${ownedOrder.id}`, { jwt: user.token })).status, 200);
    assert.equal((await store(sf, 'GET', `/orders/${owned.id}`, { jwt: user.token })).status, 200, 'by cart id too');
    const orders = await store(sf, 'GET', '/customers/me/orders', { jwt: user.token });
    assert.deepEqual(orders.body.data.map((entry) => entry.id), [ownedOrder.id]);
    assert.ok(orders.body.data.every((entry) => !('token' in entry)));
    assert.equal((await store(sf, 'GET', `/orders/${(await store(sf, 'POST', '/carts')).body.id}`)).status, 404, 'an incomplete order is not an order');
  });

  test('GET /orders/:id as a guest: a missing or wrong x-spree-token finds no order, 404 order_not_found (never 403)', async () => {
    const { sf } = box;
    const guest = (await store(sf, 'POST', '/carts')).body;
    const done = (await store(sf, 'POST', `/carts/${guest.id}/complete`, { cartToken: guest.token })).body;
    const notFound = { error: { code: 'order_not_found', message: 'Order not found' } };
    for (const cartToken of [undefined, 'wrong']) {
      const answer = await store(sf, 'GET', `/orders/${done.id}`, { cartToken });
      assert.deepEqual([answer.status, answer.body], [404, notFound], `token ${cartToken}`);
    }
    assert.equal((await store(sf, 'GET', `/orders/${done.id}`, { cartToken: guest.token })).status, 200);
  });

  test('associate: JWT and matching x-spree-token; 401 without JWT, 403 without or with a wrong token, 404 another user’s or completed', async () => {
    const { sf } = box;
    const user = await login(sf);
    const other = await login(sf, { email: 'shopper2@example.com', password: 'secret456' });
    const guest = (await store(sf, 'POST', '/carts')).body;
    const path = `/carts/${guest.id}/associate`;
    assert.deepEqual((await store(sf, 'PATCH', path, { cartToken: guest.token })).body, AUTH_REQUIRED);
    assert.deepEqual((await store(sf, 'PATCH', path, { cartToken: guest.token, key: null })).body, AUTH_REQUIRED, 'JWT before key');
    assert.equal((await store(sf, 'PATCH', path, { jwt: user.token })).status, 403);
    assert.equal((await store(sf, 'PATCH', path, { jwt: user.token, cartToken: 'wrong' })).status, 403);
    const associated = await store(sf, 'PATCH', path, { jwt: user.token, cartToken: guest.token });
    assert.equal(associated.status, 200);
    assert.deepEqual([associated.body.id, associated.body.token, associated.body.email, associated.body.customer_id], [guest.id, guest.token, DEMO.email, user.user.id]);
    assert.deepEqual((await store(sf, 'PATCH', path, { jwt: other.token, cartToken: guest.token })).body.error.code, 'cart_not_found');
    assert.equal((await store(sf, 'PATCH', path, { jwt: user.token, cartToken: guest.token })).status, 200, 'again by the owner');
    await store(sf, 'POST', `/carts/${guest.id}/complete`, { jwt: user.token });
    assert.equal((await store(sf, 'PATCH', path, { jwt: user.token, cartToken: guest.token })).status, 404, 'completed');
  });
  test('an unknown variant is 404 variant_not_found (looked up before the quantity), an unknown line item 404 line_item_not_found', async () => {
    const { sf } = box;
    const cart = (await store(sf, 'POST', '/carts')).body;
    const items = `/carts/${cart.id}/items`;
    const variantNotFound = { error: { code: 'variant_not_found', message: 'Variant not found' } };
    for (const body of [{ variant_id: 'variant_nope' }, {}, { variant_id: 'variant_nope', quantity: 0 }]) {
      const answer = await store(sf, 'POST', items, { cartToken: cart.token, body });
      assert.deepEqual([answer.status, answer.body], [404, variantNotFound], JSON.stringify(body));
    }
    const lineItemNotFound = { error: { code: 'line_item_not_found', message: 'Line item not found' } };
    for (const method of ['PATCH', 'DELETE']) {
      const answer = await store(sf, method, `${items}/li_nope`, { cartToken: cart.token, body: method === 'PATCH' ? { quantity: 2 } : undefined });
      assert.deepEqual([answer.status, answer.body], [404, lineItemNotFound], method);
    }
  });

  test('associate finds the cart among the guest carts and the caller’s own first: another user’s cart is 404 whatever the token', async () => {
    const { sf } = box;
    const owner = await login(sf);
    const other = await login(sf, { email: 'shopper2@example.com', password: 'secret456' });
    const cart = (await store(sf, 'POST', '/carts', { jwt: owner.token })).body;
    const notFound = { error: { code: 'cart_not_found', message: 'Cart not found' } };
    for (const cartToken of [undefined, 'wrong', cart.token]) {
      const answer = await store(sf, 'PATCH', `/carts/${cart.id}/associate`, { jwt: other.token, cartToken });
      assert.deepEqual([answer.status, answer.body], [404, notFound], `token ${cartToken}`);
    }
    assert.equal((await store(sf, 'PATCH', `/carts/${cart.id}/associate`, { jwt: owner.token, cartToken: 'wrong' })).status, 403, 'the owner still needs the token');
  });
});

describe('spree-v3: CORS, basePath, the request log and the test knobs', () => {
  const box = useStorefront({ basePath: '/shop', publishableKey: 'pk_custom' });

  test('CORS: the preflight allows the Store API headers; responses expose Retry-After, X-RateLimit-*, Idempotent-Replayed and Date; no cookies', async () => {
    const { sf } = box;
    const origin = 'http://localhost:9999';
    const preflight = await fetch(`${sf.apiUrl}${STORE}/auth/refresh`, { method: 'OPTIONS', headers: { Origin: origin, 'Access-Control-Request-Method': 'POST' } });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), origin);
    const allowed = preflight.headers.get('access-control-allow-headers').split(', ').map((name) => name.toLowerCase());
    for (const name of ['content-type', 'x-spree-api-key', 'authorization', 'x-spree-token', 'idempotency-key', 'x-spree-locale', 'x-spree-currency', 'x-spree-country', 'x-spree-channel']) assert.ok(allowed.includes(name), name);
    const answer = await store(sf, 'POST', '/carts', { key: 'pk_custom', headers: { Origin: origin } });
    assert.equal(answer.status, 201);
    assert.equal(answer.headers.get('access-control-expose-headers'), 'Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, Idempotent-Replayed, Date');
    assert.equal(answer.headers.get('set-cookie'), null);
    assert.equal(answer.headers.get('access-control-allow-credentials'), null);
  });

  test('basePath and publishableKey: the API lives under {basePath}/api/v3/store and takes the configured key only', async () => {
    const { sf } = box;
    assert.equal(sf.apiUrl, `${sf.url}/shop`);
    assert.equal((await fetch(`${sf.url}${STORE}/products`, { headers: { 'X-Spree-Api-Key': 'pk_custom' } })).status, 404);
    assert.equal((await store(sf, 'GET', '/products', { key: 'pk_custom' })).status, 200);
    assert.equal((await store(sf, 'GET', '/products')).status, 401, 'the default key is not this one');
    assert.deepEqual((await (await fetch(`${sf.url}/__control/v3`)).json()).publishableKey, 'pk_custom');
  });

  test('the log records method, path, query, X-Spree-Api-Key, Authorization, x-spree-token, Idempotency-Key and the refresh_token', async () => {
    const { sf } = box;
    const pair = (await store(sf, 'POST', '/auth/login', { key: 'pk_custom', body: DEMO })).body;
    sf.clearLog();
    await store(sf, 'POST', '/auth/refresh', { key: 'pk_custom', body: { refresh_token: pair.refresh_token }, idempotencyKey: 'log-1', jwt: pair.token });
    await store(sf, 'GET', '/carts/cart_x?include=line_items', { key: 'pk_custom', cartToken: 'ct' });
    const [refreshed, cart] = sf.requests;
    assert.deepEqual(
      [refreshed.method, refreshed.path, refreshed.headers.apiKey, refreshed.headers.authorization, refreshed.headers.idempotencyKey, refreshed.refreshToken, refreshed.status],
      ['POST', `${STORE}/auth/refresh`, 'pk_custom', `Bearer ${pair.token}`, 'log-1', pair.refresh_token, 200],
    );
    assert.deepEqual([cart.path, cart.search, cart.headers.orderToken, cart.refreshToken], [`${STORE}/carts/cart_x`, '?include=line_items', 'ct', undefined]);
    const panel = (await (await fetch(`${sf.url}/__control/requests`)).json()).requests;
    assert.deepEqual(panel.map((entry) => entry.headers), [['Authorization'], ['x-spree-token']]);
  });

  test('dropRefreshAnswers: the refresh rotates, the socket closes unanswered; the same key replays the rotation', async () => {
    const { sf } = box;
    const pair = (await store(sf, 'POST', '/auth/login', { key: 'pk_custom', body: DEMO })).body;
    sf.clearLog();
    sf.v3.dropRefreshAnswers(1);
    await assert.rejects(store(sf, 'POST', '/auth/refresh', { key: 'pk_custom', body: { refresh_token: pair.refresh_token }, idempotencyKey: 'drop-1' }));
    assert.equal(sf.requests.at(-1).dropped, true);
    const retried = await store(sf, 'POST', '/auth/refresh', { key: 'pk_custom', body: { refresh_token: pair.refresh_token }, idempotencyKey: 'drop-1' });
    assert.deepEqual([retried.status, retried.headers.get('idempotent-replayed')], [200, 'true']);
    assert.equal((await store(sf, 'POST', '/auth/refresh', { key: 'pk_custom', body: { refresh_token: pair.refresh_token } })).status, 401, 'it did rotate');
    const latest = await store(sf, 'POST', '/auth/refresh', { key: 'pk_custom', body: { refresh_token: retried.body.refresh_token } });
    assert.equal(latest.status, 200);
    const stats = sf.stats();
    assert.deepEqual(
      [stats.refreshGrants, stats.rotations, stats.droppedAnswers, stats.idempotentReplays, stats.refusedRefreshes, stats.refreshSuccesses],
      [4, 2, 1, 1, 1, 1],
    );
    assert.equal((await fetch(`${sf.url}/__control/drop-refresh-answers`, { method: 'POST', body: '{"times":1}' })).status, 200);
    const raw = await new Promise((resolve) => {
      const request = http.request(`${sf.apiUrl}${STORE}/auth/refresh`, { method: 'POST', headers: { 'X-Spree-Api-Key': 'pk_custom', 'Content-Type': 'application/json' } });
      request.on('error', (error) => resolve(error.code));
      request.on('response', () => resolve('answered'));
      request.end(JSON.stringify({ refresh_token: latest.body.refresh_token }));
    });
    assert.equal(raw, 'ECONNRESET');
  });

  test('delayRefreshAnswers: the refresh rotates at once and answers later; the same key meanwhile replays the rotation', async () => {
    const { sf } = box;
    const pair = (await store(sf, 'POST', '/auth/login', { key: 'pk_custom', body: DEMO })).body;
    sf.clearLog();
    sf.v3.delayRefreshAnswers({ ms: 600 });
    const started = Date.now();
    const late = store(sf, 'POST', '/auth/refresh', { key: 'pk_custom', body: { refresh_token: pair.refresh_token }, idempotencyKey: 'late-1' });
    await sleep(100);
    assert.equal(sf.v3.refreshTokens.has(pair.refresh_token), false, 'rotated before answering');
    const replayed = await store(sf, 'POST', '/auth/refresh', { key: 'pk_custom', body: { refresh_token: pair.refresh_token }, idempotencyKey: 'late-1' });
    assert.deepEqual([replayed.status, replayed.headers.get('idempotent-replayed')], [200, 'true']);
    assert.ok(Date.now() - started < 600, 'the replay does not wait for the late answer');
    const first = await late;
    assert.ok(Date.now() - started >= 600, 'answered late');
    assert.deepEqual([first.status, first.body.refresh_token], [200, replayed.body.refresh_token]);
    assert.equal((await refresh(sf, first.body.refresh_token, { key: 'pk_custom' })).status, 200, 'only once: the next refresh answers at once');
    assert.deepEqual([sf.stats().rotations, sf.stats().idempotentReplays], [2, 1]);
    assert.equal((await fetch(`${sf.url}/__control/delay-refresh-answers`, { method: 'POST', body: '{"ms":-1}' })).status, 400);
    assert.equal((await fetch(`${sf.url}/__control/delay-refresh-answers`, { method: 'POST', body: '{"ms":10,"times":0}' })).status, 200);
  });

  test('refuseEveryBearer: every bearer counts as no user (401 where required, a guest where optional); stats over HTTP', async () => {
    const { sf } = box;
    const pair = (await store(sf, 'POST', '/auth/login', { key: 'pk_custom', body: DEMO })).body;
    sf.clearLog();
    sf.refuseEveryBearer(true);
    assert.deepEqual((await store(sf, 'GET', '/customers/me', { key: 'pk_custom', jwt: pair.token })).body, AUTH_REQUIRED);
    assert.equal((await store(sf, 'POST', '/carts', { key: 'pk_custom', jwt: pair.token })).body.customer_id, null);
    sf.refuseEveryBearer(false);
    assert.equal((await store(sf, 'GET', '/customers/me', { key: 'pk_custom', jwt: pair.token })).status, 200);
    const stats = await (await fetch(`${sf.url}/__control/stats`)).json();
    assert.deepEqual([stats.refusedBearers, stats.requests], [2, 3]);
  });

  test('overrides apply to Store API paths (without basePath)', async () => {
    const { sf } = box;
    sf.override('POST', `${STORE}/auth/refresh`, { status: 503, body: { error: { code: 'unavailable', message: 'down' } } });
    const answer = await store(sf, 'POST', '/auth/refresh', { key: 'pk_custom', body: { refresh_token: 'x' } });
    assert.equal(answer.status, 503);
    assert.match(answer.headers.get('content-type'), /^application\/json/);
  });
});

describe('spree-v3: a server clock 65 minutes behind (clockOffset)', () => {
  const box = useStorefront({ clockOffset: -65 * 60 });

  test("Date and the JWT's exp read the server's clock, and its own JWTs are good by it", async () => {
    const { sf } = box;
    const answer = await store(sf, 'POST', '/auth/login', { body: DEMO });
    const date = Date.parse(answer.headers.get('date'));
    assert.ok(Math.abs(date - (Date.now() - 65 * 60_000)) < 2_000, answer.headers.get('date'));
    const exp = decode(answer.body.token.split('.')[1]).exp;
    assert.ok(Math.abs(exp * 1000 - (date + 3_600_000)) <= 1_000, 'an hour from the Date');
    assert.ok(exp * 1000 < Date.now(), "already past by the machine's clock");
    assert.equal((await me(sf, answer.body.token)).status, 200, 'good by the server clock');
    assert.equal((await refresh(sf, answer.body.refresh_token)).status, 200);
  });

  test('refuses a clockOffset that is no number', async () => {
    await assert.rejects(startStorefront({ flavour: 'spree-v3', clockOffset: Number.NaN }), /clockOffset/);
  });
});

describe('spree-v3: options', () => {
  test('unknown flavours and rate limits are refused; the other flavours keep their defaults', async () => {
    await assert.rejects(startStorefront({ flavour: 'spree-v4' }), /'store', 'spree' or 'spree-v3'/);
    await assert.rejects(startStorefront({ flavour: 'spree-v3', rateLimits: { checkout: 1 } }), /Unknown rate limit checkout/);
    const sf = await startStorefront({ port: 0 });
    try {
      assert.equal(sf.accessTokenLifetime, 7200);
      assert.equal(sf.v3, null);
    } finally {
      await sf.close();
    }
  });
});
