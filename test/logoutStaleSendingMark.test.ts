// A logout while offline, with a queued write that a stopped worker left marked as on its way
// (src/sw/offlineWrites.ts, `dropEnded`; src/sw/writeReplayer.ts): the mark keeps the logout's drop off
// it, as a write another worker is sending is settled by its answer. No answer comes to a stopped
// worker's attempt, and no worker holds the replay lock: under that lock the write is dropped at the
// logout, unsent, with its `writesettled`, and `pendingWrites` says 0, without waiting for the network.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Credentials } from '../src/sw/credentialStorage.js';
import type { QueuedWrite } from '../src/sw/queuedWrite.js';
import { memoryWrites } from '../src/sw/writeStore.js';
import { workersOnTheirOwn } from './fakes.js';
import { BASE, routedWorker } from './workerHarness.js';

const HOUR = 3_600_000;
const SIGNED_IN: Credentials = {
  cart: { token: 'order-token', number: 'R100' },
  session: { accessToken: 'access-1', refreshToken: 'refresh-1', expiresAt: Date.now() + HOUR, lifetimeMs: HOUR, confirmed: true },
  backoff: null,
  signInId: 'sign-in-1',
};

/** A write the signed-in shopper queued, which a worker stopped while sending left marked. */
const MARKED: QueuedWrite = {
  id: 'write-1',
  baseUrl: BASE,
  method: 'PATCH',
  url: `${BASE}/api/v2/storefront/cart/set_quantity`,
  headers: [['content-type', 'application/vnd.api+json']],
  body: null,
  credentials: 'same-origin',
  key: null,
  cart: 'R100',
  signInId: 'sign-in-1',
  createdAt: Date.now() - 60_000,
  attempts: 0,
  notBefore: 0,
  sending: true,
};

describe('a logout while offline, with a write a stopped worker left marked as sending', () => {
  workersOnTheirOwn();

  it('drops it at the logout, unsent, with its writesettled, and pendingWrites says 0', async () => {
    const writes = memoryWrites();
    const { seq: _none, sending: _mark, ...record } = MARKED;
    const stored = (await writes.add(record, 50))?.write;
    assert.ok(stored);
    await writes.replace({ ...stored, sending: true });
    // Offline: every request the worker sends fails (the logout's revocation).
    const sent: string[] = [];
    const fetch = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => (sent.push(new Request(input, init).url), Promise.reject(new TypeError('Failed to fetch')));
    const { worker, announced, keepAlive, settled } = routedWorker({ offlineWrites: true }, SIGNED_IN, {}, Date.now, { writes, online: () => false, fetch });
    assert.equal(await worker.writes?.load(), 1);
    const result = await worker.actions.logout(keepAlive);
    await settled();
    assert.deepEqual(await writes.list(), [], 'nothing left queued');
    assert.equal(worker.writes?.pending, 0);
    assert.equal(result.state.pendingWrites, 0, 'the logout’s state');
    const told = announced.filter((announcement) => announcement.type === 'writesettled').map((announcement) => announcement.write);
    assert.deepEqual(told, [{ id: 'write-1', outcome: 'dropped' }]);
    assert.ok(!sent.some((url) => url.endsWith('/set_quantity')), 'never sent');
  });
});
