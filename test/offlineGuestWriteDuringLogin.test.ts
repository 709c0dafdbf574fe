// a guest's queued v2 write replayed while a login lands must go as the guest's
// (before the login) or with the bearer only once its cart is the user's (after the association):
// v2 cart calls signed in carry the bearer alone, which names the user's cart, not the guest's.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { memoryWrites, type WriteStorage } from '../src/sw/writeStore.js';
import { deferred } from './fakes.js';
import { BASE, routedWorker } from './workerHarness.js';

const CART = { token: 'gU3st+/tok\\en"x', number: 'R733' };
const GUEST: Credentials = { cart: CART, session: null, backoff: null };
const ADD = 'POST /api/v2/storefront/cart/add_item';
const CART_DOC = { data: { id: '7', type: 'cart', attributes: { number: CART.number, token: CART.token } } };

describe('a guest write replayed while a login lands', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => void ((globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined));
  after(() => void ((globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = channel));

  it('never sends the guest write with the new bearer before the cart association', async () => {
    const order: string[] = [];
    const network = { online: false };
    // Storage of the queue: the read a login's drop makes is a few ms slower than the probe's answer.
    const inner = memoryWrites();
    const listGate = { gate: null as null | Promise<void>, hit: deferred<void>() };
    const writes: WriteStorage = {
      ...inner,
      list: async () => {
        const gate = listGate.gate;
        if (gate !== null) {
          listGate.hit.resolve();
          await gate;
        }
        return inner.list();
      },
      count: () => inner.count(),
      add: (w, m) => inner.add(w, m),
      replace: (w) => inner.replace(w),
      remove: (w, u) => inner.remove(w, u),
    };
    const release = deferred<void>();
    const probe = deferred<void>();
    const worker = routedWorker({ offlineWrites: true }, GUEST, {
      'HEAD /': async () => (await probe.promise, new Response(null)),
      'POST /store_oauth/token': () => Response.json({ access_token: 'Ax9/acc+ess', refresh_token: 'Rf"2/re\\fresh', token_type: 'Bearer', expires_in: 3600 }),
      'PATCH /api/v2/storefront/cart/associate': () => (order.push('associate'), Response.json(CART_DOC)),
      [ADD]: (call) => {
        order.push(`add_item ${call.request.headers.get('Authorization') ?? 'guest'}`);
        release.resolve();
        return Response.json(CART_DOC);
      },
    }, Date.now, { writes, online: () => network.online });
    const page = new Request(`${BASE}/api/v2/storefront/cart/add_item`, { method: 'POST', headers: { 'Content-Type': 'application/vnd.api+json' }, body: '{"variant_id":"2","quantity":1}' });
    assert.equal((await worker.through(page))?.status, 202);
    network.online = true;
    // The page reports the network's return; the replay waits for the probe (v2 add_item).
    worker.worker.nudge(worker.keepAlive, true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    // The shopper signs in meanwhile; the login's drop reads the queue (a few ms of IndexedDB).
    listGate.gate = Promise.race([release.promise, new Promise<void>((resolve) => setTimeout(resolve, 300))]);
    const login = worker.worker.actions.login('demo@example.com', 'spree123', worker.keepAlive, AbortSignal.timeout(5_000));
    await listGate.hit.promise;
    // The login has landed in memory; the probe answers now.
    probe.resolve();
    await login;
    await worker.settled();
    assert.deepEqual(order, ['associate', 'add_item Bearer Ax9/acc+ess']);
  });
});
