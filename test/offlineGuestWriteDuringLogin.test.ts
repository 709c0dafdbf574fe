// A guest's queued v2 write replayed while a login lands must go as the guest's (before the login) or
// with the bearer only once its cart is the user's: v2 cart calls signed in carry the bearer alone,
// which names the user's cart, not the guest's, and the guest cart is the user's only once the server
// has answered the association (docs/behaviour.md, "Offline cart writes": a guest's write whose cart
// the shopper took along into a sign-in is replayed with the bearer). The second case, the
// association slow to answer, was a regression of 2af2549, which let the wait end once it started.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { memoryWrites, type WriteStorage } from '../src/sw/writeStore.js';
import { deferred, stallingStorage } from './fakes.js';
import { BASE, routedWorker } from './workerHarness.js';

const CART = { token: 'gU3st+/tok\\en"x', number: 'R733' };
const GUEST: Credentials = { cart: CART, session: null, backoff: null };
const ADD = 'POST /api/v2/storefront/cart/add_item';
const ACCESS = 'Ax9/ac"c+e\\ss';
const CART_DOC = { data: { id: '7', type: 'cart', attributes: { number: CART.number, token: CART.token } } };

/**
 * A guest's add_item queued offline, replayed once the network returns while the shopper signs in:
 * the order in which the server saw the association (`associate`, as it answers) and the write.
 * `listGate`: how long the login's drop of ended writes reads the queue (a few ms of IndexedDB).
 */
async function replayDuringLogin(associate: (order: string[]) => Response | Promise<Response>, listGate: (sent: Promise<void>) => Promise<void>): Promise<string[]> {
  const order: string[] = [];
  const network = { online: false };
  const inner = memoryWrites();
  const gated = { gate: null as null | Promise<void>, hit: deferred<void>() };
  const writes: WriteStorage = {
    ...inner,
    list: async () => {
      const gate = gated.gate;
      if (gate !== null) {
        gated.hit.resolve();
        await gate;
      }
      return inner.list();
    },
    count: () => inner.count(),
    add: (w, m) => inner.add(w, m),
    replace: (w) => inner.replace(w),
    remove: (w, u) => inner.remove(w, u),
  };
  const sent = deferred<void>();
  const probe = deferred<void>();
  const worker = routedWorker({ offlineWrites: true }, GUEST, {
    'HEAD /': async () => (await probe.promise, new Response(null)),
    'POST /store_oauth/token': () => Response.json({ access_token: ACCESS, refresh_token: 'Rf"2/re\\fresh', token_type: 'Bearer', expires_in: 3600 }),
    'PATCH /api/v2/storefront/cart/associate': () => associate(order),
    [ADD]: (call) => {
      order.push(`add_item ${call.request.headers.get('Authorization') ?? 'guest'}`);
      sent.resolve();
      return Response.json(CART_DOC);
    },
  }, Date.now, { writes, online: () => network.online });
  const page = new Request(`${BASE}/api/v2/storefront/cart/add_item`, { method: 'POST', headers: { 'Content-Type': 'application/vnd.api+json' }, body: '{"variant_id":"2","quantity":1}' });
  assert.equal((await worker.through(page))?.status, 202);
  network.online = true;
  // The page reports the network's return; the replay waits for the probe (v2 add_item).
  worker.worker.nudge(worker.keepAlive, true);
  await new Promise((resolve) => setTimeout(resolve, 20));
  // The shopper signs in meanwhile; the login's drop reads the queue.
  gated.gate = listGate(sent.promise);
  const login = worker.worker.actions.login('shopper@example.com', 'pa"ss/wo+rd', worker.keepAlive, AbortSignal.timeout(5_000));
  await gated.hit.promise;
  // The login has landed in memory; the probe answers now, and the replay asks whether an assignment is under way.
  probe.resolve();
  await login;
  await worker.settled();
  return order;
}

describe('a guest write replayed while a login lands', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => void ((globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined));
  after(() => void ((globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = channel));

  it('never sends the guest write with the new bearer before the cart association', async () => {
    // The queue's read lasts until the write is sent (or 300 ms): a replay that does not wait goes first.
    const order = await replayDuringLogin(
      (seen) => (seen.push('associate'), Response.json(CART_DOC)),
      (sent) => Promise.race([sent, new Promise<void>((resolve) => setTimeout(resolve, 300))]),
    );
    assert.deepEqual(order, ['associate', `add_item Bearer ${ACCESS}`]);
  });

  it('sends the guest write with the new bearer only once the association has been answered, however slow', async () => {
    // The server takes 150 ms to assign the cart.
    const order = await replayDuringLogin(async (seen) => {
      seen.push('associate sent');
      await new Promise((resolve) => setTimeout(resolve, 150));
      seen.push('associate answered');
      return Response.json(CART_DOC);
    }, () => new Promise<void>((resolve) => setTimeout(resolve, 30)));
    assert.deepEqual(order, ['associate sent', 'associate answered', `add_item Bearer ${ACCESS}`]);
  });
});

// The same worker's guest write after its own login's assignment, with IndexedDB stuck once the
// sign-in is stored (an upgrade blocked by another connection, a stuck disk: docs/behaviour.md,
// "Bounds on every wait"): the worker knows its own assignment was answered, and its write need not
// wait for the stored mark's time (up to 10 s), only for storage's bounded waits. Also with the
// sign-in's own write outlasting its 2 s wait and landing half a second later: the assignment starts
// once the write has landed, with the mark storage holds.
const STALLED_CART = { token: 'sT+al/le"d\\k', number: 'R4410' };
const STALLED_GUEST: Credentials = { cart: STALLED_CART, session: null, backoff: null };
const STALLED_ACCESS = 'St/al+"led\\acc';
const STALLED_DOC = { data: { id: '5', type: 'cart', attributes: { number: STALLED_CART.number, token: STALLED_CART.token } } };

