// A logout in one worker while another replays a queued write (src/sw/offlineWrites.ts, `dropEnded`;
// src/sw/writeStore.ts, `remove`): the logging-out worker lists the queue before the other marks the
// write and sends it, and removes it after. Its removal reads the mark again in its own transaction,
// so the write is left to its answer and told `applied`, never `dropped` while the server applied it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AuthWorker } from '../src/sw/authWorker.js';
import { memoryStorage, type Credentials } from '../src/sw/credentialStorage.js';
import { resolveOptions } from '../src/sw/options.js';
import type { KeepAlive } from '../src/sw/requestPath.js';
import { memoryWrites, type WriteStorage } from '../src/sw/writeStore.js';
import { deferred, workersOnTheirOwn } from './fakes.js';

const BASE = 'https://shop.example/store';
const CART = { token: 'Zq+/order-token', number: 'R100' };
const SIGNED_IN: Credentials = { cart: CART, session: { accessToken: 'a1/access', refreshToken: 'r1/refresh', expiresAt: Date.now() + 3_600_000, lifetimeMs: 3_600_000, confirmed: true }, backoff: null, signInId: 'sign-in-1' };
const CART_DOC = { data: { id: '1', type: 'cart', attributes: { number: 'R100', token: CART.token } } };

describe('a logout in one worker while another replays', () => {
  workersOnTheirOwn();

  it('never tells dropped a write the other worker marked and sent after the logout listed the queue', async () => {
    const credentials = memoryStorage(SIGNED_IN);
    const writes = memoryWrites();
    const told: unknown[] = [];
    const work: Promise<unknown>[] = [];
    const keepAlive: KeepAlive = (promise) => void work.push(promise);
    const sendingStarted = deferred<void>();
    const answered = deferred<void>();
    // The logging-out worker's view of the same store: its remove lands a moment after its list (another transaction).
    const otherWrites: WriteStorage = { ...writes, remove: async (...args) => (await sendingStarted.promise, writes.remove(...args)) };
    const make = (storage: WriteStorage, online: () => boolean) =>
      new AuthWorker(resolveOptions({ baseUrl: BASE, offlineWrites: true }, 'https://shop.example/storefront-auth-sw.js'), {
        fetch: async (input, init) => {
          const path = new URL(new Request(input, init).url).pathname;
          if (path.endsWith('/set_quantity')) {
            sendingStarted.resolve();
            await answered.promise;
            return Response.json(CART_DOC);
          }
          return Response.json({});
        },
        now: Date.now,
        storage: credentials,
        toPages: (announcement) => void (announcement.type === 'writesettled' && told.push(announcement.write)),
        log: undefined,
        writes: storage,
        online,
      });
    const queuing = make(writes, () => false);
    queuing.preload();
    const url = new URL(`${BASE}/api/v2/storefront/cart/set_quantity`);
    const page = new Request(url, { method: 'PATCH', headers: { 'Content-Type': 'application/vnd.api+json' }, body: '{"line_item_id":"1","quantity":3}' });
    const id = (await (await queuing.requests.handle(page, url, undefined, keepAlive)).json()).id;
    const sending = make(writes, () => true);
    const other = make(otherWrites, () => true);
    sending.preload();
    other.preload();
    await other.writes?.load();
    await sending.writes?.load();
    // The shopper logs out in a page of the other worker: its drop lists the queue (nothing marked yet)...
    const loggingOut = other.actions.logout(keepAlive);
    // ...while this worker starts its replay, marks the write and sends it.
    sending.nudge(keepAlive, true);
    await sendingStarted.promise;
    await new Promise((resolve) => setTimeout(resolve, 10));
    answered.resolve();
    await loggingOut;
    for (let seen = 0; seen < work.length; seen = work.length) await Promise.allSettled(work);
    assert.deepEqual(told, [{ id, outcome: 'applied', status: 200 }]);
  });
});
