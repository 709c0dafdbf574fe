// A refresh or a logout whose write outlasts the storage wait while the memory copy is being re-read
// (another worker's announcement invalidated it, a cart made in another tab say, or the browser
// closed the connection). What the write replaced is known only once it lands: judged against the
// stand-in ("nothing held"), the refresh took itself for one that landed after a logout and revoked
// the pair it stored, and the logout revoked nothing (docs/behaviour.md, "Bounds on every wait").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AuthState } from '../src/shared/state.js';
import type { Announcer } from '../src/sw/announcer.js';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { spree } from '../src/sw/dialects/spree.js';
import { HeldCredentials } from '../src/sw/heldCredentials.js';
import { sendOwn } from '../src/sw/outbound.js';
import { SessionRefresher } from '../src/sw/sessionRefresher.js';
import { routedWorker } from './workerHarness.js';
import { stallingStorage } from './fakes.js';

const BASE_URL = 'https://shop.example/store';
const NOW = 1_700_000_000_000;
const HOUR = 3_600_000;
const OLD = { accessToken: 'acc/1+"a\\', refreshToken: 'ref/1+"r\\', expiresAt: NOW + 10_000, lifetimeMs: HOUR, confirmed: true };
const NEW_ACCESS = 'acc/2+Qz"\\';
const NEW_REFRESH = 'ref/2+Wq"\\';

describe('a refresh whose write outlasts the wait during a re-read', () => {
  // What happened elsewhere while the grant was on its way: a cart made in another tab (the pair is
  // kept), or a logout in another worker (nobody holds the pair the refresh brings).
  for (const [elsewhere, loggedOut] of [['a cart made in another tab', false], ['a logout in another worker', true]] as const) {
    it(`${loggedOut ? 'revokes the new pair once the write lands, and only then' : 'keeps the new pair live: the pair it stored is never revoked'} (${elsewhere})`, async () => {
      const { stored: inner, storage, stall, resume } = stallingStorage({ cart: null, session: OLD, backoff: null });
      const revoked: string[] = [];
      let held!: HeldCredentials;
      const fetchFn: typeof fetch = async (input, init) => {
        const url = String(input);
        const body = new URLSearchParams(init?.body as URLSearchParams);
        if (url.endsWith('/spree_oauth/revoke')) {
          revoked.push(body.get('token') ?? '');
          return Response.json({});
        }
        assert.equal(body.get('grant_type'), 'refresh_token');
        // While the grant is on its way: another context changes storage and says so (the memory
        // copy is re-read), and the disk stalls (a stuck disk, an open blocked behind another connection).
        await inner.update((previous) => (loggedOut ? { cart: null, session: null, backoff: null } : { ...previous, cart: { token: 'c/+"9\\x', number: 'R1' } }));
        stall();
        held.invalidate();
        return Response.json({ access_token: NEW_ACCESS, token_type: 'Bearer', expires_in: 3600, refresh_token: NEW_REFRESH, created_at: NOW / 1000 });
      };
      const announcer = { announce: (_type: string, _state: AuthState) => 'id' } as unknown as Announcer;
      held = new HeldCredentials(storage, { failed: () => {}, superseded: () => {} }, 50);
      await held.load();
      const refresher = new SessionRefresher({ held, announcer, options: { dialect: spree }, send: (request, limits) => sendOwn(fetchFn, BASE_URL, request, () => NOW, limits), now: () => NOW, log: undefined }, 'slow-write-lock');

      const outcome = await refresher.refresh(OLD);
      assert.deepEqual(revoked, [], 'nothing is revoked before the write lands');
      resume();
      await new Promise((resolve) => setTimeout(resolve, 20));
      const stored: Credentials = await inner.read();
      if (loggedOut) {
        assert.equal(stored.session, null, 'the logout stands');
        assert.deepEqual(revoked.sort(), [NEW_ACCESS, NEW_REFRESH].sort(), 'the pair nobody holds is revoked');
      } else {
        assert.equal(stored.session?.refreshToken, NEW_REFRESH, 'storage holds the new pair');
        assert.equal(stored.cart?.number, 'R1', "the other tab's cart stands");
        assert.deepEqual(revoked, [], `the pair the worker keeps is not revoked (outcome ${outcome.kind})`);
        assert.equal(outcome.kind, 'fresh');
      }
    });
  }
});

describe('a logout whose write outlasts the wait during a re-read', () => {
  it('still revokes the pair it forgets', { timeout: 10_000 }, async () => {
    const session = { accessToken: 'lA/3+"c\\d', refreshToken: 'lR/3+"e\\f', expiresAt: Date.now() + HOUR, lifetimeMs: HOUR, confirmed: true };
    const { stored: inner, storage, stall, resume } = stallingStorage({ cart: null, session, backoff: null });
    const revoked: string[] = [];
    const channel = globalThis.BroadcastChannel;
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
    try {
      const { worker, keepAlive, settled } = routedWorker({ preset: 'spree' }, { cart: null, session: null, backoff: null }, {
        'POST /spree_oauth/revoke': async (call) => (revoked.push(new URLSearchParams(await call.body).get('token') ?? ''), Response.json({})),
      }, Date.now, { storage });
      await worker.actions.getState();
      // The disk stalls, and the connection is closed by the browser (or another worker announces a
      // change): the memory copy is re-read.
      stall();
      worker.forgetMemoryCopy('closed');
      await worker.actions.logout(keepAlive);
      resume();
      await settled();
      assert.equal((await inner.read()).session, null, 'storage forgot the pair');
      assert.deepEqual(revoked.sort(), [session.accessToken, session.refreshToken].sort(), 'both tokens revoked');
    } finally {
      globalThis.BroadcastChannel = channel;
    }
  });
});
