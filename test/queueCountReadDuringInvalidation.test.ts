// The queue's count read while another context says the queue changed (an announcement from another
// worker of the origin, or the browser closing the database: WriteQueue.invalidate). docs/behaviour.md,
// "Offline cart writes": "AuthState.pendingWrites (a number, 0 when none ...)". A count read that
// started before the invalidation is outdated, but the page asking getState meanwhile must not be
// told 0 while writes wait: the count is read again, as an invalidation of a known count reads it.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { AuthWorker } from '../src/sw/authWorker.js';
import { memoryStorage, type Credentials } from '../src/sw/credentialStorage.js';
import { resolveOptions } from '../src/sw/options.js';
import type { QueuedWrite } from '../src/sw/queuedWrite.js';
import { memoryWrites, type WriteStorage } from '../src/sw/writeStore.js';
import { deferred, unrefChannels } from './fakes.js';

const BASE = 'https://count-read.example/store';
const CART = { token: 'c0unt/Re+ad\\"t', number: 'R731' };
const GUEST: Credentials = { cart: CART, session: null, backoff: null };

const write = (n: number): QueuedWrite => ({
  id: `w-${n}`,
  baseUrl: BASE,
  method: 'PATCH',
  url: `${BASE}/api/v2/storefront/cart/set_quantity`,
  headers: [['content-type', 'application/vnd.api+json']],
  body: null,
  credentials: 'same-origin',
  key: null,
  cart: CART.number,
  signInId: null,
  createdAt: Date.now(),
  attempts: 0,
  notBefore: 0,
});

/** Write storage whose next count waits for `answer()`. */
async function gatedCount() {
  const inner = memoryWrites();
  await inner.add(write(1), 50);
  await inner.add(write(2), 50);
  let gate: { promise: Promise<void>; resolve: (value: void) => void } | null = null;
  const storage: WriteStorage = {
    ...inner,
    count: async () => {
      const waiting = gate;
      if (waiting !== null) await waiting.promise;
      return inner.count();
    },
  };
  return { storage, hold: () => void (gate = deferred<void>()), answer: () => gate?.resolve() };
}

describe('the queue count read while the queue is invalidated', () => {
  before(() => unrefChannels());

  it('getState does not tell pendingWrites 0 while two writes wait', async () => {
    const { storage, hold, answer } = await gatedCount();
    const worker = new AuthWorker(resolveOptions({ baseUrl: BASE, offlineWrites: true }, 'https://count-read.example/storefront-auth-sw.js'), {
      fetch: () => Promise.reject(new TypeError('Failed to fetch')),
      now: Date.now,
      storage: memoryStorage(GUEST),
      toPages: () => {},
      log: undefined,
      writes: storage,
      online: () => false,
    });
    hold();
    worker.preload();
    const state = worker.actions.getState();
    await new Promise((resolve) => setTimeout(resolve, 10));
    // Another worker of the origin changed something, or the browser closed the connection.
    worker.forgetMemoryCopy('closed');
    answer();
    assert.equal((await state).state.pendingWrites, 2);
  });
});
