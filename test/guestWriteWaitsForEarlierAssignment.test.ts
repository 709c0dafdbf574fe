// a sign-in that continues another (a page's own refresh, captured) must not end the
// wait of a guest's queued write for the cart assignment the login before it started.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { memoryWrites } from '../src/sw/writeStore.js';
import { deferred } from './fakes.js';
import { BASE, routedWorker } from './workerHarness.js';

const CART = { token: 'gU3st+/tok\\en"y', number: 'R912' };
const GUEST: Credentials = { cart: CART, session: null, backoff: null };
const CART_DOC = { data: { id: '9', type: 'cart', attributes: { number: CART.number, token: CART.token } } };

describe('a continued sign-in while a guest cart is being assigned', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => void ((globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined));
  after(() => void ((globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = channel));

  it('a guest write replayed after a page refresh still waits for the association', async () => {
    const order: string[] = [];
    const network = { online: false };
    const association = deferred<void>();
    const associating = deferred<void>();
    const worker = routedWorker({ offlineWrites: true, sealTokens: false }, GUEST, {
      'POST /store_oauth/token': async (call) => {
        const body = await call.body;
        if (body.includes('grant_type=password')) return Response.json({ access_token: 'Lg1/acc+ess"', refresh_token: 'Lr1/re\\fresh+', token_type: 'Bearer', expires_in: 3600 });
        return Response.json({ access_token: 'Pg2/acc+ess\\', refresh_token: 'Pr2/re"fresh/', token_type: 'Bearer', expires_in: 3600 });
      },
      'PATCH /api/v2/storefront/cart/associate': async () => {
        associating.resolve();
        await association.promise;
        order.push('associate');
        return Response.json(CART_DOC);
      },
      'PATCH /api/v2/storefront/cart/set_quantity': (call) => {
        order.push(`set_quantity ${call.request.headers.get('Authorization') ?? 'guest'}`);
        return Response.json(CART_DOC);
      },
    }, Date.now, { writes: memoryWrites(), online: () => network.online });
    // Offline: a guest's write is queued.
    const page = new Request(`${BASE}/api/v2/storefront/cart/set_quantity`, { method: 'PATCH', headers: { 'Content-Type': 'application/vnd.api+json' }, body: '{"line_item_id":"3","quantity":2}' });
    const queued = await worker.through(page);
    assert.equal(queued?.status, 202);
    // The shopper signs in; the assignment of the guest cart is on its way (a slow server).
    await worker.worker.actions.login('shopper@example.com', 'pa$$', worker.keepAlive, AbortSignal.timeout(5_000));
    await associating.promise;
    // The (unsealed) page refreshes the pair itself: the worker keeps it, continuing the sign-in.
    const refresh = new Request(`${BASE}/store_oauth/token`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'grant_type=refresh_token&refresh_token=' + encodeURIComponent('Lr1/re\\fresh+') });
    assert.equal((await worker.through(refresh))?.status, 200);
    // The network returns: the guest write replays.
    network.online = true;
    worker.worker.writes!.nudge(worker.keepAlive, true);
    await new Promise((resolve) => setTimeout(resolve, 100));
    association.resolve();
    await worker.settled();
    assert.deepEqual(order, ['associate', 'set_quantity Bearer Pg2/acc+ess\\']);
  });
});
