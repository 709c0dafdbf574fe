// Self-test of the reference storefront: node --test demo/storefront/server.selftest.mjs
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startStorefront } from './server.mjs';

const API = '/api/v2/storefront';
const INVALID_GRANT =
  'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.';

/** Starts a storefront for one describe block and closes it afterwards. */
function useStorefront(options = {}) {
  const box = /** @type {{ sf: import('./server.mjs').Storefront }} */ ({});
  before(async () => (box.sf = await startStorefront({ port: 0, ...options })));
  after(() => box.sf.close());
  return box;
}

/** fetch, returning status, headers and parsed JSON (or text). */
async function call(url, init = {}) {
  const response = await fetch(url, init);
  const text = await response.text();
  let body = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: response.status, headers: response.headers, body };
}

const form = (fields) => ({ method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
const bearer = (token) => ({ headers: { Authorization: `Bearer ${token}` } });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function passwordGrant(sf, tokenPath = '/store_oauth/token') {
  const answer = await call(sf.url + tokenPath, form({ grant_type: 'password', ...sf.user }));
  assert.equal(answer.status, 200);
  return answer.body;
}
const refresh = (sf, refreshToken) => call(`${sf.url}/store_oauth/token`, form({ grant_type: 'refresh_token', refresh_token: refreshToken }));
const account = (sf, token) => call(`${sf.url}${API}/account`, token ? bearer(token) : {});

describe('carts', () => {
  const box = useStorefront();
  test('guest cart: 201, sparse fields, token opens GET cart, 404 without', async () => {
    const { sf } = box;
    const created = await call(`${sf.url}${API}/cart?fields%5Bcart%5D=number%2Ctoken`, { method: 'POST', headers: { 'Content-Type': 'application/vnd.api+json' } });
    assert.equal(created.status, 201);
    assert.match(created.headers.get('content-type'), /^application\/vnd\.api\+json/);
    assert.deepEqual(Object.keys(created.body.data.attributes).sort(), ['number', 'token']);
    assert.equal(created.body.data.type, 'cart');
    assert.deepEqual(created.body.data.relationships, {});
    const { number, token } = created.body.data.attributes;
    assert.match(number, /^R\d{9}$/);
    assert.match(token, /^[A-Za-z0-9_-]{22,}$/);

    const cart = await call(`${sf.url}${API}/cart`, { headers: { 'X-Store-Order-Token': token } });
    assert.equal(cart.status, 200);
    assert.equal(cart.body.data.attributes.number, number);
    assert.equal(cart.body.data.attributes.total, '0.00');
    const added = await call(`${sf.url}${API}/cart/add_item`, { method: 'POST', headers: { 'X-Store-Order-Token': token, 'Content-Type': 'application/json' }, body: JSON.stringify({ variant_id: '1', quantity: 2 }) });
    assert.equal(added.status, 200);
    assert.equal(added.body.data.attributes.item_count, 2);
    const bad = await call(`${sf.url}${API}/cart/add_item`, { method: 'POST', headers: { 'X-Store-Order-Token': token }, body: 'nope' });
    assert.equal(bad.status, 422);
    assert.ok(bad.body.error && bad.body.errors);
    const unknown = await call(`${sf.url}${API}/cart/add_item`, { method: 'POST', headers: { 'X-Store-Order-Token': token }, body: '{"variant_id":"999"}' });
    assert.equal(unknown.status, 404);

    const missing = await call(`${sf.url}${API}/cart`);
    assert.deepEqual([missing.status, missing.body], [404, { error: 'The resource you were looking for could not be found.' }]);
    assert.equal((await call(`${sf.url}${API}/checkout`, { headers: { 'X-Store-Order-Token': 'wrong' } })).status, 404);
    const checkout = await call(`${sf.url}${API}/checkout`, { method: 'PATCH', headers: { 'X-Store-Order-Token': token, 'Content-Type': 'application/json' }, body: '{"order":{"email":"a@b.example"}}' });
    assert.equal(checkout.body.data.attributes.email, 'a@b.example');

    const log = sf.requests.find((request) => request.path === `${API}/cart/add_item`);
    assert.equal(log.headers.orderToken, token);
    assert.equal(log.body, JSON.stringify({ variant_id: '1', quantity: 2 }));
    assert.deepEqual(sf.requests.slice(0, 3).map((request) => request.status), [201, 200, 200]);
    assert.equal(sf.requests[0].search, '?fields%5Bcart%5D=number%2Ctoken');
  });

  test('public endpoints ignore credentials, even an expired bearer; unknown API paths are 404', async () => {
    const { sf } = box;
    const { access_token } = await passwordGrant(sf);
    sf.expireAllAccessTokens();
    const products = await call(`${sf.url}${API}/products`, bearer(access_token));
    assert.equal(products.status, 200);
    assert.equal(products.body.data.length, 4);
    const first = products.body.data[0];
    assert.ok(first.attributes.name && first.attributes.slug && first.attributes.price && first.attributes.display_price);
    assert.equal((await call(`${sf.url}${API}/products/${first.attributes.slug}`)).body.data.id, first.id);
    for (const path of ['/taxons', '/store']) assert.equal((await call(`${sf.url}${API}${path}`, bearer(access_token))).status, 200);
    for (const path of ['/cartography', '/checkouts', '/products/nope']) assert.equal((await call(`${sf.url}${API}${path}`)).status, 404);
  });
});

describe('cart writes', () => {
  const box = useStorefront();
  const write = (sf, token, method, path, body) =>
    call(`${sf.url}${API}/cart${path}`, { method, headers: { 'X-Store-Order-Token': token, 'Content-Type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const lines = (sf, token) => sf.carts.get(token).lineItems.map((line) => `${line.variantId} × ${line.quantity}`);

  test('set_quantity, remove_line_item and the coupon calls change the cart for real, answering its document', async () => {
    const { sf } = box;
    const { token } = (await call(`${sf.url}${API}/cart`, { method: 'POST' })).body.data.attributes;
    await write(sf, token, 'POST', '/add_item', { variant_id: '1', quantity: 1 });
    await write(sf, token, 'POST', '/add_item', { variant_id: '2', quantity: 1 });
    const [first, second] = sf.carts.get(token).lineItems;
    const set = await write(sf, token, 'PATCH', '/set_quantity', { line_item_id: first.id, quantity: 3 });
    assert.equal(set.status, 200);
    assert.equal(set.body.data.attributes.item_count, 4);
    assert.deepEqual(lines(sf, token), ['1 × 3', '2 × 1']);
    assert.equal((await write(sf, token, 'PATCH', '/set_quantity', { line_item_id: first.id, quantity: 0 })).status, 422);
    assert.equal((await write(sf, token, 'PATCH', '/set_quantity', { line_item_id: '999', quantity: 2 })).status, 404);

    const removed = await write(sf, token, 'DELETE', `/remove_line_item/${second.id}`);
    assert.equal(removed.status, 200);
    assert.deepEqual(lines(sf, token), ['1 × 3']);
    assert.equal((await write(sf, token, 'DELETE', `/remove_line_item/${second.id}`)).status, 404);

    const applied = await write(sf, token, 'PATCH', '/apply_coupon_code', { coupon_code: 'save10' });
    assert.equal(applied.status, 200);
    assert.deepEqual([applied.body.data.attributes.item_total, applied.body.data.attributes.promo_total, applied.body.data.attributes.total], ['47.97', '-4.80', '43.17']);
    assert.equal((await write(sf, token, 'PATCH', '/apply_coupon_code', { coupon_code: 'NOPE' })).status, 422);
    assert.equal((await write(sf, token, 'DELETE', '/remove_coupon_code/OTHER')).status, 422);
    const dropped = await write(sf, token, 'DELETE', '/remove_coupon_code/SAVE10');
    assert.deepEqual([dropped.status, dropped.body.data.attributes.total], [200, '47.97']);
    await write(sf, token, 'PATCH', '/apply_coupon_code', { coupon_code: 'SAVE10' });
    assert.deepEqual(sf.carts.get(token).couponCodes, ['SAVE10']);
    assert.equal((await write(sf, token, 'DELETE', '/remove_coupon_code')).status, 200);
    assert.deepEqual(sf.carts.get(token).couponCodes, [], 'without a code, every code goes');
    assert.equal((await write(sf, 'no-such-token', 'PATCH', '/set_quantity', { line_item_id: first.id, quantity: 2 })).status, 404);
  });
});

describe('an override that drops the answer', () => {
  const box = useStorefront({ keepAlive: false });
  test('drop: no answer and nothing handled; with passThrough: handled, and only the answer lost; keepAlive false closes each connection', async () => {
    const { sf } = box;
    const { token } = (await call(`${sf.url}${API}/cart`, { method: 'POST' })).body.data.attributes;
    const add = () => fetch(`${sf.url}${API}/cart/add_item`, { method: 'POST', headers: { 'X-Store-Order-Token': token }, body: '{"variant_id":"1"}' });
    sf.override('POST', `${API}/cart/add_item`, { drop: true });
    await assert.rejects(add());
    assert.deepEqual(sf.carts.get(token).lineItems, [], 'not handled');
    sf.override('POST', `${API}/cart/add_item`, { drop: true, passThrough: true });
    await assert.rejects(add());
    assert.equal(sf.carts.get(token).lineItems[0]?.quantity, 1, 'handled, the answer lost');
    assert.deepEqual(sf.requests.filter((request) => request.path.endsWith('/add_item')).map((request) => request.dropped), [true, true]);
    const answered = await add();
    assert.equal(answered.status, 200);
    assert.equal(answered.headers.get('connection'), 'close');
  });
});

describe('account and tokens', () => {
  const box = useStorefront();
  test('account: 403 without or with an unknown bearer, 200 with one, 401 expired and revoked', async () => {
    const { sf } = box;
    const forbidden = await account(sf);
    assert.deepEqual([forbidden.status, forbidden.body], [403, { error: 'You are not authorized to access this page.' }]);
    assert.equal((await account(sf, 'never-seen')).status, 403);

    const pair = await passwordGrant(sf);
    const ok = await account(sf, pair.access_token);
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.body.data.attributes, { email: 'demo@example.com', first_name: 'Demo', last_name: 'Shopper' });
    const patched = await call(`${sf.url}${API}/account`, { method: 'PATCH', headers: { Authorization: `Bearer ${pair.access_token}` }, body: '{"user":{"first_name":"Ada"}}' });
    assert.equal(patched.body.data.attributes.first_name, 'Ada');
    assert.equal((await call(`${sf.url}${API}/account/orders`, bearer(pair.access_token))).status, 200);

    sf.expireAllAccessTokens();
    const expired = await account(sf, pair.access_token);
    assert.deepEqual([expired.status, expired.body], [401, { error: 'The access token expired' }]);
    assert.equal(expired.headers.get('www-authenticate'), null);

    const second = await passwordGrant(sf);
    sf.revokeAllTokens();
    const revoked = await account(sf, second.access_token);
    assert.deepEqual([revoked.status, revoked.body], [401, { error: 'The access token was revoked' }]);
    assert.equal((await refresh(sf, second.refresh_token)).body.error, 'invalid_grant');
  });

  test('password grant: form and JSON, Doorkeeper response; wrong password is invalid_grant', async () => {
    const { sf } = box;
    sf.clearLog();
    const viaForm = await call(`${sf.url}/store_oauth/token`, form({ grant_type: 'password', ...sf.user }));
    assert.equal(viaForm.status, 200);
    assert.equal(viaForm.headers.get('cache-control'), 'no-store');
    assert.equal(viaForm.headers.get('pragma'), 'no-cache');
    assert.match(viaForm.headers.get('content-type'), /^application\/json/);
    assert.deepEqual(Object.keys(viaForm.body).sort(), ['access_token', 'created_at', 'expires_in', 'refresh_token', 'token_type']);
    assert.equal(viaForm.body.token_type, 'Bearer');
    assert.equal(viaForm.body.expires_in, 7200);
    assert.ok(Math.abs(viaForm.body.created_at - Date.now() / 1000) < 5);

    const viaJson = await call(`${sf.url}/store_oauth/token`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ grant_type: 'password', ...sf.user }) });
    assert.equal(viaJson.status, 200);

    const wrong = await call(`${sf.url}/store_oauth/token`, form({ grant_type: 'password', username: sf.user.username, password: 'nope' }));
    assert.deepEqual([wrong.status, wrong.body], [400, { error: 'invalid_grant', error_description: INVALID_GRANT }]);
    assert.equal(wrong.headers.get('www-authenticate'), `Bearer realm="Doorkeeper", error="invalid_grant", error_description="${INVALID_GRANT}"`);
    assert.equal((await call(`${sf.url}/store_oauth/token`, form({ grant_type: 'password', username: 'nobody@example.com', password: 'x' }))).body.error, 'invalid_grant');
    const missing = await call(`${sf.url}/store_oauth/token`, form({ grant_type: 'password', username: sf.user.username }));
    assert.deepEqual([missing.status, missing.body.error], [400, 'invalid_request']);
    assert.match(missing.headers.get('www-authenticate'), /^Bearer realm="Doorkeeper", error="invalid_request"/);
    assert.equal((await call(`${sf.url}/store_oauth/token`, form({ username: 'x' }))).body.error, 'invalid_request');
    assert.equal((await call(`${sf.url}/store_oauth/token`, form({ grant_type: 'magic' }))).body.error, 'unsupported_grant_type');

    assert.deepEqual(sf.stats(), { passwordGrants: 5, refreshGrants: 0, refreshSuccesses: 0, invalidGrants: 2, tokenRequests: 7, revocations: 0, revocationsIgnored: 0, refusedBearers: 0 });
  });

  test('revoke endpoint: always 200 {}, revokes the pair, even with an expired access token (revocation all)', async () => {
    const { sf } = box;
    sf.clearLog();
    const pair = await passwordGrant(sf);
    const answer = await call(`${sf.url}/store_oauth/revoke`, form({ token: pair.refresh_token }));
    assert.deepEqual([answer.status, answer.body], [200, {}]);
    assert.equal((await account(sf, pair.access_token)).status, 401);
    assert.equal((await call(`${sf.url}/store_oauth/revoke`, form({ token: 'unknown' }))).status, 200);
    assert.equal((await call(`${sf.url}/store_oauth/revoke`, form({ token: pair.access_token }))).status, 200, 'already revoked');
    assert.deepEqual([sf.stats().revocations, sf.stats().revocationsIgnored], [3, 2]);

    const expired = await passwordGrant(sf);
    sf.expireAllAccessTokens();
    await call(`${sf.url}/store_oauth/revoke`, form({ token: expired.access_token }));
    assert.equal((await refresh(sf, expired.refresh_token)).body.error, 'invalid_grant');
    assert.deepEqual([sf.stats().revocations, sf.stats().revocationsIgnored], [4, 2]);
  });

  test('HTTP controls', async () => {
    const { sf } = box;
    const pair = await passwordGrant(sf);
    await call(`${sf.url}/__control/expire-all`, { method: 'POST' });
    assert.equal((await account(sf, pair.access_token)).body.error, 'The access token expired');
    await call(`${sf.url}/__control/override`, { method: 'POST', body: JSON.stringify({ method: 'GET', path: `${API}/store`, reply: { status: 503, body: { error: 'down' } } }) });
    assert.equal((await call(`${sf.url}${API}/store`)).status, 503);
    await call(`${sf.url}/__control/clear`, { method: 'POST' });
    const stats = await call(`${sf.url}/__control/stats`);
    assert.equal(stats.body.requests, 0);
    assert.equal(stats.body.tokenRequests, 0);
  });
});

describe('strict rotation', () => {
  const box = useStorefront({ rotation: 'strict' });
  test('a refresh token works once; a reuse revokes the whole family', async () => {
    const { sf } = box;
    const first = await passwordGrant(sf);
    const other = await passwordGrant(sf); // another family: untouched
    const second = (await refresh(sf, first.refresh_token)).body;
    assert.ok(second.access_token);
    assert.equal((await account(sf, first.access_token)).status, 200, 'the old access token lives on until it expires');
    const third = (await refresh(sf, second.refresh_token)).body;

    const reuse = await refresh(sf, first.refresh_token);
    assert.deepEqual([reuse.status, reuse.body.error], [400, 'invalid_grant']);
    for (const token of [first.access_token, second.access_token, third.access_token]) assert.equal((await account(sf, token)).status, 401);
    assert.equal((await refresh(sf, third.refresh_token)).status, 400);
    assert.equal((await account(sf, other.access_token)).status, 200);
    assert.deepEqual(sf.stats().refreshGrants, 4);
    assert.deepEqual(sf.stats().refreshSuccesses, 2);
    assert.deepEqual(sf.stats().invalidGrants, 2);
  });
});

describe('doorkeeper rotation', () => {
  const box = useStorefront({ accessTokenLifetime: 1.5 });
  test('the old refresh token works until the new access token is used, then invalid_grant', async () => {
    const { sf } = box;
    const first = await passwordGrant(sf);
    assert.equal(first.expires_in, 1.5);
    const second = (await refresh(sf, first.refresh_token)).body;
    const third = (await refresh(sf, first.refresh_token)).body; // still works: the new pair is unused
    assert.ok(second.access_token && third.access_token);
    assert.equal((await account(sf, first.access_token)).status, 200);

    assert.equal((await account(sf, second.access_token)).status, 200); // first use: revokes the first pair
    assert.equal((await refresh(sf, first.refresh_token)).body.error, 'invalid_grant');
    assert.equal((await account(sf, first.access_token)).body.error, 'The access token was revoked');
    assert.equal((await account(sf, third.access_token)).status, 200);

    await sleep(1600);
    assert.equal((await account(sf, second.access_token)).body.error, 'The access token expired');
    assert.equal((await refresh(sf, second.refresh_token)).status, 200, 'refresh tokens do not expire');
  });
});

describe('revocation doorkeeper-5.5', () => {
  const box = useStorefront({ revocation: 'doorkeeper-5.5' });
  const revoke = (sf, token) => call(`${box.sf.url}/store_oauth/revoke`, form({ token }));

  test('an unknown revocation mode is refused', async () => {
    await assert.rejects(startStorefront({ port: 0, revocation: 'some' }), /revocation must be 'all' or 'doorkeeper-5\.5'/);
  });

  test('before expiry, revoking either token revokes the pair', async () => {
    const { sf } = box;
    sf.clearLog();
    for (const which of ['access_token', 'refresh_token']) {
      const pair = await passwordGrant(sf);
      const answer = await revoke(sf, pair[which]);
      assert.deepEqual([answer.status, answer.body], [200, {}]);
      assert.equal((await account(sf, pair.access_token)).body.error, 'The access token was revoked', which);
      assert.equal((await refresh(sf, pair.refresh_token)).body.error, 'invalid_grant', which);
    }
    assert.deepEqual([sf.stats().revocations, sf.stats().revocationsIgnored], [2, 0]);
  });

  test('after expiry, revoke answers 200 {} and changes nothing: the refresh token still refreshes', async () => {
    const { sf } = box;
    sf.clearLog();
    const pair = await passwordGrant(sf);
    sf.expireAllAccessTokens();
    for (const token of [pair.access_token, pair.refresh_token]) {
      const answer = await revoke(sf, token);
      assert.deepEqual([answer.status, answer.body], [200, {}]);
    }
    assert.equal((await account(sf, pair.access_token)).body.error, 'The access token expired', 'not revoked');
    const refreshed = await refresh(sf, pair.refresh_token);
    assert.equal(refreshed.status, 200);
    assert.equal((await account(sf, refreshed.body.access_token)).status, 200);
    assert.deepEqual([sf.stats().revocations, sf.stats().revocationsIgnored], [2, 2]);
  });

  test('logout recipe with an expired access token: refresh, use the new access token once, revoke it: neither refresh token works', async () => {
    const { sf } = box;
    sf.clearLog();
    const old = await passwordGrant(sf);
    sf.expireAllAccessTokens();
    await revoke(sf, old.access_token); // ignored: the access token has expired

    const fresh = (await refresh(sf, old.refresh_token)).body;
    assert.equal((await account(sf, fresh.access_token)).status, 200); // first use: revokes the old pair
    const answer = await revoke(sf, fresh.access_token);
    assert.deepEqual([answer.status, answer.body], [200, {}]);

    for (const token of [old.refresh_token, fresh.refresh_token]) assert.equal((await refresh(sf, token)).body.error, 'invalid_grant');
    assert.equal((await account(sf, fresh.access_token)).body.error, 'The access token was revoked');
    assert.equal((await account(sf, old.access_token)).body.error, 'The access token was revoked');
    assert.deepEqual([sf.stats().revocations, sf.stats().revocationsIgnored, sf.stats().refreshSuccesses], [2, 1, 1]);
  });

  test('the same recipe without the use: the old refresh token survives the revoke of the unused new pair', async () => {
    const { sf } = box;
    const old = await passwordGrant(sf);
    sf.expireAllAccessTokens();
    const fresh = (await refresh(sf, old.refresh_token)).body;
    await revoke(sf, fresh.access_token);
    assert.equal((await refresh(sf, fresh.refresh_token)).body.error, 'invalid_grant');
    assert.equal((await refresh(sf, old.refresh_token)).status, 200, 'the session goes on');
  });
});

describe('refuseEveryBearer', () => {
  const box = useStorefront();
  test('every bearer on an authenticating endpoint is 401 revoked; tokens keep being issued and refreshed', async () => {
    const { sf } = box;
    sf.clearLog();
    const pair = await passwordGrant(sf);
    const guest = (await call(`${sf.url}${API}/cart`, { method: 'POST' })).body.data.attributes.token;
    sf.refuseEveryBearer(true);

    const refused = await account(sf, pair.access_token);
    assert.deepEqual([refused.status, refused.body], [401, { error: 'The access token was revoked' }]);
    assert.match(refused.headers.get('content-type'), /vnd\.api\+json/);
    assert.equal(refused.headers.get('www-authenticate'), null);
    assert.equal((await call(`${sf.url}${API}/cart`, bearer('never-issued'))).status, 401, 'any bearer, even one never issued');
    assert.equal((await call(`${sf.url}${API}/cart`, { method: 'POST', ...bearer(pair.access_token) })).status, 401);
    assert.equal((await call(`${sf.url}${API}/products`, bearer(pair.access_token))).status, 200, 'public');
    assert.equal((await call(`${sf.url}${API}/nowhere`, bearer(pair.access_token))).status, 404, 'unknown path');
    assert.equal((await call(`${sf.url}${API}/cart`, { headers: { 'X-Store-Order-Token': guest } })).status, 200, 'no bearer');
    assert.equal((await call(`${sf.url}${API}/account`, { headers: { Authorization: 'Bearer ' } })).status, 403, 'an empty bearer is a guest');

    const refreshed = await refresh(sf, pair.refresh_token);
    assert.equal(refreshed.status, 200);
    assert.equal((await account(sf, refreshed.body.access_token)).status, 401);
    assert.equal((await refresh(sf, pair.refresh_token)).status, 200, 'a refused request is no first use: the old pair lives on');
    assert.equal(sf.stats().refusedBearers, 4);

    sf.refuseEveryBearer(false);
    assert.equal((await account(sf, refreshed.body.access_token)).status, 200);
    assert.equal((await account(sf, pair.access_token)).body.error, 'The access token was revoked', 'now the first use revoked it');
    assert.equal(sf.stats().refusedBearers, 4);
  });

  test('over HTTP: POST /__control/refuse-bearers {"on": …}', async () => {
    const { sf } = box;
    const pair = await passwordGrant(sf);
    const post = (body) => call(`${sf.url}/__control/refuse-bearers`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
    assert.equal((await post('{"on": true}')).status, 200);
    await call(`${sf.url}/__control/clear`, { method: 'POST' });
    assert.equal((await account(sf, pair.access_token)).status, 401, 'clearing the log leaves it on');
    assert.equal((await call(`${sf.url}/__control/stats`)).body.refusedBearers, 1);
    assert.equal((await post('{"on": "yes"}')).status, 400);
    assert.equal((await post('{"on": false}')).status, 200);
    assert.equal((await account(sf, pair.access_token)).status, 200);
  });
});

describe('overrides for failure modes: redirects, 503, a hanging answer', () => {
  const box = useStorefront();
  const target = useStorefront(); // another origin, the redirect target

  test('307 and 308 to another origin: Location passed through, empty body; the target logs what arrived', async () => {
    const { sf } = box;
    const other = target.sf;
    for (const status of [307, 308]) {
      other.clearLog();
      const location = `${other.url}${API}/cart/add_item?from=${status}`;
      sf.override('POST', `${API}/cart/add_item`, { status, headers: { Location: location }, body: '', times: 2 });
      const init = { method: 'POST', headers: { 'X-Store-Order-Token': 'tok', 'Content-Type': 'application/json', Origin: 'http://shop.example' }, body: '{"variant_id":"1"}' };

      const manual = await fetch(`${sf.url}${API}/cart/add_item`, { ...init, redirect: 'manual' });
      assert.equal(manual.status, status);
      assert.equal(manual.headers.get('location'), location);
      assert.equal(manual.headers.get('content-length'), '0');
      assert.equal(manual.headers.get('access-control-allow-origin'), 'http://shop.example', 'CORS headers on a redirect too');
      assert.equal(await manual.text(), '');

      const followed = await call(`${sf.url}${API}/cart/add_item`, init);
      assert.equal(followed.status, 404, 'the target knows no such cart');
      const arrived = other.requests.at(-1);
      assert.deepEqual([arrived.method, arrived.path, arrived.search, arrived.body], ['POST', `${API}/cart/add_item`, `?from=${status}`, '{"variant_id":"1"}']);
      assert.equal(arrived.headers.host, new URL(other.url).host);
      assert.equal(arrived.headers.orderToken, 'tok', 'custom headers follow (only Authorization is dropped across origins)');
      assert.equal(arrived.headers.authorization, undefined);
    }
  });

  test('keepQuery: a redirect whose Location carries on the query the request came with', async () => {
    const { sf } = box;
    sf.override('GET', `${API}/cart`, { status: 302, headers: { Location: `${target.sf.url}${API}/cart` }, keepQuery: true, times: 2 });
    const withQuery = await fetch(`${sf.url}${API}/cart?guest_order_token=abc&fields%5Bcart%5D=a+b`, { redirect: 'manual' });
    assert.equal(withQuery.headers.get('location'), `${target.sf.url}${API}/cart?guest_order_token=abc&fields%5Bcart%5D=a+b`);
    const without = await fetch(`${sf.url}${API}/cart`, { redirect: 'manual' });
    assert.equal(without.headers.get('location'), `${target.sf.url}${API}/cart`);
  });

  test('303: the target gets a GET without a body', async () => {
    const { sf } = box;
    const other = target.sf;
    other.clearLog();
    sf.override('POST', `${API}/checkout`, { status: 303, headers: { Location: `${other.url}${API}/store` } });
    const answer = await call(`${sf.url}${API}/checkout`, { method: 'POST', body: 'x' });
    assert.equal(answer.status, 200);
    assert.deepEqual(other.requests.map(({ method, path, body }) => [method, path, body]), [['GET', `${API}/store`, undefined]]);
  });

  test('503 with a JSON body', async () => {
    const { sf } = box;
    sf.override('GET', `${API}/account`, { status: 503, headers: { 'Retry-After': '1' }, body: { error: 'Service Unavailable' } });
    const answer = await call(`${sf.url}${API}/account`);
    assert.deepEqual([answer.status, answer.body], [503, { error: 'Service Unavailable' }]);
    assert.equal(answer.headers.get('retry-after'), '1');
    assert.match(answer.headers.get('content-type'), /vnd\.api\+json/);
  });

  test('a hanging answer (delayMs 60 s): close() is prompt and drops the request', async () => {
    const sf = await startStorefront({ port: 0 });
    sf.override('GET', `${API}/store`, { delayMs: 60_000 });
    const pending = fetch(`${sf.url}${API}/store`).then(
      () => 'answered',
      () => 'dropped',
    );
    await sleep(100);
    assert.equal(sf.requests.length, 1);
    assert.equal(sf.requests[0].status, undefined, 'still hanging');
    const started = Date.now();
    await sf.close();
    assert.ok(Date.now() - started < 1000);
    assert.equal(await pending, 'dropped');
  });

  test('a hanging answer does not keep the process alive after close()', async () => {
    const script = `
      import { startStorefront } from ${JSON.stringify(new URL('./server.mjs', import.meta.url).href)};
      const sf = await startStorefront({ port: 0 });
      sf.override('GET', '/api/v2/storefront/store', { delayMs: 60000 });
      fetch(sf.url + '/api/v2/storefront/store').catch(() => {});
      setTimeout(() => void sf.close().then(() => console.log('closed')), 200);
    `;
    const started = Date.now();
    const output = await new Promise((resolve, reject) =>
      execFile(process.execPath, ['--input-type=module', '-e', script], { timeout: 20_000 }, (error, stdout) => (error ? reject(error) : resolve(stdout))),
    );
    assert.equal(output.trim(), 'closed');
    assert.ok(Date.now() - started < 10_000, `exited after ${Date.now() - started} ms`);
  });
});

describe('associate', () => {
  const box = useStorefront();
  test('assigns a guest cart to the user; 422 when owned; 403 without a bearer; 404 unknown', async () => {
    const { sf } = box;
    const guest = (await call(`${sf.url}${API}/cart`, { method: 'POST' })).body.data.attributes.token;
    const url = `${sf.url}${API}/cart/associate?guest_order_token=${guest}`;
    const forbidden = await call(url, { method: 'PATCH' });
    assert.deepEqual([forbidden.status, forbidden.body], [403, { error: 'You are not authorized to access this page.' }]);

    const pair = await passwordGrant(sf);
    assert.equal((await call(`${sf.url}${API}/cart`, bearer(pair.access_token))).status, 404, 'the user has no cart yet');
    const associated = await call(url, { method: 'PATCH', ...bearer(pair.access_token) });
    assert.equal(associated.status, 200);
    assert.equal(associated.body.data.attributes.token, guest);
    const mine = await call(`${sf.url}${API}/cart`, { headers: { Authorization: `Bearer ${pair.access_token}`, 'X-Store-Order-Token': 'other' } });
    assert.equal(mine.body.data.attributes.token, guest, 'the bearer decides');

    const again = await call(url, { method: 'PATCH', ...bearer(pair.access_token) });
    assert.deepEqual([again.status, again.body], [422, { error: 'Cart is already associated to a user' }]);
    assert.equal((await call(`${sf.url}${API}/cart/associate?guest_order_token=nope`, { method: 'PATCH', ...bearer(pair.access_token) })).status, 404);

    const userCart = await call(`${sf.url}${API}/cart`, { method: 'POST', ...bearer(pair.access_token) });
    assert.equal(userCart.status, 201);
    assert.equal((await call(`${sf.url}${API}/cart`, bearer(pair.access_token))).body.data.attributes.token, userCart.body.data.attributes.token);
    sf.expireAllAccessTokens();
    assert.equal((await call(`${sf.url}${API}/cart`, { method: 'POST', ...bearer(pair.access_token) })).status, 401);
  });
});

describe('overrides', () => {
  const box = useStorefront();
  test('status, headers and body, for `times` requests; still counted and logged', async () => {
    const { sf } = box;
    sf.override('POST', '/store_oauth/token', { status: 502, headers: { 'Content-Type': 'text/html' }, body: '<html>Bad Gateway</html>', times: 2 });
    for (let i = 0; i < 2; i++) {
      const answer = await call(`${sf.url}/store_oauth/token`, form({ grant_type: 'password', ...sf.user }));
      assert.deepEqual([answer.status, answer.headers.get('content-type'), answer.body], [502, 'text/html', '<html>Bad Gateway</html>']);
    }
    assert.equal((await call(`${sf.url}/store_oauth/token`, form({ grant_type: 'password', ...sf.user }))).status, 200);
    assert.deepEqual([sf.stats().tokenRequests, sf.stats().passwordGrants], [3, 3]);
    assert.equal(sf.requests.length, 3);

    sf.override('POST', `${API}/cart`, { status: 201, body: { data: { id: '9' } } });
    const canned = await call(`${sf.url}${API}/cart?x=1`, { method: 'POST' });
    assert.deepEqual([canned.status, canned.body], [201, { data: { id: '9' } }]);
    assert.match(canned.headers.get('content-type'), /vnd\.api\+json/);
    sf.override('GET', `${API}/store`, { status: 500 });
    sf.clearOverrides();
    assert.equal((await call(`${sf.url}${API}/store`)).status, 200);
  });

  test('delayMs with passThrough delays, then handles normally; refreshGrants counts on receipt', async () => {
    const { sf } = box;
    const pair = await passwordGrant(sf);
    sf.clearLog();
    sf.override('POST', '/store_oauth/token', { delayMs: 400, passThrough: true });
    const started = Date.now();
    const pending = refresh(sf, pair.refresh_token);
    await sleep(150);
    assert.deepEqual([sf.stats().refreshGrants, sf.stats().refreshSuccesses], [1, 0]);
    const answer = await pending;
    assert.equal(answer.status, 200);
    assert.ok(Date.now() - started >= 390);
    assert.deepEqual([sf.stats().refreshGrants, sf.stats().refreshSuccesses], [1, 1]);
  });

  test('a Buffer body goes out byte for byte, in the Content-Type given', async () => {
    const { sf } = box;
    const bytes = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x00, 0xff]);
    sf.override('GET', `${API}/cart`, { headers: { 'Content-Type': 'text/plain; charset=iso-8859-1' }, body: bytes });
    const response = await fetch(`${sf.url}${API}/cart`);
    assert.equal(response.headers.get('content-type'), 'text/plain; charset=iso-8859-1');
    assert.deepEqual(Buffer.from(await response.arrayBuffer()), bytes);
  });

  test('chunks: a streamed answer, each chunk written on its own, everyMs apart; forever until the client goes away', async () => {
    const { sf } = box;
    sf.override('GET', `${API}/cart`, { headers: { 'Content-Type': 'text/event-stream' }, chunks: ['data: 1\n\n', Buffer.from('data: 2\n\n')], everyMs: 300 });
    const started = Date.now();
    const response = await fetch(`${sf.url}${API}/cart`);
    assert.equal(response.headers.get('content-length'), null);
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    const first = await reader.read();
    assert.equal(decoder.decode(first.value), 'data: 1\n\n');
    assert.ok(Date.now() - started < 250, 'the first chunk comes at once');
    assert.equal(decoder.decode((await reader.read()).value), 'data: 2\n\n');
    assert.ok(Date.now() - started >= 290, 'the second one everyMs later');
    assert.equal((await reader.read()).done, true);

    sf.override('GET', `${API}/cart`, { headers: { 'Content-Type': 'text/event-stream' }, chunks: ['x'], everyMs: 20, forever: true });
    const endless = new AbortController();
    const forever = await fetch(`${sf.url}${API}/cart`, { signal: endless.signal });
    const endlessReader = forever.body.getReader();
    let read = '';
    while (read.length < 5) read += decoder.decode((await endlessReader.read()).value);
    endless.abort();
    await assert.rejects(endlessReader.read());
  });

  test('ranges: a Range header on the canned body answers 206 with that part, 416 past the end, and the whole without one', async () => {
    const { sf } = box;
    const body = '0123456789';
    const ask = async (range) => {
      sf.override('GET', `${API}/cart`, { headers: { 'Content-Type': 'text/plain' }, body, ranges: true });
      const response = await fetch(`${sf.url}${API}/cart`, range === undefined ? {} : { headers: { Range: range } });
      return [response.status, response.headers.get('content-range'), await response.text()];
    };
    assert.deepEqual(await ask('bytes=0-3'), [206, 'bytes 0-3/10', '0123']);
    assert.deepEqual(await ask('bytes=4-'), [206, 'bytes 4-9/10', '456789']);
    assert.deepEqual(await ask('bytes=-2'), [206, 'bytes 8-9/10', '89']);
    assert.deepEqual(await ask('bytes=7-99'), [206, 'bytes 7-9/10', '789']);
    assert.deepEqual(await ask('bytes=10-'), [416, 'bytes */10', '']);
    assert.deepEqual(await ask(undefined), [200, null, body]);
    assert.equal(sf.requests.at(-2)?.headers.range, 'bytes=10-', 'the log keeps the Range header');
  });
});

