// A write to be queued now waits (up to SENDING_WAIT_MS) for the writes this worker
// is sending (701802e). A page that gives up on it in that wait (an AbortSignal, a navigation) has
// its fetch rejected, yet the write is still queued afterwards and will be replayed: the page, told
// it failed, may send it again, and the server applies it twice. The send path checks
// `page.signal.aborted` before queueing; the wait does not.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { memoryWrites } from '../src/sw/writeStore.js';
import { deferred, workersOnTheirOwn } from './fakes.js';
import { BASE, routedWorker } from './workerHarness.js';

const GUEST: Credentials = { cart: { token: 'a+b/o"rt\\cart', number: 'R641' }, session: null, backoff: null };

describe('a write the page aborts while it waits for a write on its way', () => {
  workersOnTheirOwn();

  it('is not queued', async () => {
    const network = { online: true };
    const firstLost = deferred<void>();
    const writes = memoryWrites();
    const { through } = routedWorker({ offlineWrites: true }, GUEST, {
      'PATCH /api/v2/storefront/cart/set_quantity': async () => {
        await firstLost.promise;
        throw new TypeError('Failed to fetch');
      },
    }, Date.now, { writes, online: () => network.online });
    const set = (quantity: number, signal?: AbortSignal) => new Request(`${BASE}/api/v2/storefront/cart/set_quantity`, { method: 'PATCH', signal: signal ?? null, headers: { 'Content-Type': 'application/vnd.api+json', 'X-Store-Order-Token': 'sealed:cart' }, body: JSON.stringify({ line_item_id: '1', quantity }) });
    const first = through(set(3));
    await new Promise((resolve) => setTimeout(resolve, 5));
    network.online = false;
    const controller = new AbortController();
    const second = through(set(5, controller.signal)).then(
      (response) => response?.status,
      (error: unknown) => (error as Error).name,
    );
    await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    await new Promise((resolve) => setTimeout(resolve, 5));
    firstLost.resolve();
    assert.equal((await first)?.status, 202);
    const secondOutcome = await second;
    const queued = (await writes.list()).map((write) => JSON.parse(new TextDecoder().decode(write.body as ArrayBuffer)).quantity);
    assert.deepEqual(queued, [3], `only the write the page still waits for is queued (the aborted one was answered ${secondOutcome})`);
  });
});
