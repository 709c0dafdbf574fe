// The worker's memory copy of the stored credentials (docs/behaviour.md, State: "no request waits
// on a storage read when the state is already in memory"): coalesced re-reads when other contexts
// announce changes, and the fall-back to memory when IndexedDB fails or a newer release takes it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NO_CREDENTIALS, SupersededError, type CredentialStorage, type Credentials } from '../src/sw/credentialStorage.js';
import { HeldCredentials, type StorageEvents } from '../src/sw/heldCredentials.js';
import type { Session } from '../src/sw/tokenResponse.js';
import { stuckStorage } from './fakes.js';

const NOW = 1_700_000_000_000;
const HOUR = 3_600_000;
const CART = { token: 'order-token', number: 'R100' };

function session(name: string): Session {
  return { accessToken: `access-${name}`, refreshToken: `refresh-${name}`, expiresAt: NOW + HOUR, lifetimeMs: HOUR, confirmed: true };
}

function signedIn(name: string): Credentials {
  return { cart: CART, session: session(name), backoff: null };
}

/**
 * Storage shared with "other contexts" (`write`), counting reads and updates. While `holdReads` is
 * on, a read answers only on `releaseReads()`, with what was stored when it started (an IndexedDB
 * read transaction sees the database as it was when it began). `failWith` makes every call reject.
 */
function fakeStorage(initial: Credentials = NO_CREDENTIALS) {
  let value = initial;
  const held: (() => void)[] = [];
  const control = {
    reads: 0,
    updates: 0,
    holdReads: false,
    failWith: null as unknown,
    /** Another context writes storage directly. */
    write(next: Credentials): void {
      value = next;
    },
    stored: (): Credentials => value,
    /** Answers every read held back so far. */
    releaseReads(): void {
      for (const release of held.splice(0)) release();
    },
    get heldReads(): number {
      return held.length;
    },
  };
  const storage: CredentialStorage = {
    read() {
      control.reads++;
      if (control.failWith !== null) return Promise.reject(control.failWith);
      const snapshot = value;
      if (!control.holdReads) return Promise.resolve(snapshot);
      return new Promise((resolve) => held.push(() => resolve(snapshot)));
    },
    update(change) {
      control.updates++;
      if (control.failWith !== null) return Promise.reject(control.failWith);
      return Promise.resolve((value = change(value)));
    },
  };
  return { storage, control };
}

/** A `StorageEvents` that records what it was told. */
function recordingLoss() {
  const told = { failed: [] as unknown[], superseded: 0, caughtUp: [] as [Credentials | null, Credentials][] };
  const loss: StorageEvents = {
    failed: (error) => void told.failed.push(error),
    superseded: () => void told.superseded++,
    caughtUp: (before, after) => void told.caughtUp.push([before, after]),
  };
  return { loss, told };
}