describe('basePath, flavour spree, CORS', () => {
  const box = useStorefront({ basePath: '/store', flavour: 'spree' });
  test('API and OAuth under the base path, Spree names', async () => {
    const { sf } = box;
    assert.equal(sf.url, `http://127.0.0.1:${sf.port}`);
    assert.equal((await call(`${sf.url}${API}/products`)).status, 404, 'not under the base path');
    const created = await call(`${sf.url}/store${API}/cart`, { method: 'POST' });
    assert.equal(created.status, 201);
    const token = created.body.data.attributes.token;
    assert.equal((await call(`${sf.url}/store${API}/cart`, { headers: { 'X-Spree-Order-Token': token } })).status, 200);
    assert.equal((await call(`${sf.url}/store${API}/cart`, { headers: { 'X-Store-Order-Token': token } })).status, 404);
    assert.equal(sf.requests.at(-2).headers.orderToken, token);
    assert.equal(sf.requests.at(-2).path, `${API}/cart`);

    assert.equal((await call(`${sf.url}/store/store_oauth/token`, form({ grant_type: 'password', ...sf.user }))).status, 404);
    const pair = await passwordGrant(sf, '/store/spree_oauth/token');
    assert.equal((await call(`${sf.url}/store${API}/account`, bearer(pair.access_token))).status, 200);
    sf.override('GET', `${API}/account`, { status: 418 });
    assert.equal((await call(`${sf.url}/store${API}/account`)).status, 418);
    assert.equal(sf.stats().tokenRequests, 1);
  });

  test('CORS: preflight on any path, and headers on every response to a request with Origin', async () => {
    const { sf } = box;
    const origin = 'http://localhost:9999';
    const preflight = await call(`${sf.url}/store/spree_oauth/token`, { method: 'OPTIONS', headers: { Origin: origin, 'Access-Control-Request-Method': 'POST' } });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), origin);
    assert.equal(preflight.headers.get('access-control-allow-methods'), 'GET, POST, PATCH, PUT, DELETE, OPTIONS');
    assert.equal(preflight.headers.get('access-control-allow-headers'), 'Authorization, Content-Type, X-Store-Order-Token, X-Spree-Order-Token');
    assert.equal(preflight.headers.get('access-control-max-age'), '600');
    assert.equal(sf.requests.at(-1).method, 'OPTIONS');

    const wrong = await call(`${sf.url}/store/spree_oauth/token`, { ...form({ grant_type: 'password', username: 'x', password: 'y' }), headers: { Origin: origin, 'Content-Type': 'application/x-www-form-urlencoded' } });
    assert.equal(wrong.headers.get('access-control-allow-origin'), origin);
    assert.equal(wrong.headers.get('vary'), 'Origin');
    assert.equal(wrong.headers.get('access-control-expose-headers'), 'WWW-Authenticate');
    assert.equal((await call(`${sf.url}/store${API}/products`)).headers.get('access-control-allow-origin'), null);
  });
});

