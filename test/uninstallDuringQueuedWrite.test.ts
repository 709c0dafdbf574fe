// An uninstall's deleteDatabase (docs/deploying.md) while the worker is keeping an offline write
// (src/sw/writeQueue.ts, `#counted`), with fake-indexeddb standing in for the browser's: the add lands
// in the database that is then deleted, and the queue counts 0 without reading storage again, as a
// read would create the `storefront-auth` database right after the uninstall deleted it.
import 'fake-indexeddb/auto';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IDBFactory } from 'fake-indexeddb';
import { deleteDB } from 'idb';
import { databaseOpener, DATABASE_NAME, type StorageHooks } from '../src/sw/credentialStorage.js';
import type { QueuedWrite } from '../src/sw/queuedWrite.js';
import { WriteQueue } from '../src/sw/writeQueue.js';
import { indexedDbWrites } from '../src/sw/writeStore.js';

const BASE = 'https://shop.example/store';

describe('an uninstall’s deleteDatabase while a write is being kept', () => {
  it('leaves no storefront-auth database behind', { timeout: 5_000 }, async () => {
    globalThis.indexedDB = new IDBFactory();
    let queue: WriteQueue | null = null;
    // What the worker does (authWorker.ts, `forgetMemoryCopy`).
    const hooks: StorageHooks = { lost: (how) => (how === 'deleted' ? queue?.cleared() : queue?.invalidate()), settleWrites: () => Promise.resolve() };
    queue = new WriteQueue(indexedDbWrites(BASE, databaseOpener(hooks)));
    assert.equal(await queue.load(), 0);
    const write: QueuedWrite = { id: 'write-1', baseUrl: BASE, method: 'PATCH', url: `${BASE}/api/v2/storefront/cart/set_quantity`, headers: [], body: null, credentials: 'same-origin', key: null, cart: 'R100', signInId: null, createdAt: Date.now(), attempts: 0, notBefore: 0 };
    const adding = queue.add(write);
    const deleting = deleteDB(DATABASE_NAME); // the uninstall snippet
    await adding;
    await deleting;
    for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(queue.pending, 0, 'nothing stored, nothing counted');
    assert.deepEqual((await indexedDB.databases()).map((db) => db.name), [], 'the deleted database was not created again');
  });
});
