// Where the credentials live between worker runs (docs/behaviour.md, "What the worker does to
// requests": IndexedDB database `storefront-auth`, keyed by baseUrl), with fake-indexeddb, a fresh
// IDBFactory per test, standing in for the browser's: records round-trip whole, an older release's
// record reads with safe defaults, a version bump by any other script of the origin leaves the
// store in use, only a newer storefront-auth schema retires this release, another context's
// upgrade or deletion is let through, and a connection the browser force-closes (the site's data
// cleared) is opened again, with the operation it cut off made once more on the new one.
import 'fake-indexeddb/auto';
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { IDBFactory } from 'fake-indexeddb';
import { deleteDB, openDB } from 'idb';
import {
  DATABASE_NAME,
  indexedDbStorage,
  NO_CREDENTIALS,
  readRecord,
  SCHEMA_VERSION,
  SupersededError,
  type Credentials,
  type StorageHooks,
} from '../src/sw/credentialStorage.js';
import { clearSiteData, watchedOpener } from './siteDataCleared.js';

const BASE = 'https://shop.example/store';
const NOW = 1_700_000_000_000;
const HOUR = 3_600_000;
const CART = { token: 'order-token', number: 'R100' };

const HELD: Credentials = {
  cart: CART,
  session: { accessToken: 'access-1', refreshToken: 'refresh-1', expiresAt: NOW + HOUR, lifetimeMs: HOUR, confirmed: false },
  backoff: { attempts: 2, until: NOW + 10_000 },
};

/** Hooks that count what storage tells the worker; `settleWrites` answers as the test says. */
function hooks(settleWrites: () => Promise<void> = () => Promise.resolve()) {
  const counts = { lost: 0, settleWrites: 0, how: [] as string[] };
  const recorded: StorageHooks = {
    lost: (how) => void (counts.lost++, counts.how.push(how)),
    settleWrites: () => {
      counts.settleWrites++;
      return settleWrites();
    },
  };
  return { hooks: recorded, counts };
}

/** What another script of the origin finds in the credentials store, opening the database as it is. */
async function stored(key: string): Promise<unknown> {
  const db = await openDB(DATABASE_NAME);
  try {
    return await db.get('credentials', key);
  } finally {
    db.close();
  }
}

/** A promise with its resolver. */
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** 'landed' when `work` settles within `ms`, else 'stuck'. */
async function within(work: Promise<unknown>, ms: number): Promise<'landed' | 'stuck'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stuck = new Promise<'stuck'>((resolve) => (timer = setTimeout(resolve, ms, 'stuck')));
  try {
    return await Promise.race([work.then(() => 'landed' as const), stuck]);
  } finally {
    clearTimeout(timer);
  }
}

