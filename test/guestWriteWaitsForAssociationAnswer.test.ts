// A guest's queued v2 write replayed while a login lands waits for the cart association itself, not
// only for its start: v2 cart calls signed in carry the bearer alone, which names the user's cart, and
// the guest cart is the user's only once the server has answered the association (docs/behaviour.md,
// "Offline cart writes": a guest's write whose cart the shopper took along into a sign-in is replayed
// with the bearer). A regression of 2af2549, which let the wait end once the assignment started.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { memoryWrites, type WriteStorage } from '../src/sw/writeStore.js';
import { deferred } from './fakes.js';
import { BASE, routedWorker } from './workerHarness.js';

const CART = { token: 'q/W+e"r\\T9yU', number: 'R415' };
const GUEST: Credentials = { cart: CART, session: null, backoff: null };
const ADD = 'POST /api/v2/storefront/cart/add_item';
const CART_DOC = { data: { id: '9', type: 'cart', attributes: { number: CART.number, token: CART.token } } };

describe('a guest write replayed while a login lands, the association slow to answer', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => void ((globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined));
  after(() => void ((globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = channel));

  it('sends the guest write with the new bearer only once the association has been answered', async () => {
    const order: string[] = [];
    const network = { online: false };
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
    const probe = deferred<void>();
    const worker = routedWorker({ offlineWrites: true }, GUEST, {
      'HEAD /': async () => (await probe.promise, new Response(null)),
      'POST /store_oauth/token': () => Response.json({ access_token: 'Bq4/ac"c+e\\ss', refresh_token: 'Zr8/r+e"f\\resh', token_type: 'Bearer', expires_in: 3600 }),
      // The server takes 150 ms to assign the cart.
      'PATCH /api/v2/storefront/cart/associate': async () => {
        order.push('associate sent');
        await new Promise((resolve) => setTimeout(resolve, 150));
        order.push('associate answered');
        return Response.json(CART_DOC);
      },
      [ADD]: (call) => {
        order.push(`add_item ${call.request.headers.get('Authorization') ?? 'guest'}`);
        return Response.json(CART_DOC);
      },
    }, Date.now, { writes, online: () => network.online });
    const page = new Request(`${BASE}/api/v2/storefront/cart/add_item`, { method: 'POST', headers: { 'Content-Type': 'application/vnd.api+json' }, body: '{"variant_id":"5","quantity":2}' });
    assert.equal((await worker.through(page))?.status, 202);
    network.online = true;
    worker.worker.nudge(worker.keepAlive, true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    // The login's drop of ended writes reads the queue for a few ms while the replay waits for the probe.
    listGate.gate = new Promise<void>((resolve) => setTimeout(resolve, 30));
    const login = worker.worker.actions.login('shopper@example.com', 'pa"ss/wo+rd', worker.keepAlive, AbortSignal.timeout(5_000));
    await listGate.hit.promise;
    // The login is in memory; the probe answers now, and the replay asks whether an assignment is under way.
    probe.resolve();
    await login;
    await worker.settled();
    assert.deepEqual(order, ['associate sent', 'associate answered', 'add_item Bearer Bq4/ac"c+e\\ss']);
  });
});
