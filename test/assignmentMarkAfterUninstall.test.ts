// An uninstall's deleteDatabase (docs/deploying.md) while a login's guest cart is
// being assigned. The worker forgets its memory copy without reading storage (authWorker.ts
// `forgetMemoryCopy`), as a read or write would create the `storefront-auth` database again right
// after the uninstall deleted it (test/uninstallDuringQueuedWrite.test.ts asserts the same for the
// queue). The end of the assignment's mark is written to storage once the association is answered.
import 'fake-indexeddb/auto';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IDBFactory } from 'fake-indexeddb';
import { deleteDB } from 'idb';
import { AuthWorker } from '../src/sw/authWorker.js';
import { databaseOpener, DATABASE_NAME, indexedDbStorage, type StorageHooks } from '../src/sw/credentialStorage.js';
import { resolveOptions } from '../src/sw/options.js';
import type { KeepAlive } from '../src/sw/requestPath.js';
import { deferred } from './fakes.js';

const BASE = 'https://uninstall-mark.example/store';
const CART = { token: 'uN+in/st"al\\l', number: 'R6620' };

describe('an uninstall while a login assigns the guest cart', () => {
  it('leaves no storefront-auth database behind', { timeout: 10_000 }, async () => {
    globalThis.indexedDB = new IDBFactory();
    const channel = globalThis.BroadcastChannel;
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
    try {
      const associating = deferred<void>();
      const answer = deferred<void>();
      const work: Promise<unknown>[] = [];
      const keepAlive: KeepAlive = (promise) => void work.push(promise);
      let worker: AuthWorker | null = null;
      const hooks: StorageHooks = { lost: (how) => worker?.forgetMemoryCopy(how), settleWrites: () => Promise.resolve() };
      const storage = indexedDbStorage(BASE, hooks, databaseOpener(hooks));
      await storage.update((held) => ({ ...held, cart: CART }));
      const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
        const request = new Request(input, init);
        const path = new URL(request.url).pathname;
        if (path.endsWith('oauth/token')) return Response.json({ access_token: 'uA/cc+e"ss\\9', refresh_token: 'uR+ef/"r\\9', token_type: 'Bearer', expires_in: 3600 });
        if (path.endsWith('/cart/associate')) {
          associating.resolve();
          await answer.promise;
          return Response.json({ data: { id: '3', type: 'cart', attributes: { number: CART.number, token: CART.token } } });
        }
        return new Response(null, { status: 599 });
      };
      worker = new AuthWorker(resolveOptions({ baseUrl: BASE }, 'https://uninstall-mark.example/storefront-auth-sw.js'), { fetch, now: Date.now, storage, toPages: () => {}, log: undefined });
      worker.preload();
      await worker.actions.login('shopper@example.com', 'pw/+"\\', keepAlive, AbortSignal.timeout(5_000));
      await associating.promise;
      // The uninstall snippet deletes the database while the association is on its way.
      await deleteDB(DATABASE_NAME);
      answer.resolve();
      for (let seen = 0; seen < work.length; seen = work.length) await Promise.allSettled(work);
      await new Promise((resolve) => setTimeout(resolve, 100));
      for (let seen = 0; seen < work.length; seen = work.length) await Promise.allSettled(work);
      assert.deepEqual((await indexedDB.databases()).map((db) => db.name), [], 'the deleted database was not created again');
    } finally {
      (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = channel;
    }
  });
});