describe('static files', () => {
  let dir;
  const box = useStorefront();
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'storefront-static-'));
    await mkdir(join(dir, 'site', 'a'), { recursive: true });
    await writeFile(join(dir, 'site', 'a', 'index.html'), '<p>a</p>');
    await writeFile(join(dir, 'site', 'page.html'), '<p>page</p>');
    await writeFile(join(dir, 'sw.js'), 'self.x = 1;');
    await writeFile(join(dir, 'secret.txt'), 'secret');
    await box.sf.close();
    box.sf = await startStorefront({ port: 0, static: [{ prefix: '/site/', dir: join(dir, 'site') }, { prefix: '/', dir: join(dir, 'site') }, { prefix: '/', dir }] });
  });
  after(() => rm(dir, { recursive: true, force: true }));

  /** A raw request, so that `..` reaches the server as written. */
  const raw = (path) =>
    new Promise((resolve, reject) => {
      http.get({ host: '127.0.0.1', port: box.sf.port, path }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
      }).on('error', reject);
    });

  test('files with types and no-cache, index.html, 404, and no way out of the directory', async () => {
    const { sf } = box;
    const sw = await call(`${sf.url}/sw.js`);
    assert.deepEqual([sw.status, sw.body], [200, 'self.x = 1;']);
    assert.equal(sw.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.equal(sw.headers.get('cache-control'), 'no-cache');
    assert.equal((await call(`${sf.url}/site/page.html`)).headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal((await call(`${sf.url}/site/a/`)).body, '<p>a</p>');
    assert.equal((await call(`${sf.url}/site/a`)).body, '<p>a</p>', 'redirected to the directory');
    assert.equal((await call(`${sf.url}/missing.js`)).status, 404);
    assert.equal((await call(`${sf.url}/sw.js`, { method: 'POST' })).status, 404);
    assert.equal(await raw('/site/../secret.txt'), 403);
    assert.equal(await raw('/site/..%2fsecret.txt'), 403);
    assert.equal(await raw('/..%2f..%2fetc/passwd'), 403);
    assert.equal(await raw('/page.html'), 200);
    assert.equal(await raw('/secret.txt'), 200, 'falls through to the next mount on /');
  });
});

