// A page's own refresh grant whose answer lands after the pair it spent is no longer held
// (docs/behaviour.md, "What is kept from answers" and "Refresh": a pair a refresh brings after the
// shopper logged out is revoked, never kept), through RequestPath with memory storage and a routed
// fetch: unsealed, the page's grant spends the real refresh token, and its pair is revoked instead
// of signing the shopper back in; sealed, the page's `sealed:refresh` is the worker's own refresh,
// which does the same. A page's refresh that lands while its pair is still held continues the
// sign-in, and one of a pair the worker never held starts one, as before.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Session } from '../src/sw/tokenResponse.js';
import { deferred } from './fakes.js';
import { BASE, routedWorker, type Call } from './workerHarness.js';

const NOW = 1_700_000_000_000;
const HOUR = 3_600_000;
const ALICE: Session = { accessToken: 'access-alice', refreshToken: 'refresh-alice', expiresAt: NOW + HOUR, lifetimeMs: HOUR, confirmed: true };
const GRANT = 'POST /spree_oauth/token';
const REVOKE = 'POST /spree_oauth/revoke';
const tick = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
};
const pageRefresh = (refreshToken: string): Request =>
  new Request(`${BASE}/spree_oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: `grant_type=refresh_token&refresh_token=${refreshToken}`,
  });
const rotated = (): Response => Response.json({ access_token: 'access-2', token_type: 'Bearer', expires_in: 3600, refresh_token: 'refresh-2', created_at: NOW / 1000 });
const revoked = async (calls: Call[]): Promise<string[]> =>
  Promise.all(calls.filter((call) => call.route === REVOKE).map(async (call) => new URLSearchParams(await call.body).get('token') ?? ''));

describe("a page's own refresh grant whose pair is no longer held when it lands", () => {
  const channel = globalThis.BroadcastChannel;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  });
  after(() => {
    globalThis.BroadcastChannel = channel;
  });

  it('unsealed, landing after a logout: the shopper stays signed out and the pair it brought is revoked', async () => {
    const grant = deferred<Response>();
    const { worker, calls, storage, keepAlive, settled, through, announced } = routedWorker({ preset: 'spree', sealTokens: false }, { cart: null, session: ALICE, backoff: null }, {
      [GRANT]: () => grant.promise,
      [REVOKE]: () => Response.json({}),
    }, () => NOW);
    const refreshing = through(pageRefresh('refresh-alice'));
    await tick();
    await worker.actions.logout(keepAlive);
    const afterLogout = announced.length;
    grant.resolve(rotated());
    assert.equal((await refreshing)?.status, 200, "the page's answer is its own");
    await settled();
    assert.equal((await storage.read()).session, null);
    assert.equal(announced.length, afterLogout, 'no change announced after the logout');
    assert.deepEqual((await revoked(calls)).sort(), ['access-2', 'access-alice', 'refresh-2', 'refresh-alice']);
  });

  it('unsealed, landing after the pair was rotated elsewhere: the rotated pair stays, the one it brought is revoked', async () => {
    const grant = deferred<Response>();
    const { storage, calls, settled, through } = routedWorker({ preset: 'spree', sealTokens: false }, { cart: null, session: ALICE, backoff: null, signInId: 'alice' }, {
      [GRANT]: () => grant.promise,
      [REVOKE]: () => Response.json({}),
    }, () => NOW);
    const refreshing = through(pageRefresh('refresh-alice'));
    await tick();
    const other: Session = { ...ALICE, accessToken: 'access-w', refreshToken: 'refresh-w' };
    await storage.update((previous) => ({ ...previous, session: other }));
    grant.resolve(rotated());
    await refreshing;
    await settled();
    const stored = await storage.read();
    assert.equal(stored.session?.refreshToken, 'refresh-w');
    assert.equal(stored.signInId, 'alice');
    assert.deepEqual((await revoked(calls)).sort(), ['access-2', 'refresh-2']);
  });

  it('sealed, landing after a logout: the page gets the refusal, the shopper stays signed out and the pair is revoked', async () => {
    const due: Session = { ...ALICE, expiresAt: NOW + 10_000 };
    const grant = deferred<Response>();
    const { worker, calls, storage, keepAlive, settled, through } = routedWorker({ preset: 'spree' }, { cart: null, session: due, backoff: null }, {
      [GRANT]: () => grant.promise,
      [REVOKE]: () => Response.json({}),
    }, () => NOW);
    const refreshing = through(pageRefresh('sealed:refresh'));
    await tick();
    assert.equal(new URLSearchParams(await calls[0]?.body).get('refresh_token'), 'refresh-alice', "the worker's own refresh");
    await worker.actions.logout(keepAlive);
    grant.resolve(rotated());
    const answer = await refreshing;
    await settled();
    assert.equal(answer?.status, 400);
    assert.equal((await storage.read()).session, null);
    assert.ok((await revoked(calls)).includes('refresh-2'));
  });

  it('unsealed, landing while its pair is still held: the sign-in goes on with the new pair', async () => {
    const { storage, settled, through } = routedWorker({ preset: 'spree', sealTokens: false }, { cart: null, session: ALICE, backoff: null, signInId: 'alice' }, {
      [GRANT]: () => rotated(),
    }, () => NOW);
    await through(pageRefresh('refresh-alice'));
    await settled();
    const stored = await storage.read();
    assert.equal(stored.session?.refreshToken, 'refresh-2');
    assert.equal(stored.signInId, 'alice');
  });

  it('unsealed, of a pair the worker never held: kept, a new sign-in', async () => {
    const { storage, settled, through } = routedWorker({ preset: 'spree', sealTokens: false }, { cart: null, session: null, backoff: null }, {
      [GRANT]: () => rotated(),
    }, () => NOW);
    await through(pageRefresh('refresh-page'));
    await settled();
    assert.equal((await storage.read()).session?.refreshToken, 'refresh-2');
  });
});