/** Lets every queued task and microtask run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe('HeldCredentials: loading', () => {
  it('knows nothing until loaded, then answers from memory without reading again', async () => {
    const { storage, control } = fakeStorage(signedIn('1'));
    const held = new HeldCredentials(storage, recordingLoss().loss);
    assert.equal(held.current, null);
    assert.deepEqual(await held.load(), signedIn('1'));
    assert.deepEqual(held.current, signedIn('1'));
    await held.load();
    await held.load();
    assert.equal(control.reads, 1);
  });

  it('concurrent loads share one read', async () => {
    const { storage, control } = fakeStorage(signedIn('1'));
    control.holdReads = true;
    const held = new HeldCredentials(storage, recordingLoss().loss);
    const loads = Array.from({ length: 10 }, () => held.load());
    await settle();
    control.releaseReads();
    for (const loaded of await Promise.all(loads)) assert.deepEqual(loaded, signedIn('1'));
    assert.equal(control.reads, 1);
  });

  it('a read that started before an update cannot overwrite it', async () => {
    const { storage, control } = fakeStorage(signedIn('1'));
    const held = new HeldCredentials(storage, recordingLoss().loss);
    control.holdReads = true;
    const reading = held.reread();
    await settle();
    await held.update((previous) => ({ ...previous, session: session('2') }));
    control.releaseReads();
    await reading;
    assert.equal(held.current?.session?.accessToken, 'access-2');
  });
});

describe('HeldCredentials: cleared (the database was deleted)', () => {
  it('holds nothing at once and reads nothing, so the deleted database is not created again', async () => {
    const { storage, control } = fakeStorage(signedIn('1'));
    const held = new HeldCredentials(storage, recordingLoss().loss);
    await held.load();
    held.cleared();
    await settle();
    assert.equal(control.reads, 1, 'only the first load read');
    assert.deepEqual(held.current, NO_CREDENTIALS);
    assert.deepEqual(await held.load(), NO_CREDENTIALS);
    assert.equal(control.reads, 1);
  });

  it('after storage failed and memory took over, the deletion empties that memory store too: a re-read brings nothing back', async () => {
    const { storage, control } = fakeStorage(signedIn('1'));
    const held = new HeldCredentials(storage, recordingLoss().loss);
    await held.load();
    control.failWith = new Error('IndexedDB broke');
    await held.reread();
    held.cleared();
    held.invalidate();
    assert.deepEqual(await held.load(), NO_CREDENTIALS, 'another context’s change re-reads the memory store');
    assert.deepEqual(await held.reread(), NO_CREDENTIALS);
    const next = await held.update((previous) => ({ ...previous, cart: { token: '/cart+token', number: 'R300' } }));
    assert.deepEqual(next, { ...NO_CREDENTIALS, cart: { token: '/cart+token', number: 'R300' } }, 'and later changes build on nothing');
  });

  it('a read under way when the database is deleted does not bring the old credentials back', async () => {
    const { storage, control } = fakeStorage(signedIn('1'));
    const held = new HeldCredentials(storage, recordingLoss().loss);
    control.holdReads = true;
    const reading = held.reread();
    await settle();
    held.cleared();
    control.releaseReads();
    await reading;
    assert.deepEqual(held.current, NO_CREDENTIALS);
  });
});

describe('HeldCredentials: a write under way when the database is deleted', () => {
  /** Storage whose writes land only when `land()` is called: a transaction committing just as another tab deletes the database. */
  function landingLater() {
    const { storage, control } = fakeStorage(NO_CREDENTIALS);
    const landings: (() => void)[] = [];
    const slow: CredentialStorage = { ...storage, update: (change) => new Promise((resolve) => landings.push(() => void storage.update(change).then(resolve))) };
    return { storage: slow, control, land: () => landings.splice(0).forEach((land) => land()) };
  }

  it('does not bring back the cart it wrote: the deletion took it too', async () => {
    const { storage, land } = landingLater();
    const held = new HeldCredentials(storage, recordingLoss().loss);
    await held.load();
    const keeping = held.update((previous) => ({ ...previous, cart: { token: '+order/token', number: 'R100' } }));
    await settle();
    held.cleared();
    land();
    assert.deepEqual(await keeping, NO_CREDENTIALS);
    assert.deepEqual(held.current, NO_CREDENTIALS);
  });

  it('persist reports it not kept, and the memory copy holds nothing', async () => {
    const { storage, land } = landingLater();
    const held = new HeldCredentials(storage, recordingLoss().loss);
    await held.load();
    const keeping = held.persist((previous) => ({ ...previous, session: signedIn('2').session }));
    await settle();
    held.cleared();
    land();
    assert.equal(await keeping, null);
    assert.deepEqual(held.current, NO_CREDENTIALS);
  });
});

