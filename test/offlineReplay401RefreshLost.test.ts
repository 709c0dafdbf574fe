// A queued write's replay answered 401, whose one refresh then meets a network
// error (the pair is kept: a failure, not a refusal). docs/behaviour.md, "Offline cart writes", Settled: "a 5xx,
// or a network error or timeout while the browser reports itself online, keeps it"; the 401 rule is
// "a 401 refreshes and replays once", and no replay could be made. The write is told `rejected` (401)
// and dropped for good: the shopper's change is lost to a network blip.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { memoryWrites } from '../src/sw/writeStore.js';
import { workersOnTheirOwn } from './fakes.js';
import { BASE, routedWorker } from './workerHarness.js';

const HOUR = 3_600_000;
const SIGNED_IN: Credentials = {
  cart: { token: 'c\\"rt+to/ken', number: 'R512' },
  session: { accessToken: 'ac"ce+ss/\\tok', refreshToken: '\\re"fr/esh+', expiresAt: Date.now() + HOUR, lifetimeMs: HOUR, confirmed: true },
  backoff: null,
  signInId: 'sign-in-5',
};

describe('a replay answered 401 whose refresh meets a network error', () => {
  workersOnTheirOwn();

  it('keeps the write for another attempt, not rejected', async () => {
    const network = { online: false };
    const writes = memoryWrites();
    const { worker, through, announced, keepAlive, settled, calls } = routedWorker({ offlineWrites: true }, SIGNED_IN, {
      'PATCH /api/v2/storefront/cart/set_quantity': () => Response.json({ error: 'The access token expired' }, { status: 401 }),
      'POST /store_oauth/token': () => {
        throw new TypeError('Failed to fetch');
      },
    }, Date.now, { writes, online: () => network.online });
    const queued = await through(new Request(`${BASE}/api/v2/storefront/cart/set_quantity`, { method: 'PATCH', headers: { 'Content-Type': 'application/vnd.api+json' }, body: '{"line_item_id":"9","quantity":5}' }));
    assert.equal(queued?.status, 202);
    network.online = true;
    worker.nudge(keepAlive, true);
    await settled();
    assert.deepEqual(calls.map((call) => call.route), ['PATCH /api/v2/storefront/cart/set_quantity', 'POST /store_oauth/token']);
    const told = announced.filter((a) => a.type === 'writesettled').map((a) => a.write);
    assert.deepEqual({ told, left: (await writes.list()).length }, { told: [], left: 1 });
  });
});
