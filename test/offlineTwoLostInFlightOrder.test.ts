// Two cart writes a page sends one after the other while online, both on their way when the network
// goes: the shopper sets a quantity to 3, then at once to 5 (v2 `set_quantity` sets, so a lost one is
// queued: plan `sendThenQueue`). Each is queued as its own attempt fails; the later one's failure may
// come first (two connections, two timeouts). docs/behaviour.md, "Offline cart writes": replayed "in
// the order they were made", "so the server sees the writes in the order they were made"; a write to
// be queued while an earlier one is still on its way waits for that one to end. The later write's
// lost attempt is queued at once, ahead of the earlier one: the server ends at 3, not 5.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { memoryWrites } from '../src/sw/writeStore.js';
import { deferred, workersOnTheirOwn } from './fakes.js';
import { BASE, routedWorker } from './workerHarness.js';

const GUEST: Credentials = { cart: { token: 'tw+o/"lo\\st', number: 'R902' }, session: null, backoff: null };
const CART_DOC = { data: { id: '1', type: 'cart', attributes: { number: 'R902', token: GUEST.cart!.token } } };

describe('two writes lost on their way, the later one failing first', () => {
  workersOnTheirOwn();

  it('are queued and replayed in the order the page made them: 3, then 5', async () => {
    const network = { online: true, down: true };
    const lost = new Map<number, ReturnType<typeof deferred<void>>>([[3, deferred<void>()], [5, deferred<void>()]]);
    const seen: number[] = [];
    const writes = memoryWrites();
    const { worker, through, keepAlive, settled } = routedWorker({ offlineWrites: true }, GUEST, {
      'PATCH /api/v2/storefront/cart/set_quantity': async (call) => {
        const { quantity } = JSON.parse(await call.body) as { quantity: number };
        if (network.down) {
          await lost.get(quantity)!.promise;
          throw new TypeError('Failed to fetch');
        }
        seen.push(quantity);
        return Response.json(CART_DOC);
      },
    }, Date.now, { writes, online: () => network.online, requestSync: () => {} });
    const set = (quantity: number) => new Request(`${BASE}/api/v2/storefront/cart/set_quantity`, { method: 'PATCH', headers: { 'Content-Type': 'application/vnd.api+json', 'X-Store-Order-Token': 'sealed:cart' }, body: JSON.stringify({ line_item_id: '1', quantity }) });
    const three = through(set(3));
    const five = through(set(5));
    await new Promise((resolve) => setTimeout(resolve, 10));
    // The later one's connection fails first.
    lost.get(5)!.resolve();
    await new Promise((resolve) => setTimeout(resolve, 10));
    lost.get(3)!.resolve();
    assert.equal((await three)?.status, 202);
    assert.equal((await five)?.status, 202);
    assert.deepEqual((await writes.list()).map((write) => JSON.parse(new TextDecoder().decode(write.body as ArrayBuffer)).quantity), [3, 5], 'queued in the order made');
    network.down = false;
    worker.nudge(keepAlive, true);
    await settled();
    assert.deepEqual(seen, [3, 5]);
  });
});
