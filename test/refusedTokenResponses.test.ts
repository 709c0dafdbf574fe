// A token response the worker refuses to keep (malformed, expired on arrival, not a session) has
// its pair revoked where the preset can revoke (docs/behaviour.md, "What the worker does to
// requests"): the server issued a pair nobody will hold, its refresh token good for weeks. Through
// the orchestrator: a page's own grant (sealed, so the page never saw the real pair; unsealed, the
// page holds it and it is left alone), and a refresh of the worker's own whose success it cannot
// keep. The lifetime of a page's v3 grant is judged against its answer's `Date`, as the worker's
// own grants are.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { storeApiJwt } from './fakes.js';
import { BASE, routedWorker, type Call } from './workerHarness.js';

const NOTHING: Credentials = { cart: null, session: null, backoff: null };
const HOUR = 3_600_000;
const KEY = 'pk_test';
const V3 = { preset: 'spree-v3', publishableKey: KEY } as const;
const LOGIN = 'POST /api/v3/store/auth/login';
const LOGOUT = 'POST /api/v3/store/auth/logout';
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/** The JSON bodies of the calls to `route`. */
function bodies(calls: Call[], route: string): Promise<unknown[]> {
  return Promise.all(calls.filter((call) => call.route === route).map(async (call) => JSON.parse(await call.body) as unknown));
}

