// The order of writes when the network dies while one is on its way. The shopper sets a quantity to 3
// (sent: the browser reports itself online), the network goes, the browser notices, and the shopper
// sets it to 5, to be queued at once. The first attempt then fails and is queued: it must go ahead of
// the second, or the server ends at 3, not 5 (docs/behaviour.md, "Offline cart writes": replayed in the
// order they were made).
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { SENDING_WAIT_MS } from '../src/sw/offlineWrites.js';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { memoryWrites } from '../src/sw/writeStore.js';
import { deferred, workersOnTheirOwn } from './fakes.js';
import { BASE, routedWorker } from './workerHarness.js';

const GUEST: Credentials = { cart: { token: 'g+u/e"st\\cart', number: 'R640' }, session: null, backoff: null };
const CART_DOC = { data: { id: '1', type: 'cart', attributes: { number: 'R640', token: GUEST.cart!.token } } };

describe('a write queued while an earlier one is still on its way', () => {
  workersOnTheirOwn();

  it('is replayed after it: the server sees quantity 3, then 5', async () => {
    const network = { online: true, down: true };
    const firstLost = deferred<void>();
    const seen: string[] = [];
    const writes = memoryWrites();
    const { worker, through, keepAlive, settled } = routedWorker({ offlineWrites: true }, GUEST, {
      'PATCH /api/v2/storefront/cart/set_quantity': async (call) => {
        if (network.down) {
          await firstLost.promise;
          throw new TypeError('Failed to fetch');
        }
        seen.push(JSON.parse(await call.body).quantity);
        return Response.json(CART_DOC);
      },
    }, Date.now, { writes, online: () => network.online });
    const set = (quantity: number) => new Request(`${BASE}/api/v2/storefront/cart/set_quantity`, { method: 'PATCH', headers: { 'Content-Type': 'application/vnd.api+json', 'X-Store-Order-Token': 'sealed:cart' }, body: JSON.stringify({ line_item_id: '1', quantity }) });
    const first = through(set(3));
    await new Promise((resolve) => setTimeout(resolve, 5));
    network.online = false;
    // Answered once the first has ended: held until then, its place in the queue is behind it.
    let answered = false;
    const second = through(set(5)).then((response) => ((answered = true), response));
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(answered, false, 'the second waits for the first, still on its way');
    firstLost.resolve();
    assert.equal((await first)?.status, 202);
    assert.equal((await second)?.status, 202);
    network.online = true;
    network.down = false;
    worker.nudge(keepAlive, true);
    await settled();
    assert.deepEqual(seen, [3, 5]);
  });

  it('is answered 202 after SENDING_WAIT_MS when the first hangs, and queued (the first then behind it)', async () => {
    const network = { online: true, down: true };
    const firstLost = deferred<void>();
    const writes = memoryWrites();
    const { through } = routedWorker({ offlineWrites: true }, GUEST, {
      'PATCH /api/v2/storefront/cart/set_quantity': async () => {
        await firstLost.promise;
        throw new TypeError('Failed to fetch');
      },
    }, Date.now, { writes, online: () => network.online });
    const set = (quantity: number) => new Request(`${BASE}/api/v2/storefront/cart/set_quantity`, { method: 'PATCH', headers: { 'Content-Type': 'application/vnd.api+json', 'X-Store-Order-Token': 'sealed:cart' }, body: JSON.stringify({ line_item_id: '1', quantity }) });
    const first = through(set(3));
    await new Promise((resolve) => setTimeout(resolve, 5));
    network.online = false;
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      let answered = false;
      const second = through(set(5)).then((response) => ((answered = true), response));
      for (let i = 0; i < 20; i++) await Promise.resolve();
      // The bound counts from the write's arrival, on the real clock: a few ms before the mocked timer.
      mock.timers.tick(SENDING_WAIT_MS - 200);
      for (let i = 0; i < 20; i++) await Promise.resolve();
      assert.equal(answered, false, 'held until the bound');
      mock.timers.tick(200);
      assert.equal((await second)?.status, 202);
    } finally {
      mock.timers.reset();
    }
    firstLost.resolve();
    assert.equal((await first)?.status, 202);
    assert.deepEqual((await writes.list()).map((write) => JSON.parse(new TextDecoder().decode(write.body as ArrayBuffer)).quantity), [5, 3]);
  });
});
