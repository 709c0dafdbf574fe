// Where queued writes wait between worker runs (src/sw/writeStore.ts), with fake-indexeddb standing
// in for the browser's, a fresh profile per test: the `writes` store of schema 2, read back in the
// order the writes were made, per base URL; the bound held inside one transaction, so two workers
// never queue past it; a replacement or removal only of a write still there, so a write another
// worker settled never comes back and is reported settled once, and a drop's removal never of a write
// another worker has marked as on its way; and a connection the browser force-closes (the site's data
// cleared) cuts off no change: it is made once more on a new connection, with nothing left unhandled.
import 'fake-indexeddb/auto';
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { IDBFactory } from 'fake-indexeddb';
import { openDB } from 'idb';
import { databaseOpener, DATABASE_NAME, SCHEMA_VERSION, SupersededError, type StorageHooks } from '../src/sw/credentialStorage.js';
import type { QueuedWrite } from '../src/sw/queuedWrite.js';
import { indexedDbWrites, memoryWrites, type WriteStorage } from '../src/sw/writeStore.js';
import { clearSiteData, watchedOpener } from './siteDataCleared.js';

const BASE = 'https://shop.example/store';
const NOW = 1_700_000_000_000;
const HOOKS: StorageHooks = { lost: () => {}, settleWrites: () => Promise.resolve() };

/** A write as the queue makes one, numbered `n`, with a small binary body. */
function write(n: number, baseUrl = BASE): QueuedWrite {
  return {
    id: `write-${n}`,
    baseUrl,
    method: 'POST',
    url: `${baseUrl}/api/v2/storefront/cart/add_item`,
    headers: [['content-type', 'application/json']],
    body: new TextEncoder().encode(JSON.stringify({ variant_id: String(n), quantity: 1 })).buffer,
    credentials: 'same-origin',
    key: null,
    cart: 'R100',
    signInId: null,
    createdAt: NOW + n,
    attempts: 0,
    notBefore: 0,
  };
}

const ids = async (storage: WriteStorage): Promise<string[]> => (await storage.list()).map((stored) => stored.id);

for (const [name, make] of [
  ['indexedDbWrites', () => indexedDbWrites(BASE, databaseOpener(HOOKS))],
  ['memoryWrites', () => memoryWrites()],
] as const) {
  describe(name, () => {
    beforeEach(() => {
      globalThis.indexedDB = new IDBFactory();
    });

    it('lists writes in the order they were added, each with its seq, body intact', async () => {
      const storage = make();
      assert.deepEqual(await storage.list(), []);
      for (const n of [3, 1, 2]) await storage.add(write(n), 50);
      const listed = await storage.list();
      assert.deepEqual(listed.map((stored) => stored.id), ['write-3', 'write-1', 'write-2']);
      assert.ok(listed.every((stored, index) => index === 0 || (stored.seq ?? 0) > (listed[index - 1]?.seq ?? 0)), 'seq grows');
      assert.equal(new TextDecoder().decode(listed[0]?.body ?? undefined), '{"variant_id":"3","quantity":1}');
      assert.deepEqual({ ...listed[1], seq: undefined, body: null }, { ...write(1), seq: undefined, body: null });
      assert.equal(await storage.count(), 3);
    });

    it('adds up to the bound and refuses the next, with the count after each add', async () => {
      const storage = make();
      const counts: Array<number | null> = [];
      for (let n = 1; n <= 4; n++) counts.push((await storage.add(write(n), 3))?.count ?? null);
      assert.deepEqual(counts, [1, 2, 3, null]);
      assert.deepEqual(await ids(storage), ['write-1', 'write-2', 'write-3']);
    });

    it('replaces and removes only a write still stored', async () => {
      const storage = make();
      const first = (await storage.add(write(1), 50))?.write;
      const second = (await storage.add(write(2), 50))?.write;
      assert.ok(first && second);
      assert.equal(await storage.replace({ ...first, attempts: 2, notBefore: NOW + 5_000, key: 'key-2' }), true);
      assert.deepEqual((await storage.list())[0], { ...first, attempts: 2, notBefore: NOW + 5_000, key: 'key-2' });
      assert.equal(await storage.remove(first), 1, 'the count left');
      assert.equal(await storage.remove(first), null, 'gone already: reported once');
      assert.equal(await storage.replace({ ...first, attempts: 3 }), false, 'never brought back');
      assert.equal(await storage.replace({ ...write(9) }), false, 'a write never stored has no seq');
      assert.deepEqual(await ids(storage), ['write-2']);
    });

    it('with unlessSending, leaves a write marked as sending since it was read: its answer settles it', async () => {
      const storage = make();
      const read = (await storage.add(write(1), 50))?.write;
      assert.ok(read);
      assert.equal(await storage.replace({ ...read, sending: true }), true, 'another worker marks it');
      assert.equal(await storage.remove(read, true), null, 'the stored copy is marked, not the one read');
      assert.deepEqual(await ids(storage), ['write-1']);
      assert.equal(await storage.remove(read), 0, 'its sender removes it');
    });
  });
}