const turns = async (n = 20): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('readRecord', () => {
  it('reads an older release’s record without confirmed or backoff as confirmed, with no back-off', () => {
    const older = { baseUrl: BASE, cart: CART, session: { accessToken: 'a', refreshToken: 'r', expiresAt: NOW, lifetimeMs: HOUR } };
    assert.deepEqual(readRecord(older), {
      cart: CART,
      session: { accessToken: 'a', refreshToken: 'r', expiresAt: NOW, lifetimeMs: HOUR, confirmed: true },
      backoff: null,
    });
  });
  it('keeps confirmed false and a well-formed back-off', () => {
    assert.deepEqual(readRecord({ baseUrl: BASE, ...HELD }), HELD);
  });
  it('keeps the sign-in’s id with a session, and drops one left without a session or of another type', () => {
    assert.equal(readRecord({ baseUrl: BASE, ...HELD, signInId: 'sign-in-1' }).signInId, 'sign-in-1');
    assert.equal('signInId' in readRecord({ baseUrl: BASE, ...HELD, session: null, signInId: 'sign-in-1' }), false);
    assert.equal('signInId' in readRecord({ baseUrl: BASE, ...HELD, signInId: 7 }), false);
  });
  it('keeps the sign-in that took the cart along, past the session’s end, and drops one of another type', () => {
    assert.equal(readRecord({ baseUrl: BASE, ...HELD, cartTakenBy: 'sign-in-1' }).cartTakenBy, 'sign-in-1');
    assert.equal(readRecord({ baseUrl: BASE, ...HELD, session: null, cartTakenBy: 'sign-in-1' }).cartTakenBy, 'sign-in-1');
    assert.equal('cartTakenBy' in readRecord({ baseUrl: BASE, ...HELD, cartTakenBy: 7 }), false);
  });
  it('keeps until when the cart is being assigned, and drops one of another type', () => {
    assert.equal(readRecord({ baseUrl: BASE, ...HELD, cartTakenBy: 'sign-in-1', cartAssigningUntil: 1_700_000_010_000 }).cartAssigningUntil, 1_700_000_010_000);
    assert.equal('cartAssigningUntil' in readRecord({ baseUrl: BASE, ...HELD, cartAssigningUntil: '1700000010000' }), false);
  });
  it('counts a field of the wrong shape as absent', () => {
    assert.deepEqual(readRecord(undefined), NO_CREDENTIALS);
    assert.deepEqual(readRecord({ baseUrl: BASE, cart: { token: 1, number: 'R1' }, session: { accessToken: 'a' }, backoff: { attempts: '1', until: 0 } }), NO_CREDENTIALS);
    assert.deepEqual(readRecord({ ...HELD, backoff: { attempts: 1 } }).backoff, null);
  });
});

