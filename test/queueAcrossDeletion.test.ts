// The offline write queue across a deletion of its database (src/sw/writeStore.ts, src/sw/writeQueue.ts),
// with fake-indexeddb standing in for the browser's: the site's data cleared (a forced close) or the
// database deleted by another context (its `versionchange`) while the worker runs. IndexedDB's key
// generator starts again in the new database, so a write read before the deletion may share its `seq`
// with one queued after it: replacing or removing the first never touches the second.
import 'fake-indexeddb/auto';
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { IDBFactory } from 'fake-indexeddb';
import { type StorageHooks } from '../src/sw/credentialStorage.js';
import type { QueuedWrite } from '../src/sw/queuedWrite.js';
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
});