describe('HeldCredentials: invalidate', () => {
  it('before anything was loaded: forgets nothing and reads nothing until first use', async () => {
    const { storage, control } = fakeStorage(signedIn('1'));
    const held = new HeldCredentials(storage, recordingLoss().loss);
    held.invalidate();
    await settle();
    assert.equal(control.reads, 0);
    assert.equal(held.current, null);
  });

  it('once loaded: reloads at once, so the next request finds the change in memory', async () => {
    const { storage, control } = fakeStorage(signedIn('1'));
    const held = new HeldCredentials(storage, recordingLoss().loss);
    await held.load();
    control.write(signedIn('2'));
    held.invalidate();
    await settle();
    assert.equal(control.reads, 2);
    assert.equal(held.current?.session?.accessToken, 'access-2');
  });

  it('100 invalidations during one read cost at most one more read, which sees the change made meanwhile', async () => {
    const { storage, control } = fakeStorage(signedIn('1'));
    const held = new HeldCredentials(storage, recordingLoss().loss);
    await held.load();
    control.holdReads = true;

    control.write(signedIn('2'));
    held.invalidate();
    await settle();
    assert.equal(control.reads, 2, 'the first invalidation reloads');
    // Another context changes storage again while that read is under way: the read began before it.
    control.write(signedIn('3'));
    for (let i = 0; i < 100; i++) held.invalidate();
    await settle();
    control.holdReads = false;
    control.releaseReads();
    await settle();
    await held.load();

    assert.equal(control.reads, 3, `${control.reads - 2} reads followed the one under way`);
    assert.equal(held.current?.session?.accessToken, 'access-3');
  });

  it('a load waiting on a coalesced reload resolves with the newest credentials', async () => {
    const { storage, control } = fakeStorage(signedIn('1'));
    const held = new HeldCredentials(storage, recordingLoss().loss);
    control.holdReads = true;
    const loading = held.load();
    await settle();
    control.write(signedIn('2'));
    held.invalidate();
    control.holdReads = false;
    control.releaseReads();
    assert.equal((await loading).session?.accessToken, 'access-2');
    assert.equal(control.reads, 2);
  });

  // BUG (src/sw/heldCredentials.ts, #readShared, lines 85-96): an invalidation that arrives while
  // the follow-up read is under way sets #stale, but nobody reads again after it, so a change that
  // this read began too early to see stays out of memory until some later announcement.
  it('a change announced during the follow-up read is not lost', async () => {
    const { storage, control } = fakeStorage(signedIn('1'));
    const held = new HeldCredentials(storage, recordingLoss().loss);
    await held.load();
    control.holdReads = true;

    control.write(signedIn('2'));
    held.invalidate(); // read 2 starts
    await settle();
    held.invalidate(); // one more read is due after read 2
    control.releaseReads();
    await settle();
    assert.equal(control.reads, 3, 'the follow-up read started');
    control.write(signedIn('3'));
    held.invalidate(); // during the follow-up read, which began before this change
    control.holdReads = false;
    control.releaseReads();
    await settle();
    await held.load();

    assert.equal(held.current?.session?.accessToken, 'access-3', 'memory kept a copy older than storage');
  });
});

describe('HeldCredentials: announced, the state an announcement tells', () => {
  it('during a re-read, waits for it: what storage holds, not nothing held', async () => {
    const { storage, control } = fakeStorage(signedIn('1'));
    const held = new HeldCredentials(storage, recordingLoss().loss);
    await held.load();
    control.holdReads = true;
    control.write(NO_CREDENTIALS);
    held.invalidate();
    let told: Credentials | null = null;
    void held.announced().then((credentials) => (told = credentials));
    await settle();
    assert.equal(told, null, 'nothing told while the re-read is under way');
    control.releaseReads();
    await settle();
    assert.deepEqual(told, NO_CREDENTIALS);
  });

  it('storage not answering within the bound: the copy held before the re-read, not nothing held', async () => {
    const stuck = stuckStorage(signedIn('a'));
    const held = new HeldCredentials(stuck.storage, recordingLoss().loss, 30);
    const loading = held.load();
    stuck.release();
    await loading;
    held.invalidate();
    assert.deepEqual(await held.announced(), signedIn('a'));
    assert.equal(held.current, null, 'still unknown: the re-read goes on');
  });

  it('resolves in the order asked, so an announcement made during a re-read is not overtaken by a later one', async () => {
    const { storage, control } = fakeStorage(signedIn('1'));
    const held = new HeldCredentials(storage, recordingLoss().loss);
    await held.load();
    control.holdReads = true;
    held.invalidate();
    const order: string[] = [];
    void held.announced().then(() => order.push('first'));
    // A change of this worker's own lands before the re-read does.
    await held.update(() => signedIn('2'));
    void held.announced().then(() => order.push('second'));
    await settle();
    control.releaseReads();
    await settle();
    assert.deepEqual(order, ['first', 'second']);
  });
});

