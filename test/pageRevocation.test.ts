// A page's own revocation of the pair the worker holds is the worker's logout (docs/security.md,
// "Placeholders sent back"; docs/behaviour.md, "The spree-v3 preset", logout), through the
// orchestrator: the placeholder never reaches the server, the real tokens are revoked, the pair and
// cart are forgotten, every tab is told, and the page gets the server's usual answer. A revocation
// of a token the worker does not hold is the page's own business, and goes out as sent; its answer is
// sealed, as every answer on the path is.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { storeApiJwt } from './fakes.js';
import { BASE, routedWorker, type Call } from './workerHarness.js';

const HOUR = 3_600_000;
const SESSION = { accessToken: 'access-real', refreshToken: 'refresh-real', expiresAt: Date.now() + HOUR, lifetimeMs: HOUR, confirmed: true };
const HELD: Credentials = { cart: { token: 'cart-real', number: 'R100' }, session: SESSION, backoff: null };
const NOTHING: Credentials = { cart: null, session: null, backoff: null };
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/** What the server saw, bodies included, as one text. */
async function seen(calls: Call[]): Promise<string> {
  const parts = await Promise.all(calls.map(async (call) => `${call.route} ${[...call.request.headers].join(';')} ${await call.body}`));
  return parts.join('\n');
}

