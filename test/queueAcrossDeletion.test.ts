// The offline write queue across a deletion of its database (src/sw/writeStore.ts, src/sw/writeQueue.ts),
// with fake-indexeddb standing in for the browser's: the site's data cleared (a forced close) or the
// database deleted by another context (its `versionchange`) while the worker runs. IndexedDB's key
// generator starts again in the new database, so a write read before the deletion may share its `seq`
// with one queued after it: replacing or removing the first never touches the second. And an add the
// deletion did not abort lands in the database that is then deleted: the count says what is stored.
import 'fake-indexeddb/auto';
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { IDBFactory } from 'fake-indexeddb';
import { deleteDB } from 'idb';
import { databaseOpener, DATABASE_NAME, type StorageHooks } from '../src/sw/credentialStorage.js';
import type { QueuedWrite } from '../src/sw/queuedWrite.js';
import { WriteQueue } from '../src/sw/writeQueue.js';
import { indexedDbWrites } from '../src/sw/writeStore.js';
import { clearSiteData, watchedOpener } from './siteDataCleared.js';

const BASE = 'https://shop.example/store';
const HOOKS: StorageHooks = { lost: () => {}, settleWrites: () => Promise.resolve() };

/** A write as the queue makes one, named `n`. */
function write(n: number): QueuedWrite {
  return {
    id: `write-${n}`,
    baseUrl: BASE,
    method: 'PATCH',
    url: `${BASE}/api/v2/storefront/cart/set_quantity`,
    headers: [['content-type', 'application/json']],
    body: null,
    credentials: 'same-origin',
    key: null,
    cart: 'R100',
    signInId: null,
    createdAt: 1_700_000_000_000 + n,
    attempts: 0,
    notBefore: 0,
  };
}

describe('the offline write queue across a deletion of its database', () => {
  beforeEach(() => {
    globalThis.indexedDB = new IDBFactory();
  });

  it('a write read before the site’s data was cleared never replaces or removes one queued after, under the same seq', { timeout: 5_000 }, async () => {
    const { open, seen } = watchedOpener(HOOKS);
    const storage = indexedDbWrites(BASE, open);
    const before = (await storage.add(write(1), 50))?.write;
    assert.ok(before);
    await clearSiteData(seen.db!, seen.transactions);
    const after = (await storage.add(write(2), 50))?.write;
    assert.ok(after);
    assert.equal(after.seq, before.seq, 'the key generator started again');
    assert.equal(await storage.replace({ ...before, attempts: 1 }), false, 'the write read before is gone');
    assert.equal(await storage.remove(before), null, 'the write read before is gone');
    assert.deepEqual(await storage.list(), [after], 'the new write is untouched');
  });

  it('an add in flight when another context deletes the database leaves the count at what is stored', { timeout: 5_000 }, async () => {
    let queue: WriteQueue | null = null;
    const lost: string[] = [];
    // What the worker does (authWorker.ts, `forgetMemoryCopy`).
    const hooks: StorageHooks = { lost: (how) => (lost.push(how), how === 'deleted' ? queue?.cleared() : queue?.invalidate()), settleWrites: () => Promise.resolve() };
    const storage = indexedDbWrites(BASE, databaseOpener(hooks));
    queue = new WriteQueue(storage);
    assert.equal(await queue.load(), 0);
    const adding = queue.add(write(1));
    // The deletion's `versionchange` comes while the add's transaction runs; closing lets it finish first.
    const deleting = deleteDB(DATABASE_NAME);
    await adding;
    await deleting;
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(lost, ['deleted']);
    assert.equal(queue.pending, 0, 'the queue counts what is stored');
    assert.equal(await queue.load(), 0);
    assert.equal(await storage.count(), 0, 'the add landed in the deleted database');
  });
});
