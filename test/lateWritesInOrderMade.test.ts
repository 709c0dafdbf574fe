// Storage writes that outlast their wait leave stand-ins in memory (heldCredentials.ts). Storage
// applies the writes in the order they were made, so the stand-ins go in that order too, whichever
// wait ran out first: a logout made before a login never revokes the login's pair, and page calls go
// with the bearer of the login made last. And two logins racing over a guest cart leave no assignment
// mark that holds the second shopper's cart calls for 10 s.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { NO_CREDENTIALS, type Credentials } from '../src/sw/credentialStorage.js';
import { HeldCredentials } from '../src/sw/heldCredentials.js';
import { StorageBudget } from '../src/sw/storageBudget.js';
import { startActionBudget } from '../src/sw/actionBudget.js';
import { deferred, oneByOneStorage, refusingQueue, stallingStorage, steppedFifo } from './fakes.js';
import { BASE, routedWorker, type Call } from './workerHarness.js';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// No BroadcastChannel: a worker hears of another's change only through storage.
const channel = globalThis.BroadcastChannel;
before(() => void ((globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined));
after(() => void ((globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = channel));

async function revoked(calls: Call[]): Promise<string[]> {
  const bodies = await Promise.all(calls.filter((call) => call.route === 'POST /spree_oauth/revoke').map((call) => call.body));
  return bodies.map((body) => new URLSearchParams(body).get('token') ?? '');
}

// A logout (the bridge's, its full 2 s wait) made first; a login made just after it whose grant took
// most of its action's 8 s (a short wait left), with storage slow: the login's wait runs out first, then
// the logout's. Storage applies the logout, then the login: it ends holding the login's pair.
describe('a logout made before a login whose shorter wait runs out first', () => {
  it('does not revoke the pair storage ends up holding', { timeout: 20_000 }, async () => {
    const old = { accessToken: 'oX/a+c"c\\7', refreshToken: 'oX+r/e"f\\7', expiresAt: Date.now() + 7_200_000, lifetimeMs: 7_200_000, confirmed: true };
    const shared = oneByOneStorage({ cart: null, session: old, backoff: null, signInId: 's-old' });
    const w = routedWorker({ preset: 'spree' }, NO_CREDENTIALS, { 'POST /spree_oauth/revoke': () => Response.json({}) }, Date.now, { storage: shared.storage });
    assert.equal((await w.worker.actions.getState()).state.signedIn, true);
    shared.stall();
    const logout = w.worker.actions.logout(w.keepAlive, new StorageBudget(2_000));
    await pause(50);
    const session = { accessToken: 'nY/a+c"c\\8', refreshToken: 'nY+r/e"f\\8', expiresAt: Date.now() + 7_200_000, lifetimeMs: 7_200_000, confirmed: true };
    const login = await w.worker.actions.signIn(session, w.keepAlive, new StorageBudget(100));
    assert.equal(login.state.signedIn, true, 'the login is told from its stand-in');
    await logout; // its 2 s ran out
    await shared.resume(); // the logout lands, then the login
    await w.settled();
    const stored: Credentials = await shared.stored.read();
    const { state } = await w.worker.actions.getState();
    const gone = await revoked(w.calls);
    assert.deepEqual(
      { stored: stored.session?.refreshToken, held: state.signedIn, newPairRevoked: gone.includes(session.refreshToken) || gone.includes(session.accessToken) },
      { stored: session.refreshToken, held: true, newPairRevoked: false },
      `revoked: ${JSON.stringify(gone)}`,
    );
  });
});

// The same through the bridge's own login(), whose grant took most of its action's 8 s.
describe('a bridge logout made while a bridge login\'s slow grant is answered, storage slow', () => {
  it('does not revoke the pair storage ends up holding', { timeout: 30_000 }, async () => {
    const old = { accessToken: 'oZ/a+c"c\\9', refreshToken: 'oZ+r/e"f\\9', expiresAt: Date.now() + 7_200_000, lifetimeMs: 7_200_000, confirmed: true };
    const shared = oneByOneStorage({ cart: null, session: old, backoff: null, signInId: 's-old' });
    const grantAnswer = deferred<void>();
    const w = routedWorker({ preset: 'spree' }, NO_CREDENTIALS, {
      'POST /spree_oauth/token': async () => {
        await grantAnswer.promise;
        return Response.json({ access_token: 'nZ/a+c"c\\0', refresh_token: 'nZ+r/e"f\\0', token_type: 'Bearer', expires_in: 7200, created_at: Math.floor(Date.now() / 1000) });
      },
      'POST /spree_oauth/revoke': () => Response.json({}),
    }, Date.now, { storage: shared.storage });
    assert.equal((await w.worker.actions.getState()).state.signedIn, true);
    const loggingIn = w.worker.actions.login('shopper@example.com', 'p/a+s"s\\', w.keepAlive, startActionBudget());
    await pause(7_700);
    shared.stall();
    const logout = w.worker.actions.logout(w.keepAlive);
    await pause(20);
    grantAnswer.resolve();
    assert.equal((await loggingIn).state.signedIn, true);
    await logout;
    await shared.resume();
    await w.settled();
    const stored = await shared.stored.read();
    const gone = await revoked(w.calls);
    assert.deepEqual(
      { stored: stored.session?.refreshToken, newPairRevoked: gone.includes('nZ+r/e"f\\0') },
      { stored: 'nZ+r/e"f\\0', newPairRevoked: false },
      `revoked: ${JSON.stringify(gone)}`,
    );
  });
});

// Two logins with the first made holding the longer wait (a page's own grant, or a bridge login with
// more of its 8 s left): the second's wait runs out first, then the first's stand-in goes over it.
// Storage ends holding the second (and revokes the first's pair as it lands), but until then page calls
// carry the first shopper's bearer.
describe('a login made before another whose shorter wait runs out first', () => {
  it('sends page calls with the later login\'s bearer, the one storage ends up holding', { timeout: 20_000 }, async () => {
    const shared = oneByOneStorage(NO_CREDENTIALS);
    const bearers: (string | null)[] = [];
    const w = routedWorker({ preset: 'spree' }, NO_CREDENTIALS, {
      'POST /spree_oauth/revoke': () => Response.json({}),
      'GET /api/v2/storefront/account': (call) => (bearers.push(call.request.headers.get('Authorization')), Response.json({ data: { id: '1', type: 'user', attributes: {} } })),
    }, Date.now, { storage: shared.storage });
    assert.equal((await w.worker.actions.getState()).state.signedIn, false);
    shared.stall();
    const first = { accessToken: 'pA/a+c"c\\5', refreshToken: 'pA+r/e"f\\5', expiresAt: Date.now() + 7_200_000, lifetimeMs: 7_200_000, confirmed: true };
    const second = { accessToken: 'qB/a+c"c\\6', refreshToken: 'qB+r/e"f\\6', expiresAt: Date.now() + 7_200_000, lifetimeMs: 7_200_000, confirmed: true };
    const loginA = w.worker.actions.signIn(first, w.keepAlive, new StorageBudget(1_000));
    await pause(20);
    await w.worker.actions.signIn(second, w.keepAlive, new StorageBudget(100));
    await loginA;
    await w.through(new Request(`${BASE}/api/v2/storefront/account`));
    await shared.resume();
    await w.settled();
    const stored = await shared.stored.read();
    assert.deepEqual(
      { stored: stored.session?.accessToken, bearers },
      { stored: second.accessToken, bearers: [`Bearer ${second.accessToken}`] },
    );
  });
});

// Two logins racing from a guest holding a cart: the first (full wait) lands in time, the second (a
// short wait left) is answered from its stand-in. The first's in-time answer is the second's stand-in
// over it: it answers "unchanged" and assigns nothing, but the mark its change stored stays.
describe('two logins racing over a guest cart, the first landing in time under the second\'s stand-in', () => {
  it('leaves no assignment mark holding the second shopper\'s cart calls', { timeout: 40_000 }, async () => {
    const cart = { token: 'gQ/u+e"s\\t5', number: 'R515' };
    const shared = oneByOneStorage({ cart, session: null, backoff: null });
    const associations: (string | null)[] = [];
    const w = routedWorker({ preset: 'spree' }, NO_CREDENTIALS, {
      'POST /spree_oauth/revoke': () => Response.json({}),
      'PATCH /api/v2/storefront/cart/associate': (call) => (associations.push(call.request.headers.get('Authorization')), Response.json({})),
      'GET /api/v2/storefront/cart': () => Response.json({ data: { id: '5', type: 'cart', attributes: { number: 'R515' } } }),
    }, Date.now, { storage: shared.storage });
    assert.equal((await w.worker.actions.getState()).state.cart?.number, 'R515');
    shared.stall();
    const first = { accessToken: 'fA/a+c"c\\1', refreshToken: 'fA+r/e"f\\1', expiresAt: Date.now() + 7_200_000, lifetimeMs: 7_200_000, confirmed: true };
    const second = { accessToken: 'sB/a+c"c\\2', refreshToken: 'sB+r/e"f\\2', expiresAt: Date.now() + 7_200_000, lifetimeMs: 7_200_000, confirmed: true };
    const loginA = w.worker.actions.signIn(first, w.keepAlive, new StorageBudget(2_000));
    await pause(20);
    const loginB = await w.worker.actions.signIn(second, w.keepAlive, new StorageBudget(100));
    assert.equal(loginB.state.signedIn, true);
    await pause(150);
    await shared.releaseOne(); // the first login lands in time
    await loginA;
    await shared.resume(); // the second lands
    await w.settled();
    const stored = await shared.stored.read();
    // A cart call of the shopper now signed in.
    const started = performance.now();
    const response = await w.through(new Request(`${BASE}/api/v2/storefront/cart`));
    const tookMs = performance.now() - started;
    await w.settled();
    assert.equal(response?.status, 200);
    assert.deepEqual(
      { storedSession: stored.session?.accessToken, markLeft: stored.cartAssigningUntil !== undefined, cartCallWaited: tookMs > 2_000 },
      { storedSession: second.accessToken, markLeft: false, cartCallWaited: false },
      `mark: ${JSON.stringify({ takenBy: stored.cartTakenBy, signInId: stored.signInId })}, associations ${JSON.stringify(associations)}, cart call ${Math.round(tookMs)} ms`,
    );
  });
});

// The same race with both logins late (each answered from its stand-in): storage takes the first (the
// guest cart along, its mark), then the second over it, which takes nothing; neither assigns the cart.
describe('two late logins racing over a guest cart', () => {
  it('leaves no assignment mark holding the second shopper\'s cart calls', { timeout: 40_000 }, async () => {
    const cart = { token: 'gL/a+t"e\\6', number: 'R616' };
    const shared = steppedFifo({ cart, session: null, backoff: null });
    const w = routedWorker({ preset: 'spree' }, NO_CREDENTIALS, {
      'POST /spree_oauth/revoke': () => Response.json({}),
      'PATCH /api/v2/storefront/cart/associate': () => Response.json({}),
      'GET /api/v2/storefront/cart': () => Response.json({ data: { id: '6', type: 'cart', attributes: { number: 'R616' } } }),
    }, Date.now, { storage: shared.storage });
    assert.equal((await w.worker.actions.getState()).state.cart?.number, 'R616');
    shared.stall();
    const first = { accessToken: 'lA/a+c"c\\3', refreshToken: 'lA+r/e"f\\3', expiresAt: Date.now() + 7_200_000, lifetimeMs: 7_200_000, confirmed: true };
    const second = { accessToken: 'lB/a+c"c\\4', refreshToken: 'lB+r/e"f\\4', expiresAt: Date.now() + 7_200_000, lifetimeMs: 7_200_000, confirmed: true };
    await w.worker.actions.signIn(first, w.keepAlive, new StorageBudget(100));
    await w.worker.actions.signIn(second, w.keepAlive, new StorageBudget(100));
    await shared.resume();
    await w.settled();
    const stored = await shared.stored.read();
    const started = performance.now();
    const response = await w.through(new Request(`${BASE}/api/v2/storefront/cart`));
    const tookMs = performance.now() - started;
    await w.settled();
    assert.equal(response?.status, 200);
    assert.deepEqual(
      { storedSession: stored.session?.accessToken, markLeft: stored.cartAssigningUntil !== undefined, cartCallWaited: tookMs > 2_000 },
      { storedSession: second.accessToken, markLeft: false, cartCallWaited: false },
      `calls ${JSON.stringify(w.calls.map((c) => c.route))}, cart call ${Math.round(tookMs)} ms`,
    );
  });
});

// A write whose wait runs out after a later write's goes under that later stand-in, over the copy that
// one was applied over (`prior`), unless that copy was forgotten since (another worker's change heard
// while both writes are on their way): the forgotten copy must not come back into memory (a logout
// elsewhere undone: its bearer on page calls).
describe('an earlier write timing out under a later stand-in after the memory copy was forgotten', () => {
  it('does not bring back the forgotten copy (HeldCredentials)', { timeout: 10_000 }, async () => {
    const shopper = { accessToken: 'hS/a+c"c\\1', refreshToken: 'hS+r/e"f\\1', expiresAt: Date.now() + 7_200_000, lifetimeMs: 7_200_000, confirmed: true };
    const s = stallingStorage({ cart: null, session: shopper, backoff: null, signInId: 'si-1' });
    const held = new HeldCredentials(s.storage, { failed: () => {}, superseded: () => {} });
    assert.equal((await held.load()).session?.accessToken, shopper.accessToken);
    // Another worker's logout lands in storage; this worker has not heard yet.
    await s.stored.update(() => NO_CREDENTIALS);
    s.stall();
    const keep = (number: string) => (previous: Credentials): Credentials => ({ ...previous, cart: { token: `t/${number}+"\\`, number } });
    const a = held.update(keep('R100'), new StorageBudget(600));
    await pause(20);
    await held.update(keep('R200'), new StorageBudget(100)); // its wait runs out first
    held.invalidate(); // the logout elsewhere is heard: the copy holding the shopper is forgotten
    const guessed = await a; // the earlier write's wait runs out, the re-read still stuck
    const announced = await held.announced();
    s.resume();
    assert.deepEqual(
      { late: guessed.session?.accessToken ?? null, memory: held.current?.session?.accessToken ?? null, announcedSignedIn: announced.session !== null },
      { late: null, memory: null, announcedSignedIn: false },
    );
  });

  it('sends no page call with the bearer of a shopper logged out elsewhere (worker)', { timeout: 20_000 }, async () => {
    const shopper = { accessToken: 'wS/a+c"c\\2', refreshToken: 'wS+r/e"f\\2', expiresAt: Date.now() + 7_200_000, lifetimeMs: 7_200_000, confirmed: true };
    const s = stallingStorage({ cart: null, session: shopper, backoff: null, signInId: 'si-2' });
    const bearers: (string | null)[] = [];
    const w = routedWorker({ preset: 'spree' }, NO_CREDENTIALS, {
      'POST /spree_oauth/revoke': () => Response.json({}),
      'GET /api/v2/storefront/account': (call) => (bearers.push(call.request.headers.get('Authorization')), Response.json({ data: { id: '1', type: 'user', attributes: {} } })),
    }, Date.now, { storage: s.storage });
    assert.equal((await w.worker.actions.getState()).state.signedIn, true);
    // Another worker's logout lands in storage; this worker has not heard yet.
    await s.stored.update(() => NO_CREDENTIALS);
    s.stall();
    const a = w.worker.actions.keepCart({ token: 'cA/t+o"k\\1', number: 'R301' }, 'si-2', w.keepAlive, new StorageBudget(600));
    await pause(20);
    await w.worker.actions.keepCart({ token: 'cB/t+o"k\\2', number: 'R302' }, 'si-2', w.keepAlive, new StorageBudget(100));
    w.worker.forgetMemoryCopy('closed'); // as an announcement from the other worker does: re-read
    await a;
    const { state } = await w.worker.actions.getState();
    await w.through(new Request(`${BASE}/api/v2/storefront/account`));
    s.resume();
    await w.settled();
    assert.deepEqual(
      { signedIn: state.signedIn, shopperBearerSent: bearers.includes(`Bearer ${shopper.accessToken}`), stored: (await s.stored.read()).session },
      { signedIn: false, shopperBearerSent: false, stored: null },
      `bearers sent: ${JSON.stringify(bearers)}`,
    );
  });
});

// Storage fails for one write (a quota refusal of its transaction) while a later write of this worker is
// still on its way in IndexedDB, answered from its stand-in: the memory store that takes over is seeded
// from what storage held under the writes still on their way, and applies those writes at once, in
// the order made, as storage would have: a write made after the loss (a logout) stays the last word
// over one made before it, and none waits for a transaction of the failed database, which may never
// settle.
describe('a logout made after the memory store took over, while a login made before is still on its way', () => {
  it('leaves the shopper signed out in memory, the logout being the last write made', { timeout: 10_000 }, async () => {
    const cart = { token: 'gC/a+r"t\\9', number: 'R909' };
    const q = refusingQueue({ cart, session: null, backoff: null });
    const failures: unknown[] = [];
    const caught: [Credentials | null, Credentials][] = [];
    const held = new HeldCredentials(q.storage, { failed: (error) => failures.push(error), superseded: () => {}, caughtUp: (before, after) => caught.push([before, after]) });
    assert.equal((await held.load()).cart?.number, 'R909');
    q.stall();
    // A cart write, then a login, each outlasting a short wait: both answered from stand-ins.
    const other = { token: 'oC/a+r"t\\8', number: 'R808' };
    const keepCart = held.update((previous) => ({ ...previous, cart: other }), new StorageBudget(50));
    await keepCart;
    const shopper = { accessToken: 'sH/o+p"p\\e1', refreshToken: 'sH+r/e"f\\e1', expiresAt: Date.now() + 7_200_000, lifetimeMs: 7_200_000, confirmed: true };
    const login = await held.update((previous) => ({ ...previous, session: shopper, signInId: 'si/+"\\1' }), new StorageBudget(50));
    assert.equal(login.session?.accessToken, shopper.accessToken, 'the login is answered from its stand-in');
    // The cart write is refused: the memory store takes over, seeded from memory (the login's stand-in in it).
    await q.refuse();
    assert.equal(failures.length, 1);
    // The shopper logs out: made after the login, it lands at once in the memory store.
    let forgotten: Credentials = NO_CREDENTIALS;
    const logout = await held.update((previous) => ((forgotten = previous), NO_CREDENTIALS), new StorageBudget(300));
    const afterLogout = { answered: logout.session?.accessToken ?? null, memory: held.current?.session?.accessToken ?? null, forgotten: forgotten.session?.accessToken ?? null };
    // The login's transaction lands in IndexedDB at last.
    await q.land();
    await pause(20);
    assert.deepEqual(
      { ...afterLogout, finally: held.current?.session?.accessToken ?? null, announced: (await held.announced()).session?.accessToken ?? null, stored: (await held.reread()).session?.accessToken ?? null },
      { answered: null, memory: null, forgotten: shopper.accessToken, finally: null, announced: null, stored: null },
      `caught up: ${JSON.stringify(caught.map(([, after]) => after.session?.accessToken ?? null))}`,
    );
  });
  it('keeps no pair the logout forgot in the memory store, the login\'s write refused too', { timeout: 10_000 }, async () => {
    const q = refusingQueue({ cart: null, session: null, backoff: null });
    const held = new HeldCredentials(q.storage, { failed: () => {}, superseded: () => {} });
    await held.load();
    q.stall();
    await held.update((previous) => ({ ...previous, cart: { token: 'kC/a+r"t\\7', number: 'R707' } }), new StorageBudget(50));
    const shopper = { accessToken: 'lG/i+n"a\\c2', refreshToken: 'lG+r/e"f\\2', expiresAt: Date.now() + 7_200_000, lifetimeMs: 7_200_000, confirmed: true };
    await held.update((previous) => ({ ...previous, session: shopper, signInId: 'si/+"\\2' }), new StorageBudget(50));
    await q.refuse(); // the cart write: the memory store takes over
    let forgotten: Credentials = NO_CREDENTIALS;
    await held.update((previous) => ((forgotten = previous), NO_CREDENTIALS), new StorageBudget(300)); // the logout
    await q.refuse(); // the login's write is refused too, and goes to the memory store
    await pause(400);
    const stored = await held.reread();
    assert.deepEqual(
      { forgotten: forgotten.session?.refreshToken ?? null, stored: stored.session?.refreshToken ?? null, memory: held.current?.session?.refreshToken ?? null },
      { forgotten: shopper.refreshToken, stored: null, memory: null },
    );
  });
});
