// A logout made offline in a worker that the logout message itself started (the browser stopped it
// after 30 s idle while the page stayed open): the queue's count is not read yet, since a worker
// reads it at start only online (offlineWrites.ts, `nudge`). The logout still drops the ended
// sign-in's queued write, with its `writesettled`, and announces the count that is stored
// (docs/behaviour.md, "Offline cart writes": a logout drops the writes of the sign-in it ends).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AuthWorker } from '../src/sw/authWorker.js';
import { memoryStorage, type Credentials } from '../src/sw/credentialStorage.js';
import { resolveOptions } from '../src/sw/options.js';
import type { KeepAlive } from '../src/sw/requestPath.js';
import { memoryWrites } from '../src/sw/writeStore.js';

const BASE = 'https://shop.example/store';
const CART = { token: 'order-token', number: 'R100' };
const SIGNED_IN: Credentials = { cart: CART, session: { accessToken: 'access-1', refreshToken: 'refresh-1', expiresAt: Date.now() + 3_600_000, lifetimeMs: 3_600_000, confirmed: true }, backoff: null, signInId: 'sign-in-1' };

describe('logout in a worker started offline', () => {
  it("drops the ended sign-in's queued write, told dropped, and announces what is stored", async () => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
    const writes = memoryWrites();
    await writes.add({ id: 'write-1', baseUrl: BASE, method: 'PATCH', url: `${BASE}/api/v2/storefront/cart/set_quantity`, headers: [['content-type', 'application/vnd.api+json']], body: null, credentials: 'same-origin', key: null, cart: 'R100', signInId: 'sign-in-1', createdAt: Date.now(), attempts: 0, notBefore: 0 }, 50);
    const told: unknown[][] = [];
    const work: Promise<unknown>[] = [];
    const keepAlive: KeepAlive = (promise) => void work.push(promise);
    const worker = new AuthWorker(resolveOptions({ baseUrl: BASE, offlineWrites: true }, 'https://shop.example/storefront-auth-sw.js'), {
      fetch: async () => { throw new TypeError('offline'); },
      now: Date.now,
      storage: memoryStorage(SIGNED_IN),
      toPages: (announcement) => void told.push([announcement.type, announcement.type === 'writesettled' ? announcement.write : announcement.state?.pendingWrites]),
      log: undefined,
      writes,
      online: () => false,
    });
    // The worker starts for the bridge's logout message (messageListener.ts: nudge, then the action).
    worker.preload();
    worker.nudge(keepAlive);
    const result = await worker.actions.logout(keepAlive);
    for (let seen = 0; seen < work.length; seen = work.length) await Promise.allSettled(work);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal((await writes.list()).length, 0, "the ended sign-in's write is dropped at logout");
    assert.deepEqual(told, [['writesettled', { id: 'write-1', outcome: 'dropped' }], ['change', 0]]);
    assert.equal(result.state.pendingWrites, 0);
    assert.equal((await worker.actions.getState()).state.pendingWrites, 0);
  });
});
