// a sign-in that continues another (a page's own refresh, captured) must not end the
// wait of a guest's queued write for the cart assignment the login before it started.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { memoryWrites } from '../src/sw/writeStore.js';
import { deferred, storeApiJwt } from './fakes.js';
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

// A v2 bearer names the user's own cart (STOREFRONT-FACTS.md: "with both, the bearer's user decides"),
// not the guest cart a login took along until the server has assigned it: a page's cart call made
// meanwhile would read, or change, the user's other cart. A v3 call carries the cart's token with the
// bearer, and an account call names no cart: those go at once.
describe('a page\'s call while the cart a login took along is being assigned', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => void ((globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined));
  after(() => void ((globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = channel));

  /** A guest holding CART logs in; its assignment waits for `release`. What the server saw, in order. */
  async function duringAssignment(page: string, release: (sent: Promise<Response | null>) => Promise<void>) {
    const order: string[] = [];
    const association = deferred<void>();
    const associating = deferred<void>();
    const OTHER_DOC = { data: { id: '4', type: 'cart', attributes: { number: 'R404', token: 'oT/h+er"\\k' } } };
    const assigned = { done: false };
    const worker = routedWorker({}, GUEST, {
      'POST /store_oauth/token': () => Response.json({ access_token: 'aS/s+ig"n\\1', refresh_token: 'rS\\s+ig/n"1', token_type: 'Bearer', expires_in: 3600 }),
      'PATCH /api/v2/storefront/cart/associate': async () => {
        associating.resolve();
        await association.promise;
        order.push('associate');
        assigned.done = true;
        return Response.json(CART_DOC);
      },
      // Signed in, the server answers with the bearer's user's cart: the guest's once it is assigned, the user's other one before.
      'GET /api/v2/storefront/cart': (call) => (order.push(`cart ${call.request.headers.get('Authorization') ?? 'guest'}`), Response.json(assigned.done ? CART_DOC : OTHER_DOC)),
      'GET /api/v2/storefront/account': (call) => (order.push(`account ${call.request.headers.get('Authorization') ?? 'guest'}`), Response.json({ data: { id: '1', type: 'user', attributes: {} } })),
    });
    assert.equal((await worker.worker.actions.login('shopper@example.com', 'p/a+s"s\\', worker.keepAlive, AbortSignal.timeout(5_000))).state.cart?.number, CART.number);
    await associating.promise;
    const sent = worker.through(new Request(`${BASE}${page}`));
    await release(sent);
    association.resolve();
    const answer = await sent;
    await worker.settled();
    return { order, body: (await answer?.json()) as typeof CART_DOC };
  }

  it('a v2 cart call waits for the assignment, then goes with the bearer and reads the cart the login took along', async () => {
    const { order, body } = await duringAssignment('/api/v2/storefront/cart', () => new Promise((resolve) => setTimeout(resolve, 100)));
    assert.deepEqual(order, ['associate', 'cart Bearer aS/s+ig"n\\1']);
    assert.equal(body.data.attributes.number, CART.number);
  });

  it('a spree-v3 cart call, which carries the cart\'s token, does not wait for it', async () => {
    const order: string[] = [];
    const association = deferred<void>();
    const associating = deferred<void>();
    const V3_CART = { ...CART, id: 'cart_9' };
    const worker = routedWorker({ preset: 'spree-v3', publishableKey: 'pk_w8' }, { cart: V3_CART, session: null, backoff: null }, {
      'POST /api/v3/store/auth/login': () => Response.json({ token: storeApiJwt(Math.floor(Date.now() / 1000) + 3600), refresh_token: 'v3R/e+f"\\1', user: { id: 'c1' } }),
      'PATCH /api/v3/store/carts/cart_9/associate': async () => (associating.resolve(), await association.promise, order.push('associate'), Response.json({ id: 'cart_9', number: CART.number, token: CART.token })),
      'GET /api/v3/store/carts/cart_9': (call) => (order.push(`cart ${call.request.headers.get('X-Spree-Token') === CART.token ? 'with its token' : 'without'}`), Response.json({ id: 'cart_9', number: CART.number })),
    });
    await worker.worker.actions.login('shopper@example.com', 'p/a+s"s\\', worker.keepAlive, AbortSignal.timeout(5_000));
    await associating.promise;
    assert.equal((await worker.through(new Request(`${BASE}/api/v3/store/carts/cart_9`)))?.status, 200);
    association.resolve();
    await worker.settled();
    assert.deepEqual(order, ['cart with its token', 'associate']);
  });

  it('an account call does not wait for it', async () => {
    const { order } = await duringAssignment('/api/v2/storefront/account', async (sent) => void (await sent));
    assert.deepEqual(order, ['account Bearer aS/s+ig"n\\1', 'associate']);
  });
});