/** A page's own Store API login, as the SDK sends it. */
function pageLogin(): Request {
  return new Request(`${BASE}/api/v3/store/auth/login`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Spree-Api-Key': KEY }, body: '{"email":"a@example.com","password":"pw"}' });
}

describe('a token response the worker refuses to keep', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  });
  after(() => {
    globalThis.BroadcastChannel = channel;
  });

  for (const [what, token] of [
    ['a JWT already expired', storeApiJwt(Date.now() / 1000 - 5)],
    ['a token that is no JWT', 'opaque-access-token'],
  ] as const) {
    it(`a page's own v3 login answered with ${what}: sealed for the page, not kept, and its refresh token revoked`, async () => {
      const { through, settled, calls, storage } = routedWorker(V3, NOTHING, {
        [LOGIN]: () => Response.json({ token, refresh_token: 'rT9refused0000000000000x', user: { id: 'cus_1' } }),
        [LOGOUT]: () => new Response(null, { status: 204 }),
      });
      await settle();
      const response = await through(pageLogin());
      assert.ok(response !== null);
      assert.deepEqual(JSON.parse(await response.text()), { token: 'sealed:access', refresh_token: 'sealed:refresh', user: { id: 'cus_1' } });
      await settled();
      assert.deepEqual(await storage.read(), NOTHING);
      assert.deepEqual(await bodies(calls, LOGOUT), [{ refresh_token: 'rT9refused0000000000000x' }]);
    });
  }

  it('with sealing off the page holds the real pair it read, so it is not revoked', async () => {
    const { through, settled, calls } = routedWorker({ ...V3, sealTokens: false }, NOTHING, {
      [LOGIN]: () => Response.json({ token: 'opaque-access-token', refresh_token: 'rT9unsealed00000000000x', user: { id: 'cus_1' } }),
    });
    await settle();
    await through(pageLogin());
    await settled();
    assert.deepEqual(calls.map((call) => call.route), [LOGIN]);
  });

  it('a kept grant, or a body with no pair in it, revokes nothing', async () => {
    for (const answer of [{ token: storeApiJwt(Date.now() / 1000 + 3600), refresh_token: 'rT9kept', user: {} }, { token: 'opaque-access-token', user: {} }, { error: 'odd' }]) {
      const { through, settled, calls } = routedWorker(V3, NOTHING, { [LOGIN]: () => Response.json(answer) });
      await settle();
      await through(pageLogin());
      await settled();
      assert.deepEqual(calls.map((call) => call.route), [LOGIN], JSON.stringify(answer));
    }
  });

  it("a page's own v3 login is judged against its answer's Date: a server clock 65 minutes behind signs the shopper in", async () => {
    const serverNow = Date.now() - 65 * 60_000;
    const { through, settled, calls, storage } = routedWorker(V3, NOTHING, {
      [LOGIN]: () => Response.json({ token: storeApiJwt(Math.floor(serverNow / 1000) + 3600), refresh_token: 'rT9skewed', user: {} }, { headers: { Date: new Date(serverNow).toUTCString() } }),
    });
    await settle();
    await through(pageLogin());
    await settled();
    const session = (await storage.read()).session;
    assert.equal(session?.refreshToken, 'rT9skewed');
    assert.ok(session !== null && session !== undefined && session.lifetimeMs > HOUR - 3_000 && session.lifetimeMs <= HOUR, String(session?.lifetimeMs));
    assert.deepEqual(calls.map((call) => call.route), [LOGIN], 'nothing revoked');
  });

  it('spree: a malformed success to a page’s own grant has both its tokens revoked', async () => {
    const { through, settled, calls } = routedWorker({ preset: 'spree' }, NOTHING, {
      'POST /spree_oauth/token': () => Response.json({ access_token: 'access-odd', refresh_token: 'refresh-odd', token_type: 'mac', expires_in: 7200 }),
      'POST /spree_oauth/revoke': () => Response.json({}),
    });
    await settle();
    await through(new Request(`${BASE}/spree_oauth/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', username: 'a', password: 'b' }) }));
    await settled();
    const revoked = await Promise.all(calls.filter((call) => call.route === 'POST /spree_oauth/revoke').map(async (call) => new URLSearchParams(await call.body).get('token')));
    assert.deepEqual(revoked.sort(), ['access-odd', 'refresh-odd']);
  });

  it('a lone token is revoked where the preset can: spree revokes an access token without its refresh token; v3 a refresh token without its JWT, and cannot end a JWT alone', async () => {
    const spree = routedWorker({ preset: 'spree' }, NOTHING, {
      'POST /spree_oauth/token': () => Response.json({ access_token: 'access-lone', token_type: 'Bearer', expires_in: 7200 }),
      'POST /spree_oauth/revoke': () => Response.json({}),
    });
    await settle();
    await spree.through(new Request(`${BASE}/spree_oauth/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', username: 'a', password: 'b' }) }));
    await spree.settled();
    assert.deepEqual(await Promise.all(spree.calls.slice(1).map(async (call) => new URLSearchParams(await call.body).get('token'))), ['access-lone']);

    for (const [answer, revoked] of [
      [{ refresh_token: 'rT9lone', user: {} }, [{ refresh_token: 'rT9lone' }]],
      [{ token: storeApiJwt(Date.now() / 1000 + 3600), user: {} }, []],
    ] as const) {
      const { through, settled, calls } = routedWorker(V3, NOTHING, { [LOGIN]: () => Response.json(answer), [LOGOUT]: () => new Response(null, { status: 204 }) });
      await settle();
      await through(pageLogin());
      await settled();
      assert.deepEqual(await bodies(calls, LOGOUT), revoked, JSON.stringify(answer));
    }
  });

  it("a v3 refresh of the worker's own whose success it cannot keep: the pair it issued is revoked, the pair held kept for now", async () => {
    // Due (10 s left of an hour), so the page's call refreshes first; the bearer still serves it.
    const stale = { accessToken: storeApiJwt(Date.now() / 1000 + 10), refreshToken: 'rT9old', expiresAt: Date.now() + 10_000, lifetimeMs: HOUR, confirmed: true };
    const { through, settled, calls, storage } = routedWorker(V3, { cart: null, session: stale, backoff: null }, {
      'POST /api/v3/store/auth/refresh': () => Response.json({ token: 'opaque-access-token', refresh_token: 'rT9issued', user: {} }),
      'GET /api/v3/store/customers/me': () => Response.json({ id: 'cus_1' }),
      [LOGOUT]: () => new Response(null, { status: 204 }),
    });
    await settle();
    const response = await through(new Request(`${BASE}/api/v3/store/customers/me`, { headers: { 'X-Spree-Api-Key': KEY } }));
    assert.equal(response?.status, 200);
    await settled();
    // Not under keepAlive (the refresher has none): it lands within a few turns.
    for (let i = 0; i < 10 && calls.every((call) => call.route !== LOGOUT); i++) await settle();
    assert.deepEqual(await bodies(calls, LOGOUT), [{ refresh_token: 'rT9issued' }]);
    assert.equal((await storage.read()).session?.refreshToken, 'rT9old', 'the pair held is kept');
  });
});