describe('a guest write after this worker\'s own assignment, storage stuck', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => void ((globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined));
  after(() => void ((globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = channel));

  for (const slowSignIn of [false, true]) {
    it(`goes once the assignment is answered, not when the stored mark runs out${slowSignIn ? ', the sign-in\'s write slow' : ''}`, { timeout: 30_000 }, async () => {
      const network = { online: false };
      const stalling = stallingStorage(STALLED_GUEST);
      const started = deferred<void>();
      const answer = deferred<void>();
      let answeredAt = 0;
      let sentAt = 0;
      const worker = routedWorker({ offlineWrites: true }, STALLED_GUEST, {
        'HEAD /': () => new Response(null),
        'POST /store_oauth/token': () => Response.json({ access_token: STALLED_ACCESS, refresh_token: 'sR/e+f"\\r', token_type: 'Bearer', expires_in: 3600 }),
        'PATCH /api/v2/storefront/cart/associate': async () => {
          started.resolve();
          await answer.promise;
          answeredAt = performance.now();
          return Response.json(STALLED_DOC);
        },
        'PATCH /api/v2/storefront/cart/set_quantity': (call) => {
          assert.equal(call.request.headers.get('Authorization'), `Bearer ${STALLED_ACCESS}`);
          sentAt = performance.now();
          return Response.json(STALLED_DOC);
        },
      }, Date.now, { writes: memoryWrites(), online: () => network.online, storage: stalling.storage });
      const page = new Request(`${BASE}/api/v2/storefront/cart/set_quantity`, { method: 'PATCH', headers: { 'Content-Type': 'application/vnd.api+json' }, body: '{"line_item_id":"6","quantity":4}' });
      assert.equal((await worker.through(page))?.status, 202);
      network.online = true;
      // A slow sign-in write: the login answers from memory after 2 s; the write lands half a second later.
      if (slowSignIn) stalling.stall();
      await worker.worker.actions.login('shopper@example.com', 'pw"/+\\', worker.keepAlive, AbortSignal.timeout(9_000));
      if (slowSignIn) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        stalling.resume();
      }
      await started.promise;
      await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal((await stalling.stored.read()).session?.accessToken, STALLED_ACCESS, 'the sign-in landed');
      // Storage gets stuck; the assignment is answered; a page reports the network's return.
      stalling.stall();
      answer.resolve();
      worker.worker.nudge(worker.keepAlive, true);
      while (sentAt === 0 && performance.now() - answeredAt < 15_000) await new Promise((resolve) => setTimeout(resolve, 50));
      stalling.resume();
      assert.ok(sentAt !== 0, 'sent');
      // The storage waits of the end of the mark may be spent (2 s), no more.
      assert.ok(sentAt - answeredAt < 3_000, `sent ${Math.round(sentAt - answeredAt)} ms after the assignment was answered`);
    });
  }

  // A late keepCart (a guest's createCart landing after a login, its write outlasting its wait) takes
  // the cart into the sign-in and marks the assignment: its mark took one time for the memory copy and
  // for storage, so this worker knows the mark storage holds as ended.
  it('after a late keepCart, associated() does not wait out the mark storage took once the assignment is answered', { timeout: 30_000 }, async () => {
    const NOTHING: Credentials = { cart: null, session: null, backoff: null };
    const stalling = stallingStorage(NOTHING);
    const cartAnswer = deferred<void>();
    const association = deferred<void>();
    const associating = deferred<void>();
    const a = routedWorker({ preset: 'spree' }, NOTHING, {
      'POST /api/v2/storefront/cart': async () => (await cartAnswer.promise, Response.json(STALLED_DOC, { status: 201 })),
      'POST /spree_oauth/token': () => Response.json({ access_token: 'kA+cc/es"s\\1', refresh_token: 'kR/ef+re\\sh"2', token_type: 'Bearer', expires_in: 7200, created_at: Math.floor(Date.now() / 1000) }),
      'PATCH /api/v2/storefront/cart/associate': async () => (associating.resolve(), await association.promise, Response.json(STALLED_DOC)),
    }, Date.now, { storage: stalling.storage });
    assert.equal((await a.worker.actions.getState()).state.signedIn, false);
    const creating = a.worker.actions.createCart(AbortSignal.timeout(9_000), a.keepAlive);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal((await a.worker.actions.login('k@example.com', 'p/w+"k\\', a.keepAlive, AbortSignal.timeout(8_000))).state.signedIn, true);
    // Storage stalls; the cart lands: keepCart's write outlasts its wait, and the memory copy gets the mark.
    stalling.stall();
    cartAnswer.resolve();
    assert.equal((await creating).state.cart?.number, STALLED_CART.number);
    await associating.promise;
    // Storage takes the write 300 ms later, and the memory copy catches up.
    await new Promise((resolve) => setTimeout(resolve, 300));
    stalling.resume();
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok((await stalling.stored.read()).cartAssigningUntil !== undefined, 'storage holds the mark');
    // Storage sticks again; the assignment is answered: its end cannot reach storage.
    stalling.stall();
    association.resolve();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    await a.worker.actions.associated();
    const waited = Date.now() - started;
    stalling.resume();
    await a.settled();
    assert.ok(waited < 4_000, `associated() waited ${waited} ms for an assignment this worker had ended`);
  });
});