describe('HeldCredentials: storage loss', () => {
  it('a failing read falls back to memory and calls `failed` once, however often it is used', async () => {
    const { storage, control } = fakeStorage(signedIn('1'));
    const { loss, told } = recordingLoss();
    const held = new HeldCredentials(storage, loss);
    await held.load();
    const broken = new DOMException('The operation failed for reasons unrelated to the database itself.', 'UnknownError');
    control.failWith = broken;

    assert.deepEqual(await held.reread(), signedIn('1'), 'the memory copy is kept');
    held.invalidate();
    assert.deepEqual(await held.load(), signedIn('1'));
    await held.reread();
    await held.update((previous) => ({ ...previous, cart: null }));

    assert.deepEqual(told.failed, [broken]);
    assert.equal(told.superseded, 0);
    assert.equal(control.reads, 1 + 1, 'storage is not asked again after it failed');
    assert.equal(control.updates, 0);
  });

  it('a first read that fails starts from nothing, in memory', async () => {
    const { storage, control } = fakeStorage(signedIn('1'));
    control.failWith = new Error('private mode');
    const { loss, told } = recordingLoss();
    const held = new HeldCredentials(storage, loss);
    assert.deepEqual(await held.load(), NO_CREDENTIALS);
    assert.equal(told.failed.length, 1);
  });

  it('a SupersededError calls `superseded`, not `failed`', async () => {
    const { storage, control } = fakeStorage(signedIn('1'));
    const { loss, told } = recordingLoss();
    const held = new HeldCredentials(storage, loss);
    await held.load();
    control.failWith = new SupersededError('A newer storefront-auth release upgraded the database to schema 2.');

    assert.deepEqual(await held.reread(), signedIn('1'));
    await held.update((previous) => previous);
    assert.equal(told.superseded, 1);
    assert.deepEqual(told.failed, []);
  });

  it('a failing update falls back to memory and still applies the change', async () => {
    const { storage, control } = fakeStorage(signedIn('1'));
    const { loss, told } = recordingLoss();
    const held = new HeldCredentials(storage, loss);
    await held.load();
    control.failWith = new DOMException('Quota exceeded', 'QuotaExceededError');

    const next = await held.update((previous) => ({ ...previous, session: session('2') }));
    assert.equal(next.session?.accessToken, 'access-2');
    assert.equal(held.current?.session?.accessToken, 'access-2');
    assert.equal(told.failed.length, 1);
  });

  it('update after a fallback keeps working in memory: changes build on each other and survive re-reads', async () => {
    const { storage, control } = fakeStorage(signedIn('1'));
    const held = new HeldCredentials(storage, recordingLoss().loss);
    await held.load();
    control.failWith = new Error('IndexedDB broke');
    await held.reread();

    await held.update((previous) => ({ ...previous, session: session('2') }));
    const next = await held.update((previous) => ({ ...previous, cart: { token: 'other', number: 'R200' } }));
    assert.deepEqual(next, { cart: { token: 'other', number: 'R200' }, session: session('2'), backoff: null });
    held.invalidate();
    assert.deepEqual(await held.load(), next, 'a re-read after the fallback reads the memory store');
    assert.deepEqual(await held.reread(), next);
    assert.deepEqual(control.stored(), signedIn('1'), 'the broken storage was left alone');
  });

  // BUG (src/sw/heldCredentials.ts, #lose, lines 99-104): every call that fails replaces the memory
  // store with a new one seeded from #current, and calls `failed` again. IndexedDB failures come in
  // bunches (one shared `open()` rejects every pending call), so two operations under way at once
  // both land there: the second store is seeded before the first update reached #current, and that
  // update is lost; and the page hears `storageunavailable` twice (authWorker.ts: "once per run").
  it('two operations failing at once: `failed` is called once and neither change is lost', async () => {
    const { storage, control } = fakeStorage(signedIn('1'));
    const { loss, told } = recordingLoss();
    const held = new HeldCredentials(storage, loss);
    await held.load();
    control.failWith = new Error('IndexedDB broke');

    const login = held.update((previous) => ({ ...previous, session: session('login') }));
    const cart = held.update((previous) => ({ ...previous, cart: { token: 'new-cart', number: 'R300' } }));
    await Promise.all([login, cart]);

    assert.equal(told.failed.length, 1, '`failed` was called more than once');
    assert.deepEqual(held.current, { cart: { token: 'new-cart', number: 'R300' }, session: session('login'), backoff: null });
  });
});