describe('indexedDbStorage', () => {
  beforeEach(() => {
    // A browser profile of its own for each test.
    globalThis.indexedDB = new IDBFactory();
  });

  it('starts empty, and round-trips credentials including the back-off and session.confirmed', async () => {
    const storage = indexedDbStorage(BASE, hooks().hooks);
    assert.deepEqual(await storage.read(), NO_CREDENTIALS);
    assert.deepEqual(await storage.update(() => HELD), HELD);
    assert.deepEqual(await storage.read(), HELD);
    // Another worker of the origin, with a connection of its own, reads the same.
    assert.deepEqual(await indexedDbStorage(BASE, hooks().hooks).read(), HELD);
    assert.deepEqual(await stored(BASE), { baseUrl: BASE, ...HELD });

    const confirmed: Credentials = { cart: null, session: { ...HELD.session!, confirmed: true }, backoff: null };
    await storage.update((previous) => {
      assert.deepEqual(previous, HELD, 'update sees what is stored');
      return confirmed;
    });
    assert.deepEqual(await indexedDbStorage(BASE, hooks().hooks).read(), confirmed);
    assert.deepEqual(await indexedDbStorage('https://other.example', hooks().hooks).read(), NO_CREDENTIALS, 'keyed by base URL');
  });

  it('reads an older release’s record as confirmed, with no back-off', async () => {
    // What release 1 left: its store, its marker, and a record without `confirmed` or `backoff`.
    const db = await openDB(DATABASE_NAME, 1, {
      upgrade(database) {
        const store = database.createObjectStore('credentials', { keyPath: 'baseUrl' });
        store.put({ baseUrl: '#schema', version: 1 });
        store.put({ baseUrl: BASE, cart: CART, session: { accessToken: 'a', refreshToken: 'r', expiresAt: NOW, lifetimeMs: HOUR } });
      },
    });
    db.close();
    assert.deepEqual(await indexedDbStorage(BASE, hooks().hooks).read(), {
      cart: CART,
      session: { accessToken: 'a', refreshToken: 'r', expiresAt: NOW, lifetimeMs: HOUR, confirmed: true },
      backoff: null,
    });
  });

  it('upgrades release 1’s database in place: its record and marker kept, the writes store added, the marker at this schema', async () => {
    const release1 = await openDB(DATABASE_NAME, 1, {
      upgrade(database) {
        const store = database.createObjectStore('credentials', { keyPath: 'baseUrl' });
        store.put({ baseUrl: '#schema', version: 1 });
        store.put({ baseUrl: BASE, ...HELD });
      },
    });
    // Release 1 still has its connection open: the upgrade asks it to close, as a browser does.
    release1.addEventListener('versionchange', () => release1.close());
    const storage = indexedDbStorage(BASE, hooks().hooks);
    assert.deepEqual(await storage.read(), HELD);
    const db = await openDB(DATABASE_NAME);
    try {
      assert.equal(db.version, SCHEMA_VERSION);
      assert.equal(SCHEMA_VERSION, 2);
      assert.deepEqual([...db.objectStoreNames].sort(), ['credentials', 'writes']);
      assert.deepEqual(await db.get('credentials', '#schema'), { baseUrl: '#schema', version: 2 });
      assert.deepEqual([...db.transaction('writes').store.indexNames], ['baseUrl']);
    } finally {
      db.close();
    }
  });

  it('goes on using a database another script opened one version up, reading and writing it', async () => {
    const { hooks: ours, counts } = hooks();
    const storage = indexedDbStorage(BASE, ours);
    await storage.update(() => HELD);

    // Another script of the origin bumps the version with an upgrade of its own that touches nothing.
    const other = await openDB(DATABASE_NAME, SCHEMA_VERSION + 1, { upgrade() {} });
    other.close();
    assert.equal(counts.settleWrites, 1, 'our connection let the upgrade through');
    assert.equal(counts.lost, 0);

    assert.deepEqual(await storage.read(), HELD, 'reads return the stored record');
    const next: Credentials = { ...HELD, cart: { token: 'order-2', number: 'R200' }, backoff: null };
    await storage.update(() => next);
    assert.deepEqual(await storage.read(), next);
    // Reopened, as a worker started later would, and as the other script sees it: the write persisted.
    assert.deepEqual(await indexedDbStorage(BASE, hooks().hooks).read(), next);
    assert.deepEqual(await stored(BASE), { baseUrl: BASE, ...next });
  });

  it('rejects with SupersededError once a newer storefront-auth schema upgraded the database', async () => {
    const storage = indexedDbStorage(BASE, hooks().hooks);
    await storage.update(() => HELD);

    const newer = await openDB(DATABASE_NAME, SCHEMA_VERSION + 1, {
      upgrade(_db, _old, _new, transaction) {
        void transaction.objectStore('credentials').put({ baseUrl: '#schema', version: SCHEMA_VERSION + 1 });
      },
    });
    newer.close();

    for (const attempt of [() => storage.read(), () => storage.update(() => NO_CREDENTIALS), () => indexedDbStorage(BASE, hooks().hooks).read()]) {
      await assert.rejects(attempt(), (error: unknown) => {
        assert.ok(error instanceof SupersededError, String(error));
        assert.equal(error.name, 'SupersededError');
        return true;
      });
    }
    assert.deepEqual(await stored(BASE), { baseUrl: BASE, ...HELD }, 'this release wrote nothing over the newer one');
  });

  it("awaits settleWrites before closing for another connection's version change, which then succeeds", { timeout: 5_000 }, async () => {
    const settle = deferred();
    const { hooks: ours, counts } = hooks(() => settle.promise);
    const storage = indexedDbStorage(BASE, ours);
    await storage.update(() => HELD);

    let blocked = 0;
    let upgraded = false;
    const other = openDB(DATABASE_NAME, SCHEMA_VERSION + 1, { upgrade() {}, blocked: () => void blocked++ }).then((db) => {
      upgraded = true;
      return db;
    });
    await turns();
    assert.equal(counts.settleWrites, 1);
    assert.equal(upgraded, false, 'our connection stays open while our writes settle');
    assert.equal(blocked, 1, 'the other opener waits for us');

    settle.resolve();
    (await other).close();
    assert.equal(upgraded, true);
    assert.equal(counts.lost, 0);
    assert.deepEqual(await storage.read(), HELD);
  });

  it('closes for the version change even when settleWrites rejects', { timeout: 5_000 }, async () => {
    const storage = indexedDbStorage(BASE, hooks(() => Promise.reject(new Error('hand-over failed'))).hooks);
    await storage.read();
    (await openDB(DATABASE_NAME, SCHEMA_VERSION + 1, { upgrade() {} })).close();
  });

  it('carries over a write that lands while the other connection waits for it (a refresh in flight)', { timeout: 5_000 }, async () => {
    // A refresh whose grant was in flight when the version change came writes its new pair now;
    // settleWrites resolves once that write has landed, as SessionRefresher.settled does. Bounded
    // here, so that a write that cannot land fails this test instead of hanging the run.
    const rotated: Credentials = { ...HELD, session: { ...HELD.session!, accessToken: 'access-2', refreshToken: 'refresh-2' } };
    let write: Promise<Credentials> | undefined;
    let outcome: 'landed' | 'stuck' | undefined;
    const storage = indexedDbStorage(
      BASE,
      hooks(async () => {
        write = storage.update(() => rotated);
        outcome = await within(write, 1_000);
      }).hooks,
    );
    await storage.update(() => HELD);

    let seen: Promise<unknown> | undefined;
    const other = await openDB(DATABASE_NAME, SCHEMA_VERSION + 1, {
      upgrade(_db, _oldVersion, _newVersion, transaction) {
        seen = transaction.objectStore('credentials').get(BASE);
      },
    });
    const seenByUpgrade = await seen;
    other.close();
    await write;
    assert.equal(outcome, 'landed', 'the write landed while the upgrade waited for it');
    assert.deepEqual(seenByUpgrade, { baseUrl: BASE, ...rotated }, 'the upgrade carried the rotated pair over');
  });

  it('calls lost when the database is deleted, and starts empty after', { timeout: 5_000 }, async () => {
    const { hooks: ours, counts } = hooks();
    const storage = indexedDbStorage(BASE, ours);
    await storage.update(() => HELD);
    await deleteDB(DATABASE_NAME);
    assert.equal(counts.lost, 1);
    assert.deepEqual(counts.how, ['deleted'], 'a deletion says so: nothing is stored any more');
    assert.equal(counts.settleWrites, 0, 'a deletion waits for nothing');
    assert.deepEqual(await storage.read(), NO_CREDENTIALS);
  });

  it("the site's data cleared with a write in flight: the write is made again on a new connection, after the deletion, and nothing is left unhandled", { timeout: 5_000 }, async () => {
    const { hooks: ours, counts } = hooks();
    const { open, seen } = watchedOpener(ours);
    const storage = indexedDbStorage(BASE, ours, open);
    await storage.update(() => HELD);
    const first = seen.db!;
    const cart = { token: 'new-token', number: 'R200' };
    const writing = storage.update((previous) => ({ ...previous, cart }));
    await turns(2);
    const inFlight = seen.transactions.filter((tx) => tx.mode === 'readwrite' && tx.db === first);
    assert.equal(inFlight.length, 2, 'the first write (finished) and this one are on the connection');
    // A read that comes while the connection closes meets a connection that refuses new transactions.
    const cleared = clearSiteData(first, inFlight);
    const reading = storage.read();
    await cleared;
    assert.deepEqual(await writing, { ...NO_CREDENTIALS, cart }, 'applied to what is stored after the deletion: nothing');
    assert.equal((await reading).session, null, 'the read is made on a new connection too, after the deletion');
    assert.notEqual(seen.db, first, 'a new connection');
    assert.deepEqual(await stored(BASE), { ...NO_CREDENTIALS, cart, baseUrl: BASE }, 'on disk, in the new database');
    assert.deepEqual(counts.how, ['closed'], 'the close told the worker, which re-reads');
    await storage.update((previous) => ({ ...previous, cart: CART }));
    assert.deepEqual(await stored(BASE), { ...NO_CREDENTIALS, cart: CART, baseUrl: BASE }, 'later writes are stored too');
  });
});
