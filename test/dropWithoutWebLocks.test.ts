// A logout in one worker while another sends a queued write, where Web Locks are missing or refuse
// the worker (docs/browser-support.md; src/sw/writeReplayer.ts, `drop`): without the replay's lock a
// live sender cannot be told from a worker stopped while sending, so the logout's drop leaves the
// marked write to its answer. The server applies it, and the pages hear `applied`, never `dropped`.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { AuthWorker } from '../src/sw/authWorker.js';
import { memoryStorage, type Credentials } from '../src/sw/credentialStorage.js';
import { resolveOptions } from '../src/sw/options.js';
import type { KeepAlive } from '../src/sw/requestPath.js';
import { memoryWrites } from '../src/sw/writeStore.js';
import { deferred, removeFakeLocks } from './fakes.js';

const BASE = 'https://shop.example/store';
const CART = { token: 'order-token', number: 'R100' };
const SIGNED_IN: Credentials = { cart: CART, session: { accessToken: 'access-1', refreshToken: 'refresh-1', expiresAt: Date.now() + 3_600_000, lifetimeMs: 3_600_000, confirmed: true }, backoff: null, signInId: 'sign-in-1' };
const CART_DOC = { data: { id: '1', type: 'cart', attributes: { number: 'R100', token: CART.token } } };

/** A `navigator.locks` that refuses the worker, as Chromium's does a context denied the Locks API. */
const REFUSING = { request: () => Promise.reject(new DOMException('denied', 'SecurityError')) };

describe('a logout in worker A while worker B sends a queued write, without Web Locks', () => {
  const channel = globalThis.BroadcastChannel;
  afterEach(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = channel;
    removeFakeLocks();
  });

  it('tells applied (the server applied it), never dropped, where Web Locks are missing', async () => {
    assert.equal((globalThis as { navigator?: { locks?: unknown } }).navigator?.locks, undefined, 'no Web Locks here');
    await logoutWhileSending();
  });

  it('tells applied (the server applied it), never dropped, where Web Locks refuse the worker', async () => {
    Object.defineProperty(globalThis, 'navigator', { value: { locks: REFUSING }, configurable: true, writable: true });
    await logoutWhileSending();
  });
});

/** Worker B sends a queued write of the sign-in, and the shopper logs out in a page of worker A meanwhile. */
async function logoutWhileSending(): Promise<void> {
  (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  const credentials = memoryStorage(SIGNED_IN);
  const writes = memoryWrites();
  const told: unknown[] = [];
  const work: Promise<unknown>[] = [];
  const keepAlive: KeepAlive = (promise) => void work.push(promise);
  const sendingStarted = deferred<void>();
  const answered = deferred<void>();
  let applied = 0;
  const make = () =>
    new AuthWorker(resolveOptions({ baseUrl: BASE, offlineWrites: true }, 'https://shop.example/storefront-auth-sw.js'), {
      fetch: async (input, init) => {
        const path = new URL(new Request(input, init).url).pathname;
        if (path.endsWith('/set_quantity')) {
          sendingStarted.resolve();
          await answered.promise;
          applied++;
          return Response.json(CART_DOC);
        }
        return Response.json({});
      },
      now: Date.now,
      storage: credentials,
      toPages: (announcement) => void (announcement.type === 'writesettled' && told.push(announcement.write)),
      log: undefined,
      writes,
      online: () => true,
    });
  // Worker A started earlier, with nothing queued.
  const a = make();
  a.preload();
  assert.equal(await a.writes?.load(), 0);
  // A write queued (the network failed), then worker B replays it: marked, on its way.
  const stored = (await writes.add({ id: 'write-1', baseUrl: BASE, method: 'PATCH', url: `${BASE}/api/v2/storefront/cart/set_quantity`, headers: [['content-type', 'application/vnd.api+json']], body: null, credentials: 'same-origin', key: null, cart: 'R100', signInId: 'sign-in-1', createdAt: Date.now(), attempts: 0, notBefore: 0 }, 50))?.write;
  assert.ok(stored);
  a.writes?.invalidate(); // B's announcement of the change reached A
  assert.equal(await a.writes?.load(), 1);
  const b = make();
  b.preload();
  await sendingStarted.promise;
  // The shopper logs out in a page of worker A while B's write is on its way.
  await a.actions.logout(keepAlive);
  await new Promise((resolve) => setTimeout(resolve, 20));
  answered.resolve();
  for (let seen = 0; seen < work.length; seen = work.length) await Promise.allSettled(work);
  await b.writes?.settled();
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(applied, 1, 'the server applied the write');
  assert.deepEqual(told, [{ id: 'write-1', outcome: 'applied', status: 200 }]);
}
