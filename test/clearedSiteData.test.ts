// The shopper clears the site's data (Clear-Site-Data: "storage", DevTools, the browser's settings)
// while the worker is writing (docs/behaviour.md, "When things go wrong": the worker notices, and the
// shopper is a clean guest). The browser force-closes the connection, in IndexedDB 3.0's order: its
// transactions abort with AbortError, its `close` event fires, the database is deleted. That is no
// failure of IndexedDB: the worker opens the database again, finds it empty, and goes on storing in
// it; it announces no `storageunavailable` and does not fall back to memory for the rest of its run.
// With fake-indexeddb standing in for the browser's.
import 'fake-indexeddb/auto';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { forceCloseDatabase as forceClose, IDBFactory } from 'fake-indexeddb';
import { deleteDB, openDB, unwrap } from 'idb';
import type { Announcement } from '../src/shared/protocol.js';
import { AuthWorker } from '../src/sw/authWorker.js';
import { databaseOpener, DATABASE_NAME, indexedDbStorage, SCHEMA_VERSION, type StorageHooks } from '../src/sw/credentialStorage.js';
import { resolveOptions } from '../src/sw/options.js';
import { BASE } from './workerHarness.js';

const HOUR = 3_600_000;
const SIGNED_IN = {
  baseUrl: BASE,
  cart: null,
  session: { accessToken: 'access-1', refreshToken: 'refresh-1', expiresAt: Date.now() + HOUR, lifetimeMs: HOUR, confirmed: true },
  backoff: null,
};

/** What IndexedDB holds for `BASE`, as another script of the origin reads it. */
async function onDisk(): Promise<unknown> {
  const db = await openDB(DATABASE_NAME);
  try {
    return db.objectStoreNames.contains('credentials') ? await db.get('credentials', BASE) : undefined;
  } finally {
    db.close();
  }
}

/** fake-indexeddb's forced close (its typings ask for the IDBDatabase class, its code takes a connection). */
const forceCloseDatabase = forceClose as unknown as (db: IDBDatabase) => void;

const turns = async (n = 20): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe("the site's data cleared while the worker writes", () => {
  const channel = globalThis.BroadcastChannel;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  });
  after(() => {
    globalThis.BroadcastChannel = channel;
  });

  it('leaves a guest, says nothing of IndexedDB failing, and goes on storing in IndexedDB', { timeout: 10_000 }, async () => {
    globalThis.indexedDB = new IDBFactory();
    // What an earlier run stored: a signed-in shopper.
    const seed = await openDB(DATABASE_NAME, SCHEMA_VERSION, {
      upgrade(db) {
        db.createObjectStore('credentials', { keyPath: 'baseUrl' });
        db.createObjectStore('writes', { keyPath: 'seq', autoIncrement: true }).createIndex('baseUrl', 'baseUrl');
      },
    });
    await seed.put('credentials', SIGNED_IN);
    seed.close();

    const announced: Announcement[] = [];
    const hooks: StorageHooks = { lost: (how) => worker.forgetMemoryCopy(how), settleWrites: () => worker.settleWrites() };
    const shared = databaseOpener(hooks);
    // The connection last handed out, and the transactions made on it, to do to them what the browser does.
    let connection: IDBDatabase | null = null;
    const transactions: IDBTransaction[] = [];
    const open: typeof shared = async (closed) => {
      const db = await shared(closed);
      const raw = unwrap(db);
      if (connection !== raw) {
        connection = raw;
        const transaction = raw.transaction.bind(raw);
        raw.transaction = ((...args: Parameters<IDBDatabase['transaction']>) => {
          const tx = transaction(...args);
          transactions.push(tx);
          return tx;
        }) as IDBDatabase['transaction'];
      }
      return db;
    };
    const worker: AuthWorker = new AuthWorker(resolveOptions({ baseUrl: BASE, preset: 'spree' }, 'https://shop.example/storefront-auth-sw.js'), {
      fetch: () => Promise.resolve(new Response(null, { status: 599 })),
      now: Date.now,
      storage: indexedDbStorage(BASE, hooks, open),
      toPages: (announcement) => void announced.push(announcement),
      log: undefined,
    });
    assert.equal((await worker.actions.getState()).state.signedIn, true, 'loaded: signed in');

    // A cart that a page's response brought is being written when the site's data is cleared.
    const cart = { token: 'cart-token', number: 'R1' };
    const writing = worker.actions.keepCart(cart, null, () => {});
    await turns(1);
    const raw = connection as IDBDatabase | null;
    assert.ok(raw !== null);
    const write = transactions.find((tx) => tx.db === raw && tx.mode === 'readwrite');
    assert.ok(write !== undefined, 'the write is on the connection');
    // The browser aborts what runs on the connection, force-closes it, and deletes the database.
    write.abort();
    forceCloseDatabase(raw);
    await deleteDB(DATABASE_NAME);
    const kept = await writing;
    await turns();

    const state = (await worker.actions.getState()).state;
    assert.equal(state.signedIn, false, "the deletion is seen: the shopper's sign-in went with the site's data");
    assert.deepEqual(kept.state, state, 'the write answers with what is stored after the deletion');
    assert.deepEqual(
      announced.map((announcement) => announcement.type).filter((type) => type === 'storageunavailable'),
      [],
      'a connection the browser closed is opened again, not IndexedDB failing',
    );
    // Storage is used again for the rest of the run.
    const later = { token: 'later-token', number: 'R2' };
    await worker.actions.keepCart(later, null, () => {});
    assert.deepEqual(await onDisk(), { baseUrl: BASE, cart: later, session: null, backoff: null }, 'a later change is on disk');
  });
});