describe('indexedDbWrites across base URLs and workers', () => {
  beforeEach(() => {
    globalThis.indexedDB = new IDBFactory();
  });

  it('keeps each base URL’s writes apart, in one store, one order', async () => {
    const ours = indexedDbWrites(BASE, databaseOpener(HOOKS));
    const other = indexedDbWrites('https://other.example', databaseOpener(HOOKS));
    await ours.add(write(1), 50);
    await other.add(write(2, 'https://other.example'), 1);
    await ours.add(write(3), 50);
    assert.equal((await other.add(write(4, 'https://other.example'), 1)), null, 'the bound is per base URL');
    assert.deepEqual(await ids(ours), ['write-1', 'write-3']);
    assert.deepEqual(await ids(other), ['write-2']);
  });

  it('holds the bound across two workers adding at once, each on a connection of its own', async () => {
    const first = indexedDbWrites(BASE, databaseOpener(HOOKS));
    const second = indexedDbWrites(BASE, databaseOpener(HOOKS));
    const added = await Promise.all(Array.from({ length: 8 }, (_, n) => (n % 2 === 0 ? first : second).add(write(n), 5)));
    assert.equal(added.filter((result) => result !== null).length, 5);
    assert.equal(await first.count(), 5);
    // A write removed by one worker is gone for the other.
    const [head] = await second.list();
    assert.ok(head);
    assert.equal(await first.remove(head), 4);
    assert.equal(await second.remove(head), null);
  });

  it('survives a new connection, as a worker started later finds them', async () => {
    await indexedDbWrites(BASE, databaseOpener(HOOKS)).add(write(1), 50);
    const db = await openDB(DATABASE_NAME);
    assert.equal(db.version, SCHEMA_VERSION);
    db.close();
    assert.deepEqual(await ids(indexedDbWrites(BASE, databaseOpener(HOOKS))), ['write-1']);
  });

  it('rejects with SupersededError once a newer storefront-auth schema holds the database', async () => {
    const storage = indexedDbWrites(BASE, databaseOpener(HOOKS));
    await storage.add(write(1), 50);
    const newer = await openDB(DATABASE_NAME, SCHEMA_VERSION + 1, {
      upgrade(_db, _old, _new, transaction) {
        void transaction.objectStore('credentials').put({ baseUrl: '#schema', version: SCHEMA_VERSION + 1 });
      },
    });
    newer.close();
    await assert.rejects(indexedDbWrites(BASE, databaseOpener(HOOKS)).add(write(2), 50), SupersededError);
  });

  it("the site's data cleared with an add in flight: the add is made again on a new connection, after the deletion, and nothing is left unhandled", { timeout: 5_000 }, async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      const { open, seen } = watchedOpener(HOOKS);
      const storage = indexedDbWrites(BASE, open);
      await storage.add(write(1), 50);
      const first = seen.db!;
      const adding = storage.add(write(2), 50);
      await new Promise((resolve) => setImmediate(resolve));
      const inFlight = seen.transactions.filter((tx) => tx.mode === 'readwrite' && tx.db === first);
      assert.equal(inFlight.length, 2, 'the first add (finished) and this one are on the connection');
      // A list that comes while the connection closes meets a connection that refuses new transactions.
      const cleared = clearSiteData(first, inFlight);
      const listing = storage.list();
      await cleared;
      const added = await adding;
      assert.deepEqual(added && { ...added, write: { ...added.write, seq: undefined } }, { write: { ...write(2), seq: undefined }, count: 1 }, 'added to what is stored after the deletion: nothing');
      assert.ok(!(await listing).some((stored) => stored.id === 'write-1'), 'the list is made on a new connection too, after the deletion');
      assert.notEqual(seen.db, first, 'a new connection');
      assert.deepEqual(await ids(storage), ['write-2'], 'in the new database');
      assert.equal(await storage.remove(added!.write), 0, 'later changes are stored too');
      for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(unhandled, []);
    } finally {
      process.off('unhandledRejection', record);
    }
  });
});