describe('a page’s own revocation', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  });
  after(() => {
    globalThis.BroadcastChannel = channel;
  });

  describe('spree: POST /spree_oauth/revoke', () => {
    const revoke = { 'POST /spree_oauth/revoke': () => Response.json({}) };

    for (const [what, contentType, body] of [
      ['token=sealed:access, form-encoded', 'application/x-www-form-urlencoded', 'token=sealed%3Aaccess'],
      ['token=sealed:refresh, form-encoded', 'application/x-www-form-urlencoded', 'token=sealed%3Arefresh&token_type_hint=refresh_token'],
      ['{"token":"sealed:access"} as JSON', 'application/json', '{"token":"sealed:access"}'],
      ['the real access token (an unsealed page)', 'application/x-www-form-urlencoded', 'token=access-real'],
    ] as const) {
      it(`with ${what}: the worker logs out, revokes both real tokens, and answers 200 {}`, async () => {
        const { calls, announced, settled, storage, through } = routedWorker({ preset: 'spree' }, HELD, revoke);
        await settle();
        const response = await through(new Request(`${BASE}/spree_oauth/revoke`, { method: 'POST', headers: { 'Content-Type': contentType }, body }));
        assert.ok(response !== null, 'the worker answers it');
        assert.equal(response.status, 200);
        assert.equal(await response.text(), '{}');
        assert.equal(response.headers.get('Cache-Control'), 'no-store');
        await settled();

        assert.deepEqual(calls.map((call) => call.route), ['POST /spree_oauth/revoke', 'POST /spree_oauth/revoke']);
        const tokens = (await Promise.all(calls.map((call) => call.body))).map((text) => new URLSearchParams(text).get('token')).sort();
        assert.deepEqual(tokens, ['access-real', 'refresh-real']);
        assert.ok(!(await seen(calls)).includes('sealed:'), 'no placeholder reaches the server');
        assert.deepEqual(await storage.read(), NOTHING, 'the pair and the cart are forgotten');
        assert.deepEqual(announced.map((a) => [a.type, a.state]), [['change', { signedIn: false, accessTokenExpiresAt: null, cart: null, pendingWrites: 0 }]]);
      });
    }

    it('with token=sealed:access in a FormData body (multipart): the worker logs out and revokes both real tokens', async () => {
      const { calls, settled, storage, through } = routedWorker({ preset: 'spree' }, HELD, revoke);
      await settle();
      const form = new FormData();
      form.set('token', 'sealed:access');
      const response = await through(new Request(`${BASE}/spree_oauth/revoke`, { method: 'POST', body: form }));
      assert.equal(response?.status, 200);
      await settled();
      const tokens = (await Promise.all(calls.map((call) => call.body))).map((text) => new URLSearchParams(text).get('token')).sort();
      assert.deepEqual(tokens, ['access-real', 'refresh-real']);
      assert.deepEqual(await storage.read(), NOTHING, 'the pair and the cart are forgotten');
    });

    it('with a token the worker does not hold: sent as it is, and nothing forgotten', async () => {
      const { calls, announced, settled, storage, through } = routedWorker({ preset: 'spree' }, HELD, { 'POST /spree_oauth/revoke': () => Response.json({ server: 'answered' }) });
      await settle();
      const response = await through(new Request(`${BASE}/spree_oauth/revoke`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'token=someone-elses' }));
      assert.ok(response !== null);
      assert.equal(await response.text(), '{"server":"answered"}', "the server's own answer");
      await settled();
      assert.equal(calls.length, 1);
      assert.equal(await calls[0]?.body, 'token=someone-elses');
      assert.deepEqual(await storage.read(), HELD);
      assert.deepEqual(announced, []);
    });

    it('with a token the worker does not hold: its answer sealed, as every answer on the path is, and kept out of the HTTP cache', async () => {
      const held: Credentials = { cart: { token: '+cart/Real=0123456', number: 'R100' }, session: { ...SESSION, accessToken: '/access+Real=987654', refreshToken: '\\refresh/Real+5555' }, backoff: null };
      const echo = { 'POST /spree_oauth/revoke': () => new Response(JSON.stringify({ error: 'invalid_request', cart: '+cart/Real=0123456', hint: '\\refresh/Real+5555' }), { status: 400, headers: { 'Content-Type': 'application/json', 'X-Cart': '+cart/Real=0123456' } }) };
      const { calls, settled, storage, through } = routedWorker({ preset: 'spree' }, held, echo);
      await settle();
      const response = await through(new Request(`${BASE}/spree_oauth/revoke`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'token=someone-elses', cache: 'force-cache' }));
      assert.ok(response !== null);
      assert.equal(response.status, 400);
      assert.equal(await response.text(), '{"error":"invalid_request","cart":"sealed:cart","hint":"sealed:refresh"}');
      assert.equal(response.headers.get('X-Cart'), null, 'a header holding a token is dropped');
      await settled();
      assert.equal(calls[0]?.request.cache, 'no-store');
      assert.equal(await calls[0]?.body, 'token=someone-elses', 'the request goes out as the page sent it');
      assert.deepEqual(await storage.read(), held);
    });

    it('with a placeholder while signed out: sent as it is (worthless), and nothing announced', async () => {
      const guest: Credentials = { ...NOTHING, cart: HELD.cart };
      const { calls, announced, settled, storage, through } = routedWorker({ preset: 'spree' }, guest, revoke);
      await settle();
      await through(new Request(`${BASE}/spree_oauth/revoke`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'token=sealed%3Aaccess' }));
      await settled();
      assert.equal(await calls[0]?.body, 'token=sealed%3Aaccess');
      assert.deepEqual(await storage.read(), guest);
      assert.deepEqual(announced, []);
    });
  });

  describe('spree-v3: POST /api/v3/store/auth/logout', () => {
    const JWT = storeApiJwt(Math.floor(Date.now() / 1000) + 3600);
    const V3_HELD: Credentials = { cart: { id: 'cart_1', token: 'cart-real', number: 'R100' }, session: { ...SESSION, accessToken: JWT }, backoff: null };
    const logout = { 'POST /api/v3/store/auth/logout': () => new Response(null, { status: 204 }) };
    const options = { preset: 'spree-v3', publishableKey: 'pk_test' } as const;

    it('with refresh_token sealed:refresh: the real refresh token is revoked with the key, and the page gets 204 with no body', async () => {
      const { calls, announced, settled, storage, through } = routedWorker(options, V3_HELD, logout);
      await settle();
      const page = new Request(`${BASE}/api/v3/store/auth/logout`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Spree-Api-Key': 'pk_test', Authorization: 'Bearer sealed:access' },
        body: JSON.stringify({ refresh_token: 'sealed:refresh' }),
      });
      const response = await through(page);
      assert.ok(response !== null);
      assert.equal(response.status, 204);
      assert.equal(response.body, null);
      await settled();

      assert.deepEqual(calls.map((call) => call.route), ['POST /api/v3/store/auth/logout']);
      const [call] = calls;
      assert.ok(call !== undefined);
      assert.deepEqual(JSON.parse(await call.body), { refresh_token: 'refresh-real' });
      assert.equal(call.request.headers.get('X-Spree-Api-Key'), 'pk_test');
      assert.ok(!(await seen(calls)).includes('sealed:'), 'no placeholder reaches the server');
      assert.deepEqual(await storage.read(), NOTHING);
      assert.deepEqual(announced.map((a) => a.type), ['change']);
    });

    it('with a refresh token the worker does not hold: sent as it is, and nothing forgotten', async () => {
      const { calls, announced, settled, storage, through } = routedWorker(options, V3_HELD, logout);
      await settle();
      const response = await through(new Request(`${BASE}/api/v3/store/auth/logout`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"refresh_token":"another-device"}' }));
      assert.equal(response?.status, 204);
      await settled();
      assert.deepEqual(calls.map((call) => call.route), ['POST /api/v3/store/auth/logout']);
      assert.equal(await calls[0]?.body, '{"refresh_token":"another-device"}');
      assert.deepEqual(await storage.read(), V3_HELD);
      assert.deepEqual(announced, []);
    });
  });
});
