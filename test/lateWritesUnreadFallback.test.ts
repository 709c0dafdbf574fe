// Late writes with nothing read (the memory copy being re-read: heldCredentials.ts `unread`), then
// IndexedDB failing: the memory store that takes over (`#lose`) is seeded from the memory copy, a
// stand-in that holds every late change already. docs/behaviour.md: "a pair the server issued is never
// abandoned live"; a logout aims that "neither token works at the server afterwards" (of the pair it
// forgot), and a pair the shopper holds is never revoked.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { memoryStorage, type CredentialStorage, type Credentials } from '../src/sw/credentialStorage.js';
import { routedWorker, type Call } from './workerHarness.js';

const HOUR = 3_600_000;

/** Storage whose reads and writes wait while stalled, and which fails every waiting write on `fail()`. */
function failingStorage(initial: Credentials) {
  const stored = memoryStorage(initial);
  let gate: Promise<void> | null = null;
  let failing = false;
  let open = (): void => {};
  const storage: CredentialStorage = {
    read: async () => (await gate, stored.read()),
    update: async (change) => {
      await gate;
      if (failing) throw new DOMException('The transaction was aborted', 'AbortError');
      return stored.update(change);
    },
  };
  return {
    storage,
    stall: () => void (gate = new Promise<void>((resolve) => (open = resolve))),
    fail: () => {
      failing = true;
      open();
    },
  };
}

const channel = globalThis.BroadcastChannel;
before(() => void ((globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined));
after(() => void ((globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = channel));

describe('a logout late with the memory copy being re-read, then a login, then storage fails', () => {
  it('never revokes the pair of the login after the logout', { timeout: 20_000 }, async () => {
    const FIRST = { accessToken: 'u1"Ac/c\\ess+q', refreshToken: 'u1\\Re+f"resh/w', expiresAt: Date.now() + HOUR, lifetimeMs: HOUR, confirmed: true };
    const HELD: Credentials = { cart: null, session: FIRST, backoff: null, signInId: 'sid-u1' };
    const NEXT = { access_token: 'u2+Ac"c/es\\s7', refresh_token: 'u2/Re\\fr"es+h6' };
    const shared = failingStorage(HELD);
    const revoked: string[] = [];
    const a = routedWorker({ preset: 'spree' }, HELD, {
      'POST /spree_oauth/token': () => Response.json({ ...NEXT, token_type: 'Bearer', expires_in: 7200, created_at: Math.floor(Date.now() / 1000) }),
      'POST /spree_oauth/revoke': async (call: Call) => (revoked.push(new URLSearchParams(await call.body).get('token') ?? ''), Response.json({})),
    }, Date.now, { storage: shared.storage });
    assert.equal((await a.worker.actions.getState()).state.signedIn, true);
    // Storage turns slow, and the memory copy is re-read (another context changed storage: here, nothing did).
    shared.stall();
    a.worker.forgetMemoryCopy('closed');
    assert.equal((await a.worker.actions.logout(a.keepAlive)).state.signedIn, false);
    const login = await a.worker.actions.login('again@example.com', 'a/g"a+i\\n', a.keepAlive, AbortSignal.timeout(9_000));
    assert.equal(login.state.signedIn, true);
    shared.fail();
    await a.settled();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await a.settled();
    assert.equal((await a.worker.actions.getState()).state.signedIn, true, 'the shopper is signed in with the new pair, in memory');
    assert.ok(!revoked.includes(NEXT.refresh_token) && !revoked.includes(NEXT.access_token), `the pair the shopper holds must not be revoked; revoked: ${JSON.stringify(revoked)}`);
    // FIRST, never read back into memory before storage failed, is not asserted: storage failing
    // mid-re-read starts as "nothing held" (a known limitation).
  });
});

describe('a login late with the memory copy being re-read, then a refresh of its pair late too, then storage fails', () => {
  it('never revokes the rotated pair the worker holds', { timeout: 30_000 }, async () => {
    const FIRST = { accessToken: 'v1\\Ac+c"es/s', refreshToken: 'v1"Re/fr\\es+h', expiresAt: Date.now() + HOUR, lifetimeMs: HOUR, confirmed: true };
    const HELD: Credentials = { cart: null, session: FIRST, backoff: null, signInId: 'sid-v1' };
    const LOGIN = ['v2/Ac"ce+ss\\a', 'v2+Re\\fr"esh/b'] as const;
    const ROTATED = ['v3"Ac+ce\\ss/c', 'v3\\Re/fr+esh"d'] as const;
    const shared = failingStorage(HELD);
    const revoked: string[] = [];
    const answers = [LOGIN, ROTATED];
    let accountCalls = 0;
    const a = routedWorker({ preset: 'spree' }, HELD, {
      'POST /spree_oauth/token': () => {
        const [access, refresh] = answers.shift()!;
        return Response.json({ access_token: access, refresh_token: refresh, token_type: 'Bearer', expires_in: 7200, created_at: Math.floor(Date.now() / 1000) });
      },
      'POST /spree_oauth/revoke': async (call: Call) => (revoked.push(new URLSearchParams(await call.body).get('token') ?? ''), Response.json({})),
      'GET /api/v2/storefront/account': () => (accountCalls++ === 0 ? new Response(null, { status: 401 }) : Response.json({ data: { id: '1', type: 'user', attributes: {} } })),
    }, Date.now, { storage: shared.storage });
    assert.equal((await a.worker.actions.getState()).state.signedIn, true);
    shared.stall();
    a.worker.forgetMemoryCopy('closed');
    assert.equal((await a.worker.actions.login('next@example.com', 'n\\e"x/t+', a.keepAlive, AbortSignal.timeout(9_000))).state.signedIn, true);
    // The page's account call: its bearer is refused, the worker refreshes (storage still slow) and replays.
    const answer = await a.through(new Request('https://shop.example/store/api/v2/storefront/account'));
    assert.equal(answer?.status, 200);
    shared.fail();
    await a.settled();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await a.settled();
    assert.equal((await a.worker.actions.getState()).state.signedIn, true, 'the shopper is signed in, in memory');
    const calls = a.calls.map((call) => call.route);
    assert.ok(calls.filter((route) => route === 'POST /spree_oauth/token').length === 2, `the login and one refresh: ${JSON.stringify(calls)}`);
    assert.ok(!revoked.includes(ROTATED[1]) && !revoked.includes(ROTATED[0]), `the rotated pair the worker holds must not be revoked; revoked: ${JSON.stringify(revoked)}`);
  });
});
