// The worker's own grants and revocations against the reference storefront's own Doorkeeper model
// (demo/storefront/tokens.mjs): a logout leaves no refresh token of the shopper working, a page's own
// grant or revocation in a FormData body is read as a form's, and a login never revokes the pair it
// keeps (docs/security.md, "Revocation").
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Credentials } from '../src/sw/credentialStorage.js';
// @ts-expect-error: the demo's plain-JS token store, Doorkeeper's rotation and revocation rules.
import { TokenStore, tokenEndpoint, revokeEndpoint, parseTokenParams } from '../demo/storefront/tokens.mjs';
import { BASE, routedWorker, type Routes } from './workerHarness.js';

const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

interface Pair {
  accessToken: string;
  refreshToken: string;
  expiresAt: number;
}

/** A Doorkeeper 5.5 server (rotation revokes the old pair on the new bearer's first use) behind the spree preset's routes. */
function doorkeeper(): { store: { issue(user: string): Pair; refresh(token: string): Pair | null; authenticate(header?: string): { kind: string } }; routes: Routes } {
  const store = new TokenStore({ lifetime: 7200, rotation: 'doorkeeper', revocation: 'doorkeeper-5.5' });
  const reply = (r: { status: number; headers?: Record<string, string>; body: unknown }): Response => Response.json(r.body, { status: r.status, headers: r.headers ?? {} });
  const routes: Routes = {
    'POST /spree_oauth/token': async (call) => reply(tokenEndpoint(store, () => ({ id: 'u1' }), parseTokenParams(call.request.headers.get('Content-Type') ?? undefined, await call.body))),
    'POST /spree_oauth/revoke': async (call) => reply(revokeEndpoint(store, parseTokenParams(call.request.headers.get('Content-Type') ?? undefined, await call.body))),
    'GET /api/v2/storefront/account': (call) => {
      const auth = store.authenticate(call.request.headers.get('Authorization') ?? undefined);
      return auth.kind === 'user' ? Response.json({ data: { id: '1', type: 'user' } }) : Response.json({ error: auth.kind }, { status: auth.kind === 'guest' ? 403 : 401 });
    },
  };
  return { store, routes };
}

describe('grants and revocations', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  });
  after(() => {
    globalThis.BroadcastChannel = channel;
  });

  it('a logout right after a refresh whose new bearer was never used leaves no refresh token of the shopper working (Doorkeeper rotation)', async () => {
    const { store, routes } = doorkeeper();
    const first = store.issue('u1');
    // Held with 10 s left of two hours: due, so the page's sealed refresh makes the worker refresh.
    const held: Credentials = { cart: null, session: { accessToken: first.accessToken, refreshToken: first.refreshToken, expiresAt: Date.now() + 10_000, lifetimeMs: 7_200_000, confirmed: true }, backoff: null };
    const { worker, through, settled, keepAlive, storage } = routedWorker({ preset: 'spree' }, held, routes);
    await settle();
    // The Spree SDK refreshes with the placeholder it was given: answered from the worker's single refresh.
    const answer = await through(new Request(`${BASE}/spree_oauth/token`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"grant_type":"refresh_token","refresh_token":"sealed:refresh"}' }));
    assert.equal(answer?.status, 200);
    const rotated = (await storage.read()).session;
    assert.ok(rotated !== null && rotated !== undefined && rotated.refreshToken !== first.refreshToken, 'the worker rotated the pair');
    // The shopper logs out before the new bearer went to any resource.
    await worker.actions.logout(keepAlive);
    await settled();
    // "The goal of revocation is that neither token works at the server afterwards": the rotated pair
    // is revoked, but Doorkeeper revokes the pair it replaced only on the new bearer's first use.
    assert.equal(store.refresh(rotated.refreshToken), null, 'the held refresh token is dead');
    assert.equal(store.refresh(first.refreshToken), null, "the shopper's previous refresh token still refreshes after logout");
  });
});

