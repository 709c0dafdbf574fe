// A page's own cart creation that asks for the token alone (`POST /api/v2/storefront/cart?fields[cart]=token`,
// a JSON:API sparse fieldset Spree honours), answered with a cart document that has no number
// (docs/behaviour.md, "What is kept from answers"), through the orchestrator with memory storage
// and a routed fetch:
// - the worker keeps the token with the number `''`, which `AuthState.cart` shows, so the page reads
//   `sealed:cart` (which it can send back), never `sealed:order` (which it cannot): the guest's new
//   cart is lost to neither;
// - with offline writes on, a write to such a cart is not queued (kept writes name their cart by
//   number, and two carts without one would be the same): it goes as without the queue.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { memoryWrites } from '../src/sw/writeStore.js';
import { BASE, routedWorker } from './workerHarness.js';

const NOTHING: Credentials = { cart: null, session: null, backoff: null };
const TOKEN = 'Tk9cart0000000000000000x';
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

describe("a page's own cart creation answered with a token and no number", () => {
  const channel = globalThis.BroadcastChannel;
  before(() => void ((globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined));
  after(() => void ((globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = channel));

  it('keeps the token with the number "", seals it as sealed:cart, and swaps that back on the next cart call', async () => {
    const { through, settled, storage, calls, announced } = routedWorker({ preset: 'spree' }, NOTHING, {
      'POST /api/v2/storefront/cart': () =>
        Response.json({ data: { id: '7', type: 'cart', attributes: { token: TOKEN }, relationships: {} } }, { status: 201, headers: { 'Content-Type': 'application/vnd.api+json' } }),
      'GET /api/v2/storefront/cart': () => Response.json({ data: { id: '7', type: 'cart', attributes: { number: 'R7', token: TOKEN } } }),
    });
    await settle();
    const created = await through(new Request(`${BASE}/api/v2/storefront/cart?fields%5Bcart%5D=token`, { method: 'POST', headers: { 'Content-Type': 'application/vnd.api+json' } }));
    assert.equal(((await created!.json()) as { data: { attributes: { token: string } } }).data.attributes.token, 'sealed:cart');
    await settled();
    assert.deepEqual((await storage.read()).cart, { token: TOKEN, number: '' });
    assert.deepEqual(announced.at(-1)?.state.cart, { number: '' });

    const read = await through(new Request(`${BASE}/api/v2/storefront/cart`, { headers: { 'X-Spree-Order-Token': 'sealed:cart' } }));
    assert.equal(read?.status, 200);
    assert.equal(calls[1]!.request.headers.get('X-Spree-Order-Token'), TOKEN);
  });

  it('with offline writes on, a write to that cart is not queued: it fails as it would without the queue', async () => {
    const writes = memoryWrites();
    const { through, announced } = routedWorker({ offlineWrites: true }, { cart: { token: TOKEN, number: '' }, session: null, backoff: null }, {}, Date.now, {
      writes,
      online: () => false,
      requestSync: () => {},
    });
    const write = new Request(`${BASE}/api/v2/storefront/cart/add_item`, { method: 'POST', headers: { 'Content-Type': 'application/vnd.api+json' }, body: '{"variant_id":"2","quantity":1}' });
    const answer = await through(write);
    assert.notEqual(answer?.status, 202, 'not queued');
    assert.deepEqual(await writes.list(), []);
    assert.deepEqual(announced.filter((announcement) => announcement.type === 'writequeued'), []);
  });
});
