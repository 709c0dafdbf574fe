// A signed-in shopper's cart write while the browser reports itself online but
// the network is gone (a train's lie-fi). The bearer is due, so the request path refreshes first, and
// the refresh meets the network error: the write never left. docs/behaviour.md, "Offline cart writes",
// When: "the worker could not get the write to the server (a network error, or the browser reports
// itself offline)" -> stored and answered 202. OfflineWrites.carry takes the refresher's own error as
// `unsent` and rethrows it: the page gets the network error, as without the option.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { memoryWrites } from '../src/sw/writeStore.js';
import { workersOnTheirOwn } from './fakes.js';
import { BASE, routedWorker } from './workerHarness.js';

const HOUR = 3_600_000;
const EXPIRED: Credentials = {
  cart: { token: 'Tq\\"cart/to+ken', number: 'R311' },
  session: { accessToken: 'old"acc+ess/\\', refreshToken: 'r"ef/re+sh\\', expiresAt: Date.now() - 60_000, lifetimeMs: HOUR, confirmed: true },
  backoff: null,
  signInId: 'sign-in-3',
};

const lost = (): Response => {
  throw new TypeError('Failed to fetch');
};

describe('a cart write whose due refresh meets the network error, the browser reporting itself online', () => {
  workersOnTheirOwn();

  it('is queued and answered 202: it never left, and the network is gone', async () => {
    const writes = memoryWrites();
    const { through, calls, keepAlive, worker } = routedWorker({ offlineWrites: true }, EXPIRED, {
      'POST /store_oauth/token': lost,
      'PATCH /api/v2/storefront/cart/set_quantity': lost,
    }, Date.now, { writes, online: () => true });
    void keepAlive;
    const request = new Request(`${BASE}/api/v2/storefront/cart/set_quantity`, { method: 'PATCH', headers: { 'Content-Type': 'application/vnd.api+json', Authorization: 'Bearer sealed:access' }, body: '{"line_item_id":"4","quantity":2}' });
    const outcome = await through(request).then((response) => `answered ${response?.status}`, (error: Error) => `rejected: ${error.name} ${(error as { code?: string }).code ?? ''}`);
    assert.deepEqual({ outcome, queued: (await writes.list()).length, sent: calls.map((call) => call.route) }, { outcome: 'answered 202', queued: 1, sent: ['POST /store_oauth/token'] });
    void worker;
  });
});
