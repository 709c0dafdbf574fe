// A login while another worker sends a queued write of the cart held before (src/sw/offlineWrites.ts,
// `dropEnded`; src/sw/writeReplayer.ts, `drop`): the login's drop waits for the replay's lock to drop
// that write once its sender lets go, and sends nothing. A guest's write whose cart the login took
// along goes with the new bearer only once the cart's association has ended: with both the bearer
// and the cart's token, the bearer's user decides (docs/servers.md, "Spree's storefront
// endpoints"), and it would land on the user's own cart.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { memoryWrites } from '../src/sw/writeStore.js';
import { installFakeLocks, removeFakeLocks, type FakeLocks } from './fakes.js';
import { BASE, routedWorker } from './workerHarness.js';

const CART = { token: 'order-token', number: 'R100' };
const GUEST: Credentials = { cart: CART, session: null, backoff: null };
const ADD = 'POST /api/v2/storefront/cart/add_item';
const CART_DOC = { data: { id: '1', type: 'cart', attributes: { number: 'R100', token: CART.token } } };

describe('a login while another worker sends an older cart’s queued write', () => {
  const channel = globalThis.BroadcastChannel;
  let locks: FakeLocks;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
    locks = installFakeLocks();
  });
  after(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = channel;
    removeFakeLocks();
  });

  it('sends the guest’s write with the new bearer only after the cart’s association, a pass waiting here', () => loginWhileOlderSent(locks, true));

  it('sends the guest’s write with the new bearer only after the cart’s association, no pass here', () => loginWhileOlderSent(locks, false));
});

/**
 * The login, while the other worker holds the replay lock for the older write. `passHere`: this worker
 * started online, and its pass waits for that lock too; otherwise it started offline, and none runs.
 */
async function loginWhileOlderSent(locks: FakeLocks, passHere: boolean): Promise<void> {
  const order: string[] = [];
  const writes = memoryWrites();
  // A guest write on the cart held before this one, which another worker is sending (marked, replay lock held).
  const older = (await writes.add({ id: 'older', baseUrl: BASE, method: 'PATCH', url: `${BASE}/api/v2/storefront/cart/set_quantity`, headers: [['content-type', 'application/vnd.api+json']], body: null, credentials: 'same-origin', key: null, cart: 'R050', signInId: null, createdAt: Date.now(), attempts: 0, notBefore: 0 }, 50))!.write;
  await writes.replace({ ...older, sending: true });
  const other = locks.holdElsewhere(`storefront-auth:replay:${BASE}`);
  await other.taken;
  const network = { online: passHere };
  const { through, worker, calls, keepAlive, settled } = routedWorker({ offlineWrites: true }, GUEST, {
    'POST /store_oauth/token': () => {
      // The other worker's answer comes a moment after the login's grant: its write kept for another attempt (unmarked), the lock let go.
      setTimeout(() => void writes.replace({ ...older }).then(() => other.release()), 30);
      return Response.json({ access_token: 'a2/access', refresh_token: 'r2/refresh', token_type: 'Bearer', expires_in: 3600 });
    },
    'PATCH /api/v2/storefront/cart/associate': async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      order.push('associate');
      return Response.json(CART_DOC);
    },
    [ADD]: () => (order.push('add_item'), Response.json(CART_DOC)),
  }, Date.now, { writes, online: () => network.online });
  network.online = false;
  assert.equal((await through(new Request(`${BASE}/api/v2/storefront/cart/add_item`, { method: 'POST', headers: { 'Content-Type': 'application/vnd.api+json' }, body: '{"variant_id":"2","quantity":1}' })))?.status, 202);
  network.online = true;
  await worker.actions.login('demo@example.com', 'spree123', keepAlive, AbortSignal.timeout(5_000));
  worker.nudge(keepAlive, true);
  await settled();
  const sent = calls.find((call) => call.route === ADD);
  assert.equal(sent?.request.headers.get('Authorization'), 'Bearer a2/access');
  assert.deepEqual(order, ['associate', 'add_item'], 'the guest cart is the user’s before its write goes with the bearer');
  assert.ok(!calls.some((call) => call.request.url.endsWith('/set_quantity')), 'the older cart’s write is dropped, unsent');
  assert.deepEqual(await writes.list(), []);
}
