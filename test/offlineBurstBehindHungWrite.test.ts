// A burst of cart writes made while the browser is offline and an earlier write is still on its way
// (the network went as it was sent, and the connection hangs). docs/behaviour.md, "Offline cart
// writes": "A write to be queued while an earlier one is still on its way from the same worker ...
// waits for that one to end, answered or lost and queued, and is answered `202` then, at most 8 s
// later". Since e62e398 each write to be queued waits for the one made before it to take its place
// (`WriteTurn`), and only then starts its own 8 s wait for the hung write: the k-th write of the
// burst is answered after k × 8 s.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SENDING_WAIT_MS } from '../src/sw/offlineWrites.js';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { memoryWrites } from '../src/sw/writeStore.js';
import { deferred, workersOnTheirOwn } from './fakes.js';
import { BASE, routedWorker } from './workerHarness.js';

const GUEST: Credentials = { cart: { token: 'b/u+r"s\\t=9', number: 'R77' }, session: null, backoff: null };

describe('a burst of writes to be queued behind a write that hangs on its way', () => {
  workersOnTheirOwn();

  it('answers each of them 202 at most SENDING_WAIT_MS after it was made, in the order made', async () => {
    const network = { online: true };
    const hung = deferred<void>();
    const writes = memoryWrites();
    const { through } = routedWorker({ offlineWrites: true }, GUEST, {
      'PATCH /api/v2/storefront/cart/set_quantity': async () => {
        await hung.promise;
        throw new TypeError('Failed to fetch');
      },
    }, Date.now, { writes, online: () => network.online, requestSync: () => {} });
    const set = (quantity: number) => new Request(`${BASE}/api/v2/storefront/cart/set_quantity`, { method: 'PATCH', headers: { 'Content-Type': 'application/vnd.api+json', 'X-Store-Order-Token': 'sealed:cart' }, body: JSON.stringify({ line_item_id: '1', quantity }) });
    const first = through(set(1));
    await new Promise((resolve) => setTimeout(resolve, 5));
    network.online = false;
    // The shopper taps three times, the browser reporting itself offline.
    const made = Date.now();
    const burst = [2, 3, 4].map((quantity) => through(set(quantity)).then((response) => ({ status: response?.status, after: Date.now() - made })));
    const answers = await Promise.all(burst);
    hung.resolve();
    await first;
    for (const [i, answer] of answers.entries()) {
      assert.equal(answer.status, 202);
      assert.ok(answer.after < SENDING_WAIT_MS + 1_000, `write ${i + 2} answered ${answer.after} ms after it was made: ${JSON.stringify(answers)}`);
    }
    // Their order among themselves is the order made (the hung one, lost after them, goes behind).
    assert.deepEqual((await writes.list()).map((write) => JSON.parse(new TextDecoder().decode(write.body as ArrayBuffer)).quantity), [2, 3, 4, 1]);
  });
});
