// A logout in the worker whose own replay pass is sending a write. The drop
// leaves the marked write to its answer and, since a pass runs here, WriteReplayer.drop does nothing
// ("a pass in flight here drops them itself as it meets them"). When the answer keeps the write for
// another attempt, that pass returns at once: the ended shopper's write stays queued, counted, untold.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { memoryWrites } from '../src/sw/writeStore.js';
import { deferred, workersOnTheirOwn } from './fakes.js';
import { BASE, routedWorker } from './workerHarness.js';

const HOUR = 3_600_000;
const SIGNED_IN: Credentials = {
  cart: { token: 'k"9\\order/tok+en', number: 'R207' },
  session: { accessToken: 'eyJ+acc/ess\\"1', refreshToken: 'ref+resh/"2\\', expiresAt: Date.now() + HOUR, lifetimeMs: HOUR, confirmed: true },
  backoff: null,
  signInId: 'sign-in-7',
};

describe('a logout while this worker’s own pass sends the ended shopper’s write', () => {
  workersOnTheirOwn();

  for (const [label, answer, onlineAfter] of [
    ['a 503 with Retry-After: 300', () => new Response('{}', { status: 503, headers: { 'Retry-After': '300' } }), true],
    ['no answer, the browser offline again', () => Promise.reject(new TypeError('Failed to fetch')), false],
  ] as const) {
    it(`drops it with its writesettled once the attempt is kept for another (${label})`, async () => {
      const network = { online: false };
      const sending = deferred<void>();
      const answering = deferred<void>();
      const writes = memoryWrites();
      const { worker, through, announced, keepAlive, settled } = routedWorker({ offlineWrites: true }, SIGNED_IN, {
        'PATCH /api/v2/storefront/cart/set_quantity': async () => {
          sending.resolve();
          await answering.promise;
          return answer();
        },
      }, Date.now, { writes, online: () => network.online });
      const url = `${BASE}/api/v2/storefront/cart/set_quantity`;
      const queued = await through(new Request(url, { method: 'PATCH', headers: { 'Content-Type': 'application/vnd.api+json', Authorization: 'Bearer sealed:access' }, body: '{"line_item_id":"1","quantity":3}' }));
      assert.equal(queued?.status, 202);
      network.online = true;
      worker.nudge(keepAlive, true);
      await sending.promise;
      // The shopper logs out while the write is on its way.
      const result = await worker.actions.logout(keepAlive);
      network.online = onlineAfter;
      answering.resolve();
      await settled();
      const told = announced.filter((a) => a.type === 'writesettled').map((a) => a.write);
      assert.deepEqual({ left: (await writes.list()).length, pending: worker.writes?.pending, told: told.map((w) => (w as { outcome: string }).outcome), logoutSaid: result.state.pendingWrites }, { left: 0, pending: 0, told: ['dropped'], logoutSaid: 1 });
    });
  }
});