describe('a page’s own grant or revocation sent as multipart form data', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  });
  after(() => {
    globalThis.BroadcastChannel = channel;
  });
  const SESSION = { accessToken: 'a/ccess+Real"1\\', refreshToken: 'r+efresh/Real"2\\', expiresAt: Date.now() + 3_600_000, lifetimeMs: 7_200_000, confirmed: true };

  it('spree: POST /spree_oauth/revoke with a FormData body naming sealed:access is the worker’s logout', async () => {
    const { calls, settled, storage, through } = routedWorker({ preset: 'spree' }, { cart: null, session: SESSION, backoff: null }, { 'POST /spree_oauth/revoke': () => Response.json({}) });
    await settle();
    const form = new FormData();
    form.append('token', 'sealed:access');
    const response = await through(new Request(`${BASE}/spree_oauth/revoke`, { method: 'POST', body: form }));
    assert.equal(response?.status, 200);
    await settled();
    const sent = await Promise.all(calls.map((call) => call.body));
    assert.ok(!sent.some((body) => body.includes('sealed:')), `a placeholder reached the server: ${sent.join(' | ')}`);
    assert.equal((await storage.read()).session, null, 'the page revoked its token, yet the worker still holds the pair');
  });
});

describe('a page’s own sealed refresh grant sent as multipart form data', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  });
  after(() => {
    globalThis.BroadcastChannel = channel;
  });

  it('spree: refresh_token=sealed:refresh in a FormData body never reaches the server', async () => {
    const session = { accessToken: 'a/cc+ess"R\\3', refreshToken: 'r/ef+resh"R\\4', expiresAt: Date.now() + 3_600_000, lifetimeMs: 7_200_000, confirmed: true };
    const { calls, settled, storage, through } = routedWorker({ preset: 'spree' }, { cart: null, session, backoff: null }, {
      'POST /spree_oauth/token': () => Response.json({ error: 'invalid_grant', error_description: 'The provided authorization grant is invalid.' }, { status: 400 }),
    });
    await settle();
    const form = new FormData();
    form.append('grant_type', 'refresh_token');
    form.append('refresh_token', 'sealed:refresh');
    const response = await through(new Request(`${BASE}/spree_oauth/token`, { method: 'POST', body: form }));
    await settled();
    assert.equal((await storage.read()).session?.refreshToken, session.refreshToken, 'the worker still holds its pair');
    const sent = await Promise.all(calls.map((call) => call.body));
    assert.deepEqual(sent, [], `the placeholder went to the server (${sent.join(' | ')}), which refused it ${response?.status}: the page's SDK now thinks the session ended`);
  });
});

describe('a login answered with the pair already held', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  });
  after(() => {
    globalThis.BroadcastChannel = channel;
  });

  // Doorkeeper's `reuse_access_token` answers a password grant with the user's live pair; two tabs
  // signing in the same shopper race into the same answer.
  it('spree: the pair it keeps is never revoked as "replaced"', async () => {
    const access = 'Ac/c+ess"Same\\1';
    const refresh = 'Re/f+resh"Same\\2';
    const held: Credentials = { cart: null, session: { accessToken: access, refreshToken: refresh, expiresAt: Date.now() + 3_600_000, lifetimeMs: 7_200_000, confirmed: true }, backoff: null };
    const { worker, calls, settled, keepAlive, storage } = routedWorker({ preset: 'spree' }, held, {
      'POST /spree_oauth/token': () => Response.json({ access_token: access, token_type: 'Bearer', expires_in: 7200, refresh_token: refresh, created_at: Math.floor(Date.now() / 1000) }),
      'POST /spree_oauth/revoke': () => Response.json({}),
    });
    await settle();
    const result = await worker.actions.login('shopper@example.com', 'pw', keepAlive, AbortSignal.timeout(8_000));
    await settled();
    assert.equal(result.state.signedIn, true);
    assert.equal((await storage.read()).session?.refreshToken, refresh, 'the pair is held');
    const revoked = await Promise.all(calls.filter((call) => call.route === 'POST /spree_oauth/revoke').map(async (call) => new URLSearchParams(await call.body).get('token')));
    assert.deepEqual(revoked, [], 'the worker revoked the very pair it holds');
  });
});