describe('HeldCredentials: bounded storage (docs/behaviour.md, "Bounds on every wait")', () => {
  it('a write not settled within the bound answers from memory, and lands later without undoing a newer change', async () => {
    const stuck = stuckStorage(signedIn('a'));
    const held = new HeldCredentials(stuck.storage, recordingLoss().loss, 30);
    stuck.release();
    const loading = held.load();
    stuck.release();
    await loading;
    const started = Date.now();
    const second = { token: 'order-token-2', number: 'R200' };
    const next = await held.update((previous) => ({ ...previous, cart: second }));
    assert.ok(Date.now() - started >= 25, 'waited for the bound');
    assert.deepEqual(next.cart, second);
    assert.deepEqual(held.current?.cart, second, 'the memory copy answers');
    assert.deepEqual(stuck.stored().cart, CART, 'storage has not answered yet');
    // A newer change while the first write is still stuck: both land, in order.
    const third = { token: 'order-token-3', number: 'R300' };
    await held.update((previous) => ({ ...previous, cart: third }));
    stuck.release();
    await new Promise((resolve) => setTimeout(resolve, 5));
    stuck.release();
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.deepEqual(stuck.stored().cart, third, 'the writes landed');
    assert.deepEqual(held.current?.cart, third, 'a late write does not undo the newer change in memory');
  });

  it('a write that outlasts the bound before anything was read: once it lands, the memory copy takes what storage holds, and says so', async () => {
    const guest: Credentials = { cart: CART, session: null, backoff: null };
    const stuck = stuckStorage(guest);
    const { loss, told } = recordingLoss();
    const held = new HeldCredentials(stuck.storage, loss, 30);
    void held.load();
    let unread: Promise<Credentials> | null = null;
    const next = await held.update((previous) => ({ ...previous, session: session('1') }), undefined, (before) => (unread = before));
    assert.equal(next.cart, null, 'answered from memory, which knew nothing yet');
    assert.ok(unread !== null, 'told at once that the answer saw nothing of storage');
    stuck.release();
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.deepEqual(stuck.stored(), { ...guest, session: session('1') }, 'the write kept the stored cart');
    assert.deepEqual(held.current, stuck.stored(), 'the memory copy holds what storage does');
    assert.deepEqual(told.caughtUp, [[{ cart: null, session: session('1'), backoff: null }, stuck.stored()]], 'what the memory copy held before, and holds now');
    assert.deepEqual(await unread, guest, 'what storage held before the write');
  });

  it('with a later write still on its way, the memory copy takes what storage holds only once that one lands', async () => {
    // Storage that commits one write at a time, in the order they were made, as IndexedDB does.
    let value: Credentials = { cart: CART, session: null, backoff: null };
    const queued: (() => void)[] = [];
    const storage: CredentialStorage = {
      read: () => new Promise(() => {}),
      update: (change) => new Promise((resolve) => queued.push(() => resolve((value = change(value))))),
    };
    const { loss, told } = recordingLoss();
    const held = new HeldCredentials(storage, loss, 30);
    await held.update((previous) => ({ ...previous, session: session('1') }));
    const second = { token: 'order-token-2', number: 'R200' };
    await held.update((previous) => ({ ...previous, cart: second }));
    queued.shift()?.();
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.deepEqual(held.current, { cart: second, session: session('1'), backoff: null }, 'the later change is not undone');
    assert.equal(told.caughtUp.length, 0);
    queued.shift()?.();
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.deepEqual(held.current, value);
    assert.deepEqual(value, { cart: second, session: session('1'), backoff: null });
    assert.equal(told.caughtUp.length, 1);
  });

  it('a read not settled within the bound answers with the memory copy, or nothing held', async () => {
    const stuck = stuckStorage(signedIn('a'));
    const held = new HeldCredentials(stuck.storage, recordingLoss().loss, 30);
    assert.deepEqual(await held.reread(), NO_CREDENTIALS, 'nothing in memory yet: a guest');
    assert.equal(held.current, null, 'not taken as what storage holds');
    stuck.release();
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.deepEqual(held.current, signedIn('a'), 'the late read fills the memory copy');
  });
});

