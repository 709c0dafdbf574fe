// A page's own login (unsealed) whose storage write outlasts its wait before storage was ever read,
// followed by the page's own refresh continuing that sign-in, whose write is still in flight when the
// login's lands; and the same over a guest cart another worker replaced. docs/behaviour.md, `login()`: a guest "cart held at that moment is kept and assigned to
// the shopper"; the assignment mark (cartAssigningUntil) must end with the assignment.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startActionBudget } from '../src/sw/actionBudget.js';
import { memoryStorage, NO_CREDENTIALS, type CredentialStorage, type Credentials } from '../src/sw/credentialStorage.js';
import { StorageBudget } from '../src/sw/storageBudget.js';
import { memoryWrites } from '../src/sw/writeStore.js';
import { deferred, oneByOneStorage, steppedFifo } from './fakes.js';
import { BASE, routedWorker, type Call } from './workerHarness.js';

const CART = { token: 'gU/e+st"ca\\rt7', number: 'R417' };
const GUEST: Credentials = { cart: CART, session: null, backoff: null };
const GRANT = 'POST /spree_oauth/token';
const ASSOCIATE = 'PATCH /api/v2/storefront/cart/associate';

/** Storage whose reads and writes each wait until the test settles them, in the order they were made. */
function queuedStorage(initial: Credentials) {
  let value = initial;
  const pending: (() => void)[] = [];
  const storage: CredentialStorage = {
    read: () => new Promise((resolve) => pending.push(() => resolve(value))),
    update: (change) => new Promise((resolve) => pending.push(() => resolve((value = change(value))))),
  };
  return { storage, pending: () => pending.length, settleNext: () => pending.shift()?.(), stored: () => value };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// No BroadcastChannel: a worker hears of another's change only through storage.
const channel = globalThis.BroadcastChannel;
before(() => void ((globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined));
after(() => void ((globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = channel));

describe('a late login write landing while the page refresh continuing it is still being written', () => {
  it('still assigns the guest cart and ends the assignment mark', { timeout: 20_000 }, async () => {
    const slow = queuedStorage(GUEST);
    const pairs = [
      { access_token: 'a1/Be+ar"er\\x', refresh_token: 'r1+Re/fr"esh\\' },
      { access_token: 'a2+Be/ar\\er"y', refresh_token: 'r2/Re"fr+esh\\' },
    ];
    let granted = 0;
    const { calls, through, settled } = routedWorker(
      { preset: 'spree', sealTokens: false },
      GUEST,
      { [GRANT]: () => Response.json({ ...pairs[granted++], token_type: 'Bearer', expires_in: 7200, created_at: Math.floor(Date.now() / 1000) }), [ASSOCIATE]: () => Response.json({}) },
      Date.now,
      { storage: slow.storage },
    );
    const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
    // The page's own password grant: its write outlasts the wait, nothing read yet.
    const login = await through(new Request(`${BASE}/spree_oauth/token`, { method: 'POST', headers: form, body: 'grant_type=password&username=shopper%40example.com&password=p%2Fw%22' }));
    assert.equal(login?.status, 200);
    // The page's own refresh with the real refresh token it was given: continues the sign-in.
    const refresh = await through(new Request(`${BASE}/spree_oauth/token`, { method: 'POST', headers: form, body: `grant_type=refresh_token&refresh_token=${encodeURIComponent(pairs[0]!.refresh_token)}` }));
    assert.equal(refresh?.status, 200);
    // Storage answers in order: the read, the login's write (the refresh's still in flight), then the refresh's.
    while (slow.pending() > 0) {
      slow.settleNext();
      await pause(20);
    }
    await pause(50);
    await settled();
    await pause(50);
    const stored = slow.stored();
    assert.equal(stored.session?.accessToken, pairs[1]!.access_token, 'the refresh continued the sign-in');
    assert.deepEqual(stored.cart, CART, 'the guest cart is still held');
    assert.ok(calls.some((call) => call.route === ASSOCIATE), `the guest cart held at login is assigned to the user; sent: ${JSON.stringify(calls.map((c) => c.route))}`);
    assert.equal(stored.cartAssigningUntil, undefined, 'the assignment mark ended with the assignment');
  });

  // Another worker replaced the guest cart, not heard yet (no BroadcastChannel); storage answers one
  // write per task, as IndexedDB does.
  const FIRST_CART = { token: 'k1/Ca+rt"to\\k', number: 'R100' };
  const SECOND_CART = { token: 'k2+Ca/rt\\to"k', number: 'R200' };
  const FIRST_GUEST: Credentials = { cart: FIRST_CART, session: null, backoff: null };

  it('over a guest cart another worker replaced, its memory copy behind, assigns the guest cart storage held, which the sign-in took along', { timeout: 20_000 }, async () => {
    const shared = oneByOneStorage({ cart: FIRST_CART, session: null, backoff: null });
    const pairs = [
      { access_token: 'b1\\Be+ar"er/x', refresh_token: 'b1"Re/fr+esh\\' },
      { access_token: 'b2/Be"ar\\er+y', refresh_token: 'b2+Re\\fr"esh/' },
    ];
    let granted = 0;
    const routes = {
      [GRANT]: () => Response.json({ ...pairs[granted++], token_type: 'Bearer', expires_in: 7200, created_at: Math.floor(Date.now() / 1000) }),
      [ASSOCIATE]: () => Response.json({}),
      'POST /api/v2/storefront/cart': () => Response.json({ data: { id: '9', type: 'cart', attributes: { number: SECOND_CART.number, token: SECOND_CART.token } } }, { status: 201 }),
    };
    const a = routedWorker({ preset: 'spree', sealTokens: false }, FIRST_GUEST, routes, Date.now, { storage: shared.storage });
    const b = routedWorker({ preset: 'spree', sealTokens: false }, FIRST_GUEST, routes, Date.now, { storage: shared.storage });
    for (const { worker } of [a, b]) assert.equal((await worker.actions.getState()).state.cart?.number, FIRST_CART.number);
    // Another tab's worker makes a new guest cart: stored.
    await b.worker.actions.createCart(AbortSignal.timeout(8_000), b.keepAlive);
    await b.settled();
    assert.equal((await shared.stored.read()).cart?.number, SECOND_CART.number);
    // Storage turns slow; A's page signs in with its own password grant, then refreshes with the real refresh token.
    shared.stall();
    const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
    const login = await a.through(new Request(`${BASE}/spree_oauth/token`, { method: 'POST', headers: form, body: 'grant_type=password&username=shopper%40example.com&password=p%2Fw%22' }));
    assert.equal(login?.status, 200);
    const refresh = await a.through(new Request(`${BASE}/spree_oauth/token`, { method: 'POST', headers: form, body: `grant_type=refresh_token&refresh_token=${encodeURIComponent(pairs[0]!.refresh_token)}` }));
    assert.equal(refresh?.status, 200);
    await shared.resume();
    await a.settled();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await a.settled();
    const stored = await shared.stored.read();
    assert.equal(stored.session?.accessToken, pairs[1]!.access_token, 'the refresh continued the sign-in');
    assert.equal(stored.cart?.number, SECOND_CART.number, 'the sign-in took the stored guest cart along');
    assert.equal(stored.cartTakenBy, stored.signInId);
    const association = a.calls.find((call) => call.route === ASSOCIATE);
    assert.ok(association !== undefined, `the guest cart the sign-in took along is assigned; sent: ${JSON.stringify(a.calls.map((c) => c.route))}`);
    assert.equal(new URL(association.request.url).searchParams.get('guest_order_token'), SECOND_CART.token);
    assert.equal(stored.cartAssigningUntil, undefined, 'the assignment mark ended with the assignment');
  });
});

// a page's own login late over a guest cart another worker replaced
// (not heard: no BroadcastChannel), then a late refresh continuing it. A guest's write queued offline
// on the stored guest cart is the sign-in's to keep: the cart was taken along (docs/behaviour.md,
// "Offline cart writes": a guest's write whose cart the shopper took along into a sign-in is
// replayed with the bearer). Before e866a14 the landing judged `dropEnded` by the refresh's stand-in
// (the first cart) and dropped it.
describe('a late login over a guest cart another worker replaced, then a late refresh continuing it, with a guest write queued on the stored cart', () => {
  const FIRST_CART = { token: 'q1/Ca"rt+to\\k', number: 'R310' };
  const SECOND_CART = { token: 'q2\\Ca+rt/to"k', number: 'R320' };
  const GUEST: Credentials = { cart: FIRST_CART, session: null, backoff: null };

  it('keeps the guest write on the cart the sign-in took along', { timeout: 20_000 }, async () => {
    const shared = oneByOneStorage(GUEST);
    const queue = memoryWrites();
    const pairs = [
      { access_token: 'g1+Be/ar"er\\x', refresh_token: 'g1\\Re"fr/esh+' },
      { access_token: 'g2"Be\\ar+er/y', refresh_token: 'g2/Re+fr\\esh"' },
    ];
    let granted = 0;
    const routes = {
      'POST /spree_oauth/token': () => Response.json({ ...pairs[granted++], token_type: 'Bearer', expires_in: 7200, created_at: Math.floor(Date.now() / 1000) }),
      'PATCH /api/v2/storefront/cart/associate': () => Response.json({}),
      'POST /api/v2/storefront/cart': () => Response.json({ data: { id: '9', type: 'cart', attributes: { number: SECOND_CART.number, token: SECOND_CART.token } } }, { status: 201 }),
    };
    const env = { storage: shared.storage, writes: queue, online: () => false };
    const a = routedWorker({ preset: 'spree', sealTokens: false, offlineWrites: true }, GUEST, routes, Date.now, env);
    const b = routedWorker({ preset: 'spree', sealTokens: false, offlineWrites: true }, GUEST, routes, Date.now, env);
    // A's memory copy holds the first cart (its preload); A has not read its queue's count (offline since it started).
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal((await b.worker.actions.getState()).state.cart?.number, FIRST_CART.number);
    await b.worker.actions.createCart(AbortSignal.timeout(8_000), b.keepAlive);
    await b.settled();
    // B's page, offline, adds an item to the new guest cart: queued.
    const add = new Request(`${BASE}/api/v2/storefront/cart/add_item`, { method: 'POST', headers: { 'Content-Type': 'application/vnd.api+json' }, body: '{"variant_id":"5","quantity":2}' });
    assert.equal((await b.through(add))?.status, 202);
    assert.equal((await queue.list()).length, 1);
    assert.equal((await queue.list())[0]!.cart, SECOND_CART.number);
    shared.stall();
    const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
    assert.equal((await a.through(new Request(`${BASE}/spree_oauth/token`, { method: 'POST', headers: form, body: 'grant_type=password&username=g%40example.com&password=p%22w%2F' })))?.status, 200);
    assert.equal((await a.through(new Request(`${BASE}/spree_oauth/token`, { method: 'POST', headers: form, body: `grant_type=refresh_token&refresh_token=${encodeURIComponent(pairs[0]!.refresh_token)}` })))?.status, 200);
    await shared.resume();
    await a.settled();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await a.settled();
    const stored = await shared.stored.read();
    assert.equal(stored.cart?.number, SECOND_CART.number, 'the sign-in took the stored guest cart along');
    assert.equal(stored.cartTakenBy, stored.signInId);
    const dropped = a.announced.filter((announcement) => announcement.type === 'writesettled');
    assert.deepEqual(dropped, [], 'no queued write told settled');
    assert.equal((await queue.list()).length, 1, 'the guest write on the cart the sign-in took along is kept');
  });
});

// a late login's landing reads storage behind a later write in flight
// (HeldCredentials.stored, e866a14), and that read lands in the memory copy (`#read`) while a late
// write's catch-up is still waiting for a write after it (`#behind`). The catch-up then compares
// storage with storage, and the pages, told the stand-in's cart, are never told the cart storage
// holds. docs/behaviour.md, "Bounds on every wait": "Once such writes have all landed, the memory copy
// takes what storage holds, and a `change` event says so where the pages were told otherwise".
describe('a late login over a guest cart another worker replaced, then a late refresh, then its bearer confirmed', () => {
  const FIRST_CART = { token: 'x1/Ca"rt+to\\k', number: 'R510' };
  const SECOND_CART = { token: 'x2\\Ca+rt/to"k', number: 'R520' };
  const GUEST: Credentials = { cart: FIRST_CART, session: null, backoff: null };
  const tick = (ms = 15) => new Promise((resolve) => setTimeout(resolve, ms));


  async function until(check: () => boolean, what: string): Promise<void> {
    for (let i = 0; i < 600 && !check(); i++) await tick(10);
    assert.ok(check(), what);
  }

  it('tells the pages the cart storage holds once every write has landed', { timeout: 30_000 }, async () => {
    const shared = steppedFifo(GUEST);
    const LOGIN = { access_token: 'y1"Be\\ar/er+a', refresh_token: 'y1+Re/fr"esh\\b' };
    const ROTATED = { access_token: 'y2\\Be+ar"er/c', refresh_token: 'y2/Re\\fr+esh"d' };
    const replayAnswer = deferred<void>();
    let replays = 0;
    const routes = {
      'POST /spree_oauth/token': async (call: Call) => Response.json({ ...(new URLSearchParams(await call.body).get('grant_type') === 'password' ? LOGIN : ROTATED), token_type: 'Bearer', expires_in: 7200, created_at: Math.floor(Date.now() / 1000) }),
      'GET /api/v2/storefront/account': async (call: Call) => {
        if (call.request.headers.get('Authorization') !== `Bearer ${ROTATED.access_token}`) return new Response(null, { status: 401 });
        if (replays++ === 0) await replayAnswer.promise;
        return Response.json({ data: { id: '1', type: 'user', attributes: {} } });
      },
      'PATCH /api/v2/storefront/cart/associate': () => Response.json({}),
      'POST /api/v2/storefront/cart': () => Response.json({ data: { id: '9', type: 'cart', attributes: { number: SECOND_CART.number, token: SECOND_CART.token } } }, { status: 201 }),
      'POST /spree_oauth/revoke': () => Response.json({}),
    };
    const a = routedWorker({ preset: 'spree' }, GUEST, routes, Date.now, { storage: shared.storage });
    const b = routedWorker({ preset: 'spree' }, GUEST, routes, Date.now, { storage: shared.storage });
    for (const { worker } of [a, b]) assert.equal((await worker.actions.getState()).state.cart?.number, FIRST_CART.number);
    // Another tab's worker makes a new guest cart (A does not hear of it).
    await b.worker.actions.createCart(AbortSignal.timeout(8_000), b.keepAlive);
    await b.settled();
    shared.stall();
    // A's login outlasts its wait: the pages are told signed in, with the first cart.
    const login = await a.worker.actions.login('x@example.com', 'x/"p+\\', a.keepAlive, AbortSignal.timeout(9_000));
    assert.equal(login.state.cart?.number, FIRST_CART.number);
    // A page call is refused: the refresh re-reads (stalled), rotates, and its write outlasts its wait too.
    const page = a.through(new Request(`${BASE}/api/v2/storefront/account`));
    await until(() => replays === 1, 'the call is replayed with the rotated bearer');
    assert.deepEqual(shared.kinds(), ['update', 'read', 'update'], 'login, re-read, refresh');
    // The login's write and the re-read land; the login's landing reads storage behind the refresh's write.
    await shared.releaseOne();
    await shared.releaseOne();
    await until(() => shared.kinds().length === 2, 'the landing reads storage');
    assert.deepEqual(shared.kinds(), ['update', 'read']);
    // The replay is answered: the rotated bearer's acceptance is written, behind that read.
    replayAnswer.resolve();
    assert.equal((await page)?.status, 200);
    await until(() => shared.kinds().length === 3, 'the confirmation is written');
    await shared.resume();
    await a.settled();
    await tick(50);
    await a.settled();
    const stored = await shared.stored.read();
    assert.equal(stored.session?.accessToken, ROTATED.access_token);
    assert.equal(stored.cart?.number, SECOND_CART.number, 'storage holds the cart the sign-in took along');
    assert.equal((await a.worker.actions.getState()).state.cart?.number, SECOND_CART.number, 'worker A holds it');
    const changes = a.announced.filter((announcement) => announcement.type === 'change') as { state?: { cart: { number: string } | null } }[];
    assert.equal(changes.at(-1)?.state?.cart?.number, SECOND_CART.number, `the pages were last told ${JSON.stringify(changes.map((c) => c.state?.cart?.number))}`);
  });
});

// a bridge login whose storage write outlasts its wait (guest cart held),
// then this worker's refresh of the login's pair (a page call refused 401), whose write lands in time
// right behind the login's. The login's landing assigns the guest cart: with the pair live then (the
// rotated one), never with the login's pair the refresh spent. docs/behaviour.md, `login()`: a guest
// "cart held at that moment is kept and assigned to the shopper".
describe('a late login with a guest cart, then a refresh of its pair whose write lands in time behind it', () => {
  const CART = { token: 'w1/Ca"rt+to\\k', number: 'R410' };
  const GUEST: Credentials = { cart: CART, session: null, backoff: null };

  /**
   * Storage that answers reads and writes strictly in the order they were made, each in a task of its
   * own (as IndexedDB does for transactions over the same store); while stalled, nothing is answered.
   */
  function fifoStorage(initial: Credentials) {
    const stored = memoryStorage(initial);
    let gate: Promise<void> = Promise.resolve();
    let open = (): void => {};
    let chain: Promise<unknown> = Promise.resolve();
    let waiting = 0;
    const inOrder = <T>(op: () => Promise<T>): Promise<T> => {
      waiting++;
      const result = chain.then(() => gate).then(() => new Promise((resolve) => setTimeout(resolve, 5))).then(() => (waiting--, op()));
      chain = result.catch(() => {});
      return result;
    };
    const storage: CredentialStorage = { read: () => inOrder(() => stored.read()), update: (change) => inOrder(() => stored.update(change)) };
    return {
      stored,
      storage,
      waiting: () => waiting,
      stall: () => void (gate = new Promise<void>((resolve) => (open = resolve))),
      resume: () => open(),
    };
  }

  it('assigns the guest cart with the rotated pair, not the spent one', { timeout: 30_000 }, async () => {
    const shared = fifoStorage(GUEST);
    const LOGIN = { access_token: 'L1"Be\\ar/er+a', refresh_token: 'L1+Re/fr"esh\\b' };
    const ROTATED = { access_token: 'L2\\Be+ar"er/c', refresh_token: 'L2/Re\\fr+esh"d' };
    const refreshAnswer = deferred<void>();
    let refreshAsked!: () => void;
    const asked = new Promise<void>((resolve) => (refreshAsked = resolve));
    const associations: (string | null)[] = [];
    const routes = {
      'POST /spree_oauth/token': async (call: Call) => {
        const grant = new URLSearchParams(await call.body).get('grant_type');
        if (grant === 'password') return Response.json({ ...LOGIN, token_type: 'Bearer', expires_in: 7200, created_at: Math.floor(Date.now() / 1000) });
        refreshAsked();
        await refreshAnswer.promise;
        return Response.json({ ...ROTATED, token_type: 'Bearer', expires_in: 7200, created_at: Math.floor(Date.now() / 1000) });
      },
      'GET /api/v2/storefront/account': (call: Call) => (call.request.headers.get('Authorization') === `Bearer ${ROTATED.access_token}` ? Response.json({ data: { id: '1', type: 'user', attributes: {} } }) : new Response(null, { status: 401 })),
      'PATCH /api/v2/storefront/cart/associate': (call: Call) => {
        const bearer = call.request.headers.get('Authorization');
        associations.push(bearer);
        return bearer === `Bearer ${ROTATED.access_token}` ? Response.json({}) : new Response(null, { status: 401 });
      },
      'POST /spree_oauth/revoke': () => Response.json({}),
    };
    const a = routedWorker({ preset: 'spree' }, GUEST, routes, Date.now, { storage: shared.storage });
    assert.equal((await a.worker.actions.getState()).state.cart?.number, CART.number);
    shared.stall();
    const login = await a.worker.actions.login('w@example.com', 'w/"p+\\', a.keepAlive, AbortSignal.timeout(9_000));
    assert.equal(login.state.signedIn, true);
    const page = a.through(new Request(`${BASE}/api/v2/storefront/account`));
    await asked;
    refreshAnswer.resolve();
    // The refresh's write is queued behind the login's.
    for (let i = 0; i < 100 && shared.waiting() < 3; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    shared.resume();
    assert.equal((await page)?.status, 200);
    await a.settled();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await a.settled();
    assert.equal((await shared.stored.read()).session?.accessToken, ROTATED.access_token);
    assert.deepEqual(associations, [`Bearer ${ROTATED.access_token}`], 'assigned once, with the rotated pair');
    const warnings = a.announced.filter((announcement) => (announcement as { warning?: unknown }).warning !== undefined);
    assert.deepEqual(warnings, [], 'no failed assignment told');
  });
});

// A write that lands in time (a guest's cart) behind which a LATER write outlasted its shorter wait (a
// login whose grant took most of the action's 8 s): the memory copy keeps the login's stand-in over
// what landed until the login's own write lands, so the pages are never told signed out in between
// and page calls keep the bearer; the guest cart the login took along is assigned once, by the login.
describe('a guest cart write landing in time over a later login\'s stand-in', () => {
  it('keeps the login in memory until the login\'s own write lands', { timeout: 30_000 }, async () => {
    const shared = oneByOneStorage(NO_CREDENTIALS);
    const grantAnswer = deferred<void>();
    const bearers: (string | null)[] = [];
    const associations: (string | null)[] = [];
    const w = routedWorker({ preset: 'spree' }, NO_CREDENTIALS, {
      'POST /spree_oauth/token': async () => {
        await grantAnswer.promise;
        return Response.json({ access_token: 'lG/ac+c"ess\\5', refresh_token: 'lG+re/fr"esh\\5', token_type: 'Bearer', expires_in: 7200, created_at: Math.floor(Date.now() / 1000) });
      },
      'POST /api/v2/storefront/cart': () => Response.json({ data: { id: '9', type: 'cart', attributes: { number: 'R909', token: 'gC+a/r"t\\9' } } }, { status: 201 }),
      'PATCH /api/v2/storefront/cart/associate': (call) => (associations.push(call.request.headers.get('Authorization')), Response.json({})),
      'GET /api/v2/storefront/account': (call) => {
        bearers.push(call.request.headers.get('Authorization'));
        return Response.json({ data: { id: '1', type: 'user', attributes: {} } });
      },
    }, Date.now, { storage: shared.storage });
    assert.equal((await w.worker.actions.getState()).state.signedIn, false);
    // The login's grant takes most of the action's 8 s.
    const loggingIn = w.worker.actions.login('shopper@example.com', 'p/a+s"s\\', w.keepAlive, startActionBudget());
    await pause(7_300);
    shared.stall();
    // Meanwhile a page creates a guest cart: its write (2 s wait) is queued first.
    const page = w.through(new Request(`${BASE}/api/v2/storefront/cart`, { method: 'POST' }));
    await pause(50);
    assert.equal(shared.waiting(), 1, 'the cart write waits');
    // The grant is answered: the login's write waits behind it, with well under 1 s to wait.
    grantAnswer.resolve();
    const login = await loggingIn;
    assert.equal(login.state.signedIn, true, 'the login is told');
    assert.equal(shared.waiting(), 2, 'cart write and login write queued');
    // Storage answers the cart write, within its 2 s; the login's write is still on its way.
    await shared.releaseOne();
    await page;
    const { state } = await w.worker.actions.getState();
    await w.through(new Request(`${BASE}/api/v2/storefront/account`));
    const toldAfterLogin = w.announced.slice(w.announced.findIndex((a) => a.type === 'change' && a.state.signedIn)).filter((a) => a.type === 'change').map((a) => a.state.signedIn);
    await shared.resume();
    await w.settled();
    // getState after the login was told, before its write landed; a page call then; what the pages were told after the login.
    assert.deepEqual(
      { getState: state.signedIn, bearers, toldAfterLogin: toldAfterLogin.includes(false) ? 'signed out too' : 'signed in only', associations },
      // The guest cart the login took along is assigned once, by the login as its write lands.
      { getState: true, bearers: ['Bearer lG/ac+c"ess\\5'], toldAfterLogin: 'signed in only', associations: ['Bearer lG/ac+c"ess\\5'] },
    );
  });
});

// Later stand-ins kept over what landed in time reach the pages too: an in-time write landing while an
// earlier late write's catch-up waits answers its caller with the copy the stand-ins are over (keepCart
// announces it), and a logout landing in time under a later login's stand-in announces that login.
describe('an in-time guest cart write landing behind a late write, with a later login still on its way', () => {
  it('leaves the pages told signed in once everything has landed', { timeout: 20_000 }, async () => {
    const shared = oneByOneStorage(NO_CREDENTIALS);
    const associations: (string | null)[] = [];
    const w = routedWorker({ preset: 'spree' }, NO_CREDENTIALS, {
      'PATCH /api/v2/storefront/cart/associate': (call) => (associations.push(call.request.headers.get('Authorization')), Response.json({})),
    }, Date.now, { storage: shared.storage });
    assert.equal((await w.worker.actions.getState()).state.signedIn, false);
    shared.stall();
    // W0: a guest cart whose write outlasts its (short) wait: a stand-in, then lands late.
    void w.worker.actions.keepCart({ token: 'c0/+"a\\rt', number: 'R100' }, null, w.keepAlive, new StorageBudget(100));
    // W1: another guest cart, made after W0, with the full 2 s wait: it lands in time.
    const cart1 = w.worker.actions.keepCart({ token: 'c1+/"b\\rt', number: 'R101' }, null, w.keepAlive, new StorageBudget(2_000));
    // W2: a login made after both, whose write outlasts its short wait: answered from its stand-in.
    const session = { accessToken: 'aC/c+e"ss\\1', refreshToken: 'rE+f/r"sh\\1', expiresAt: Date.now() + 7_200_000, lifetimeMs: 7_200_000, confirmed: true };
    const login = await w.worker.actions.signIn(session, w.keepAlive, new StorageBudget(100));
    assert.equal(login.state.signedIn, true, 'the login is told from its stand-in');
    await pause(150);
    assert.equal(shared.waiting(), 3);
    await shared.releaseOne(); // W0 lands late, W1 and W2 in flight: the catch-up waits (#behind)
    await shared.releaseOne(); // W1 lands in time
    await cart1;
    await shared.resume(); // W2 (the login) lands
    await w.settled();
    const { state } = await w.worker.actions.getState();
    const told = w.announced.filter((a) => a.type === 'change').map((a) => a.state.signedIn);
    assert.deepEqual(
      { held: state.signedIn, lastTold: told.at(-1), storedSession: (await shared.stored.read()).session?.accessToken, associations },
      { held: true, lastTold: true, storedSession: session.accessToken, associations: [`Bearer ${session.accessToken}`] },
      `told: ${JSON.stringify(told)}`,
    );
  });
});

describe('an in-time signed-in cart write landing behind a late write, with a later logout still on its way', () => {
  it('leaves the pages told signed out once everything has landed', { timeout: 20_000 }, async () => {
    const session = { accessToken: 'aL/o+g"ut\\2', refreshToken: 'rL+o/g"ut\\2', expiresAt: Date.now() + 7_200_000, lifetimeMs: 7_200_000, confirmed: true };
    const shared = oneByOneStorage({ cart: null, session, backoff: null, signInId: 's-1' });
    const w = routedWorker({ preset: 'spree' }, NO_CREDENTIALS, { 'POST /spree_oauth/revoke': () => Response.json({}) }, Date.now, { storage: shared.storage });
    assert.equal((await w.worker.actions.getState()).state.signedIn, true);
    shared.stall();
    // W0: the shopper's cart, whose write outlasts its (short) wait, then lands late.
    void w.worker.actions.keepCart({ token: 'u0/+"c\\rt', number: 'R200' }, 's-1', w.keepAlive, new StorageBudget(100));
    // W1: another of the shopper's carts, with the full 2 s wait: it lands in time.
    const cart1 = w.worker.actions.keepCart({ token: 'u1+/"d\\rt', number: 'R201' }, 's-1', w.keepAlive, new StorageBudget(2_000));
    // W2: a logout made after both, whose write outlasts its short wait.
    const logout = await w.worker.actions.logout(w.keepAlive, new StorageBudget(100));
    assert.equal(logout.state.signedIn, false);
    await pause(150);
    await shared.releaseOne(); // W0 lands late, W1 and W2 in flight
    await shared.releaseOne(); // W1 lands in time
    await cart1;
    await shared.resume(); // W2 (the logout) lands
    await w.settled();
    const { state } = await w.worker.actions.getState();
    const told = w.announced.filter((a) => a.type === 'change').map((a) => a.state.signedIn);
    assert.deepEqual(
      { held: state.signedIn, lastTold: told.at(-1), stored: (await shared.stored.read()).session },
      { held: false, lastTold: false, stored: null },
      `told: ${JSON.stringify(told)}`,
    );
  });
});

// The mirror of the original scenario: a logout whose write lands in time (slow storage), behind which
// a LATER login's write outlasted its shorter wait (a grant that took most of the action's 8 s). The
// memory copy now keeps the login's stand-in over the logout; the logout still announces "nothing
// held", after the login was told, and the login's own landing (memory already signed in) tells nothing.
describe('a logout write landing in time under a later login\'s stand-in', () => {
  it('leaves the pages told signed in, as the worker holds', { timeout: 20_000 }, async () => {
    const before = { accessToken: 'oL/d+a"cc\\3', refreshToken: 'oL+d/r"ef\\3', expiresAt: Date.now() + 7_200_000, lifetimeMs: 7_200_000, confirmed: true };
    const shared = oneByOneStorage({ cart: null, session: before, backoff: null, signInId: 's-0' });
    const w = routedWorker({ preset: 'spree' }, NO_CREDENTIALS, { 'POST /spree_oauth/revoke': () => Response.json({}) }, Date.now, { storage: shared.storage });
    assert.equal((await w.worker.actions.getState()).state.signedIn, true);
    shared.stall();
    // The logout, with its full 2 s wait.
    const logout = w.worker.actions.logout(w.keepAlive, new StorageBudget(2_000));
    // A login made after it, with little of its action's budget left: answered from its stand-in.
    const session = { accessToken: 'nW/a+c"c\\4', refreshToken: 'nW+r/e"f\\4', expiresAt: Date.now() + 7_200_000, lifetimeMs: 7_200_000, confirmed: true };
    const login = await w.worker.actions.signIn(session, w.keepAlive, new StorageBudget(100));
    assert.equal(login.state.signedIn, true, 'the login is told from its stand-in');
    await pause(150);
    await shared.releaseOne(); // the logout lands in time
    await logout;
    const heldBetween = (await w.worker.actions.getState()).state.signedIn;
    await shared.resume(); // the login lands
    await w.settled();
    const { state } = await w.worker.actions.getState();
    const told = w.announced.filter((a) => a.type === 'change').map((a) => a.state.signedIn);
    assert.deepEqual(
      { heldBetween, held: state.signedIn, lastTold: told.at(-1), stored: (await shared.stored.read()).session?.accessToken },
      { heldBetween: true, held: true, lastTold: true, stored: session.accessToken },
      `told: ${JSON.stringify(told)}`,
    );
  });
});
