// Two cart writes a page makes one after the other while the browser is offline, without waiting for
// the first's answer (a shopper adds an item and at once removes another line): docs/behaviour.md,
// "Offline cart writes": sent in order, one at a time, so the server sees the writes in the order they
// were made. The worker takes each write's place in the queue when its storage add lands, after
// the request's own awaits (its body read, the queue's count): a DELETE without a body overtakes the
// POST made before it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { memoryWrites } from '../src/sw/writeStore.js';
import { workersOnTheirOwn } from './fakes.js';
import { BASE, routedWorker } from './workerHarness.js';

const CART = { token: 'oT/k+e\\n"7', number: 'R512' };
const GUEST: Credentials = { cart: CART, session: null, backoff: null };
const CART_DOC = { data: { id: '5', type: 'cart', attributes: { number: CART.number, token: CART.token } } };

describe('two cart writes made at once while offline', () => {
  workersOnTheirOwn();

  it('are replayed in the order the page made them', async () => {
    const network = { online: false };
    const seen: string[] = [];
    const { worker, through, keepAlive, settled } = routedWorker({ offlineWrites: true }, GUEST, {
      'POST /api/v2/storefront/cart/add_item': () => (seen.push('add_item'), Response.json(CART_DOC)),
      'DELETE /api/v2/storefront/cart/remove_line_item/41': () => (seen.push('remove_line_item'), Response.json(CART_DOC)),
    }, Date.now, { writes: memoryWrites(), online: () => network.online, requestSync: () => {} });
    await worker.writes?.load();
    // The page's two fetches, in this order, the second before the first is answered.
    const add = through(new Request(`${BASE}/api/v2/storefront/cart/add_item`, { method: 'POST', headers: { 'Content-Type': 'application/vnd.api+json' }, body: '{"variant_id":"9","quantity":1}' }));
    const remove = through(new Request(`${BASE}/api/v2/storefront/cart/remove_line_item/41`, { method: 'DELETE' }));
    assert.equal((await add)?.status, 202);
    assert.equal((await remove)?.status, 202);
    network.online = true;
    worker.nudge(keepAlive, true);
    await settled();
    assert.deepEqual(seen, ['add_item', 'remove_line_item']);
  });
});