describe('the request log for the demo panel', () => {
  const box = useStorefront();
  test('GET /__control/requests: API and OAuth requests with credential header names, never a value or a query', async () => {
    const { sf } = box;
    const pair = await passwordGrant(sf);
    const created = await call(`${sf.url}${API}/cart`, { method: 'POST' });
    const token = created.body.data.attributes.token;
    await call(`${sf.url}${API}/cart`, { headers: { 'X-Store-Order-Token': token } });
    await call(`${sf.url}${API}/cart/associate?guest_order_token=${token}`, { method: 'PATCH', ...bearer(pair.access_token) });
    await call(`${sf.url}${API}/products`, { method: 'OPTIONS' });
    await call(`${sf.url}/missing.css`);

    const answer = await call(`${sf.url}/__control/requests`);
    assert.equal(answer.status, 200);
    const listed = answer.body.requests.map(({ method, path, headers }) => [method, path, headers]);
    assert.deepEqual(listed, [
      ['POST', '/store_oauth/token', []],
      ['POST', `${API}/cart`, []],
      ['GET', `${API}/cart`, ['X-Store-Order-Token']],
      ['PATCH', `${API}/cart/associate`, ['Authorization']],
    ]);
    assert.ok(answer.body.requests.every((entry) => typeof entry.at === 'number'));
    const text = JSON.stringify(answer.body);
    for (const secret of [token, pair.access_token, pair.refresh_token]) assert.ok(!text.includes(secret), 'no token in the listing');
    assert.equal(sf.requests.length, 6, 'the control request itself is not logged');

    for (let i = 0; i < 25; i++) await call(`${sf.url}${API}/taxons`);
    const recent = (await call(`${sf.url}/__control/requests`)).body.requests;
    assert.equal(recent.length, 20);
    assert.equal(recent.at(-1).path, `${API}/taxons`);
  });
});