describe('HeldCredentials: persist, for a change that must be on disk before the worker acts on it', () => {
  const KEYED = (previous: Credentials): Credentials => ({ ...previous, refreshKey: { refreshToken: 'refresh-1', key: 'key-1' } });

  it('resolves with what was stored once stored, and the memory copy takes it', async () => {
    const { storage, control } = fakeStorage(signedIn('1'));
    const held = new HeldCredentials(storage, recordingLoss().loss);
    await held.load();
    const expected = KEYED(signedIn('1'));
    assert.deepEqual(await held.persist(KEYED), expected);
    assert.deepEqual(control.stored(), expected);
    assert.deepEqual(held.current, expected);
  });

  it('not stored within the bound: resolves null, and the memory copy never holds the change', async () => {
    const stuck = stuckStorage(signedIn('1'));
    const held = new HeldCredentials(stuck.storage, recordingLoss().loss, 30);
    const loading = held.load();
    stuck.release();
    await loading;
    const started = Date.now();
    assert.equal(await held.persist(KEYED), null);
    assert.ok(Date.now() - started >= 25, 'waited for the bound');
    assert.deepEqual(held.current, signedIn('1'));
    assert.deepEqual(stuck.stored(), signedIn('1'), 'storage has not answered yet');
  });

  it('landing late, it does not undo in memory a later change whose own write is still under way', async () => {
    const stuck = stuckStorage(signedIn('1'));
    const held = new HeldCredentials(stuck.storage, recordingLoss().loss, 30);
    const loading = held.load();
    stuck.release();
    await loading;
    assert.equal(await held.persist(KEYED), null);
    const second = { token: 'order-token-2', number: 'R200' };
    await held.update((previous) => ({ ...previous, cart: second }));
    stuck.release();
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.deepEqual(stuck.stored(), { ...KEYED(signedIn('1')), cart: second }, 'both writes landed, in order');
    assert.deepEqual(held.current?.cart, second);
    const reading = held.reread();
    stuck.release();
    assert.deepEqual(await reading, stuck.stored(), 'the next read of storage brings the late one in');
  });

  it('after storage failed, the memory store that took over counts as stored', async () => {
    const { storage, control } = fakeStorage(signedIn('1'));
    const { loss, told } = recordingLoss();
    const held = new HeldCredentials(storage, loss);
    await held.load();
    control.failWith = new DOMException('Quota exceeded', 'QuotaExceededError');
    const expected = KEYED(signedIn('1'));
    assert.deepEqual(await held.persist(KEYED), expected);
    assert.deepEqual(held.current, expected);
    assert.equal(told.failed.length, 1);
  });
});
