// A refresh or a logout whose write outlasts the storage wait while the memory copy is being re-read
// (another worker's announcement invalidated it, a cart made in another tab say, or the browser
// closed the connection). What the write replaced is known only once it lands: judged against the
// stand-in ("nothing held"), the refresh took itself for one that landed after a logout and revoked
// the pair it stored, and the logout revoked nothing; so did a logout right after such a refresh, and a
// refresh after another late write of this worker, whose memory copy was still that stand-in
// (docs/behaviour.md, "Bounds on every wait").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AuthState } from '../src/shared/state.js';
import type { Announcer } from '../src/sw/announcer.js';
import { BridgeActions } from '../src/sw/bridgeActions.js';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { HeldCredentials } from '../src/sw/heldCredentials.js';
import { resolveOptions } from '../src/sw/options.js';
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

/** What a test sees of a worker whose storage stalls while a refresh grant is on its way. */
interface Stalled {
  /** The storage beneath, read and changed directly. */
  stored: ReturnType<typeof stallingStorage>['stored'];
  held: HeldCredentials;
  refresher: SessionRefresher;
  actions: BridgeActions;
  resume(): void;
  /** The tokens posted to the revocation endpoint. */
  revoked: string[];
  /** What the worker handed to `keepAlive`. */
  kept: Promise<unknown>[];
  keepAlive(work: Promise<unknown>): void;
}

/** What happens while the grant is on its way: `before` the disk stalls (another context's change), and `after`. */
interface DuringGrant {
  before?(worker: Stalled): Promise<unknown>;
  after?(worker: Stalled): Promise<unknown>;
}

/**
 * A worker holding OLD over storage that stalls while its refresh grant is on its way, at a `spree`
 * server that records revocations: during the grant, `during.before` runs, then the disk stalls and
 * the memory copy is invalidated (re-read), `during.after` runs, and the grant brings the new pair.
 */
async function stalledRefresh(lockName: string, during: DuringGrant = {}): Promise<Stalled> {
  const { stored, storage, stall, resume } = stallingStorage({ cart: null, session: OLD, backoff: null });
  const revoked: string[] = [];
  const kept: Promise<unknown>[] = [];
  const fetchFn: typeof fetch = async (input, init) => {
    const body = new URLSearchParams(init?.body as URLSearchParams);
    if (String(input).endsWith('/spree_oauth/revoke')) {
      revoked.push(body.get('token') ?? '');
      return Response.json({});
    }
    assert.equal(body.get('grant_type'), 'refresh_token');
    await during.before?.(worker);
    stall();
    held.invalidate();
    await during.after?.(worker);
    return Response.json({ access_token: NEW_ACCESS, token_type: 'Bearer', expires_in: 3600, refresh_token: NEW_REFRESH, created_at: NOW / 1000 });
  };
  const announcer = { announce: (_type: string, _state: AuthState) => 'id' } as unknown as Announcer;
  const held = new HeldCredentials(storage, { failed: () => {}, superseded: () => {} }, 50);
  await held.load();
  const options = resolveOptions({ baseUrl: BASE_URL, preset: 'spree' }, 'https://shop.example/sw.js');
  const send = (request: Parameters<typeof sendOwn>[2], limits?: Parameters<typeof sendOwn>[4]) => sendOwn(fetchFn, BASE_URL, request, () => NOW, limits);
  const refresher = new SessionRefresher({ held, announcer, options, send, now: () => NOW, log: undefined }, lockName);
  const actions = new BridgeActions({ options, held, announcer, fetch: fetchFn, send, now: () => NOW, log: undefined, writes: null, refresher });
  const worker: Stalled = { stored, held, refresher, actions, resume, revoked, kept, keepAlive: (work) => void kept.push(work) };
  return worker;
}

/** Resumes the disk and waits for everything the worker kept alive, and what that started. */
async function landed(worker: Stalled): Promise<void> {
  worker.resume();
  await new Promise((resolve) => setTimeout(resolve, 30));
  for (let seen = 0; seen < worker.kept.length; seen = worker.kept.length) await Promise.allSettled(worker.kept);
  await new Promise((resolve) => setTimeout(resolve, 30));
}

describe('a refresh whose write outlasts the wait during a re-read', () => {
  // What happened elsewhere while the grant was on its way: a cart made in another tab (the pair is
  // kept), or a logout in another worker (nobody holds the pair the refresh brings).
  for (const [elsewhere, loggedOut] of [['a cart made in another tab', false], ['a logout in another worker', true]] as const) {
    it(`${loggedOut ? 'revokes the new pair once the write lands, and only then' : 'keeps the new pair live: the pair it stored is never revoked'} (${elsewhere})`, async () => {
      const worker = await stalledRefresh('slow-write-lock', {
        before: ({ stored }) => stored.update((previous) => (loggedOut ? { cart: null, session: null, backoff: null } : { ...previous, cart: { token: 'c/+"9\\x', number: 'R1' } })),
      });
      const outcome = await worker.refresher.refresh(OLD);
      assert.deepEqual(worker.revoked, [], 'nothing is revoked before the write lands');
      worker.resume();
      await new Promise((resolve) => setTimeout(resolve, 20));
      const stored: Credentials = await worker.stored.read();
      if (loggedOut) {
        assert.equal(stored.session, null, 'the logout stands');
        assert.deepEqual(worker.revoked.sort(), [NEW_ACCESS, NEW_REFRESH].sort(), 'the pair nobody holds is revoked');
      } else {
        assert.equal(stored.session?.refreshToken, NEW_REFRESH, 'storage holds the new pair');
        assert.equal(stored.cart?.number, 'R1', "the other tab's cart stands");
        assert.deepEqual(worker.revoked, [], `the pair the worker keeps is not revoked (outcome ${outcome.kind})`);
        assert.equal(outcome.kind, 'fresh');
      }
    });
  }

  it('never revokes the pair it stored after another write of this worker outlasted its wait (a cart kept meanwhile)', async () => {
    // During the grant a page's response brings a cart, whose write outlasts its wait as well.
    const worker = await stalledRefresh('stand-in-lock-2', {
      after: (self) => self.actions.keepCart({ token: 'c\\9/+"t', number: 'R77' }, null, self.keepAlive),
    });
    const outcome = await worker.refresher.refresh(OLD);
    await landed(worker);
    const stored = await worker.stored.read();
    assert.equal(stored.session?.refreshToken, NEW_REFRESH, 'storage keeps the new pair');
    assert.deepEqual(worker.revoked, [], `the pair storage keeps is not revoked (outcome ${outcome.kind})`);
  });
});

describe('a logout right after a refresh whose write outlasted its wait during a re-read', () => {
  it('revokes the pair the refresh stored and the logout forgot', async () => {
    const worker = await stalledRefresh('stand-in-lock');
    const outcome = await worker.refresher.refresh(OLD);
    assert.equal(outcome.kind, 'fresh');
    // The shopper logs out while the disk is still stalled.
    await worker.actions.logout(worker.keepAlive);
    await landed(worker);
    assert.equal((await worker.stored.read()).session, null, 'storage forgot the pair');
    assert.ok(worker.revoked.includes(NEW_REFRESH), `the refresh token storage held and the logout forgot is revoked (revoked: ${JSON.stringify(worker.revoked)})`);
  });
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
