// Writes and reads on their way to IndexedDB when it fails are redirected to the memory store that
// takes over (heldCredentials.ts `#lose`), in the order made: none waits for the failed database, and
// what that database still does with a redirected write changes nothing this worker decides.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { NO_CREDENTIALS, type Credentials } from '../src/sw/credentialStorage.js';
import { HeldCredentials } from '../src/sw/heldCredentials.js';
import { StorageBudget } from '../src/sw/storageBudget.js';
import { memoryWrites } from '../src/sw/writeStore.js';
import { deferred, refusingQueue } from './fakes.js';
import { BASE, routedWorker, type Call } from './workerHarness.js';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const channel = globalThis.BroadcastChannel;
before(() => void ((globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined));
after(() => void ((globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = channel));

async function revoked(calls: Call[]): Promise<string[]> {
  const bodies = await Promise.all(calls.filter((call) => call.route === 'POST /spree_oauth/revoke').map((call) => call.body));
  return bodies.map((body) => new URLSearchParams(body).get('token') ?? '');
}

const pair = (tag: string) => ({ accessToken: `${tag}A/c+c"e\\1`, refreshToken: `${tag}R+e/f"r\\1`, expiresAt: Date.now() + 7_200_000, lifetimeMs: 7_200_000, confirmed: true });

// Two sign-ins on their way to IndexedDB (each within its wait); the first is refused: the memory store
// takes over and applies both, the second over the first. The second's transaction still runs in
// IndexedDB afterwards (a refused transaction does not fail the next), calling its change over what
// IndexedDB holds: the first sign-in's pair is what the second replaced, and is revoked.
describe('a sign-in redirected to the memory store whose IndexedDB transaction runs afterwards', () => {
  for (const landsThere of [false, true]) it(`revokes the pair it replaced in the memory store, not the one IndexedDB held${landsThere ? " (its transaction runs there afterwards)" : " (control: it never runs there)"}`, { timeout: 20_000 }, async () => {
    const [old, first, second] = [pair('o'), pair('f'), pair('s')];
    const q = refusingQueue({ cart: null, session: old, backoff: null, signInId: 'si-o/+"\\' });
    // The offline write queue's count is slow to read: dropping a sign-in's ended writes waits for it.
    const count = deferred<number>();
    const writes = { ...memoryWrites(), count: () => count.promise };
    const w = routedWorker({ preset: 'spree', offlineWrites: true }, NO_CREDENTIALS, { 'POST /spree_oauth/revoke': () => Response.json({}) }, Date.now, { storage: q.storage, writes, online: () => true });
    assert.equal((await w.worker.actions.getState()).state.signedIn, true);
    q.stall();
    const a = w.worker.actions.signIn(first, w.keepAlive, new StorageBudget(1_500));
    await pause(20);
    const b = w.worker.actions.signIn(second, w.keepAlive, new StorageBudget(1_500));
    await pause(20);
    await q.refuse(); // the first's transaction refused: both land in the memory store, in the order made
    if (landsThere) await q.land(); // the second's transaction runs in IndexedDB after all (over the old pair)
    count.resolve(0);
    await a;
    await b;
    await w.settled();
    const gone = await revoked(w.calls);
    assert.deepEqual(
      { memory: (await w.worker.actions.getState()).state.signedIn, oldRevoked: gone.includes(old.refreshToken), firstRevoked: gone.includes(first.refreshToken), secondRevoked: gone.includes(second.refreshToken) },
      { memory: true, oldRevoked: true, firstRevoked: true, secondRevoked: false },
      `revoked: ${JSON.stringify(gone)}`,
    );
  });
});

// The premise of eccee62: one transaction refused, the next never settles in the failed database. A
// read of storage this worker made before the loss, queued in IndexedDB behind that one, never settles
// either: a caller waiting for "what storage holds, however long it takes" (`stored()`, `load(null)`)
// waits for good, though the memory store that took over holds the answer.
describe('a read of storage on its way at the loss, behind a write that never settles', () => {
  it('stored(): answered from the memory store that took over', { timeout: 10_000 }, async () => {
    const shopper = pair('r');
    const q = refusingQueue({ cart: null, session: shopper, backoff: null, signInId: 'si-r/+"\\' });
    const held = new HeldCredentials(q.storage, { failed: () => {}, superseded: () => {} });
    await held.load();
    q.stall();
    const cart = { token: 'rC/a+r"t\\1', number: 'R111' };
    await held.update((previous) => ({ ...previous, cart }), new StorageBudget(50)); // late: on its way
    await held.update((previous) => ({ ...previous, backoff: { attempts: 1, until: 5 } }), new StorageBudget(50)); // late too
    const read = held.stored(); // behind both in IndexedDB
    await q.refuse(); // the first refused: the memory store takes over; the second never settles there
    const answer = await Promise.race([read.then((held) => held.cart?.number ?? null), pause(1_000).then(() => 'never answered')]);
    assert.deepEqual({ answer, memory: held.current?.cart?.number ?? null }, { answer: 'R111', memory: 'R111' });
  });
  it('load(null) with only a guess in memory: answered from the memory store that took over', { timeout: 10_000 }, async () => {
    const q = refusingQueue({ cart: { token: 'gC/a+r"t\\2', number: 'R222' }, session: null, backoff: null });
    const held = new HeldCredentials(q.storage, { failed: () => {}, superseded: () => {} });
    q.stall(); // nothing read yet: the first read is stuck
    const cart = { token: 'nC/a+r"t\\3', number: 'R333' };
    await held.update((previous) => ({ ...previous, cart }), new StorageBudget(50)); // a guess, over nothing read
    await held.update((previous) => ({ ...previous, backoff: { attempts: 1, until: 5 } }), new StorageBudget(50));
    const read = held.load(null); // a replay's: storage, however long it takes
    await q.refuse(); // the first write refused: the memory store takes over; the second never settles there
    const answer = await Promise.race([read.then((held) => held.cart?.number ?? null), pause(1_000).then(() => 'never answered')]);
    assert.deepEqual({ answer }, { answer: 'R333' });
  });
});

// The same in the worker: a login that outlasted its wait takes a guest cart along; once its write has
// landed, it reads storage (behind a later write still on its way) to assign that cart to the user.
// The later write is refused: the memory store takes over, and the read, left to the failed database,
// never answers: the cart is never assigned.
describe('a login\'s late landing reading storage when IndexedDB fails (worker)', () => {
  it('still assigns the guest cart it took along', { timeout: 20_000 }, async () => {
    const cart = { token: 'aG/u+e"s\\t4', number: 'R404' };
    const q = refusingQueue({ cart, session: null, backoff: null });
    const associated: (string | null)[] = [];
    const w = routedWorker({ preset: 'spree' }, NO_CREDENTIALS, {
      'POST /spree_oauth/revoke': () => Response.json({}),
      'PATCH /api/v2/storefront/cart/associate': (call) => (associated.push(call.request.headers.get('Authorization')), Response.json({})),
      'GET /api/v2/storefront/account': () => Response.json({ data: { id: '1', type: 'user', attributes: {} } }),
    }, Date.now, { storage: q.storage });
    assert.equal((await w.worker.actions.getState()).state.cart?.number, 'R404');
    q.stall();
    const shopper = { ...pair('l'), confirmed: false };
    assert.equal((await w.worker.actions.signIn(shopper, w.keepAlive, new StorageBudget(50))).state.signedIn, true, 'answered from its stand-in');
    // A page call the server accepts: the bearer's confirmation is written, on its way behind the login.
    await w.through(new Request(`${BASE}/api/v2/storefront/account`));
    await q.land(); // the login lands; its landing reads storage, behind the confirmation
    await q.refuse(); // the confirmation is refused: the memory store takes over
    const done = await Promise.race([Promise.allSettled(w.kept).then(() => 'settled'), pause(3_000).then(() => 'still waiting')]);
    assert.deepEqual({ done, associated }, { done: 'settled', associated: [`Bearer ${shopper.accessToken}`] });
  });
});

// The login made before the loss stays on its way in IndexedDB for good (a transaction that never
// settles): the writes made after the loss land in the memory store all the same.
async function lostWithLoginOnItsWay() {
  const q = refusingQueue({ cart: null, session: null, backoff: null });
  const held = new HeldCredentials(q.storage, { failed: () => {}, superseded: () => {} });
  await held.load();
  q.stall();
  await held.update((previous) => ({ ...previous, cart: { token: 'qC/a+r"t\\3', number: 'R303' } }), new StorageBudget(50));
  const shopper = { accessToken: 'wA/c+c"e\\5', refreshToken: 'wR+e/f"r\\5', expiresAt: Date.now() + 7_200_000, lifetimeMs: 7_200_000, confirmed: true };
  await held.update((previous) => ({ ...previous, session: shopper, signInId: 'si/+"\\5' }), new StorageBudget(50));
  await q.refuse(); // the cart write is refused: the memory store takes over; the login's IndexedDB write never settles
  return { held, shopper };
}

describe('writes made after the loss while a write made before never settles in IndexedDB', () => {
  it('a logout: a re-read finds it, not the shopper who left', { timeout: 10_000 }, async () => {
    const { held } = await lostWithLoginOnItsWay();
    await held.update(() => NO_CREDENTIALS, new StorageBudget(100));
    assert.equal(held.current?.session ?? null, null, 'signed out in memory');
    // Another worker's change heard, or the refresh lock's re-read.
    const reread = await held.reread(new StorageBudget(200));
    await pause(20);
    assert.deepEqual({ reread: reread.session?.refreshToken ?? null, memory: held.current?.session?.accessToken ?? null }, { reread: null, memory: null });
  });
  it('the refresh key stored before a refresh: persisted in the memory store', { timeout: 10_000 }, async () => {
    const { held, shopper } = await lostWithLoginOnItsWay();
    const key = 'k/e+y"\\9';
    const landed = await held.persist((previous) => ({ ...previous, refreshKey: { refreshToken: shopper.refreshToken, key } }), new StorageBudget(500));
    assert.equal(landed?.refreshKey?.key ?? null, key);
  });
  it('a login: lands in time, and what it replaced is the login made before the loss', { timeout: 10_000 }, async () => {
    const { held, shopper } = await lostWithLoginOnItsWay();
    const second = { accessToken: 'zB/a+c"c\\6', refreshToken: 'zB+r/e"f\\6', expiresAt: Date.now() + 7_200_000, lifetimeMs: 7_200_000, confirmed: true };
    let replaced: Credentials | null = null;
    const late = () => assert.fail('the memory store answers in time');
    const login = await held.update((previous) => ((replaced = previous), { ...previous, session: second, signInId: 'si/+"\\6' }), new StorageBudget(50), late, late);
    assert.deepEqual(
      { answered: login.session?.refreshToken, replaced: (replaced as Credentials | null)?.session?.refreshToken ?? null, stored: (await held.reread(new StorageBudget(200))).session?.refreshToken },
      { answered: second.refreshToken, replaced: shopper.refreshToken, stored: second.refreshToken },
    );
  });
});

describe('a sign-in made after the loss, one made before stuck in IndexedDB (worker)', () => {
  it('revokes the pair it replaced', { timeout: 20_000 }, async () => {
    const q = refusingQueue({ cart: null, session: null, backoff: null });
    const w = routedWorker({ preset: 'spree' }, NO_CREDENTIALS, { 'POST /spree_oauth/revoke': () => Response.json({}) }, Date.now, { storage: q.storage });
    await w.worker.actions.getState();
    q.stall();
    const [first, second, third] = [pair('f'), pair('s'), pair('t')];
    assert.equal((await w.worker.actions.signIn(first, w.keepAlive, new StorageBudget(50))).state.signedIn, true);
    await w.worker.actions.signIn(second, w.keepAlive, new StorageBudget(50)); // its IndexedDB write queued behind the first's
    await q.refuse(); // the first's write refused: the memory store takes over; the second's never settles
    await w.worker.actions.signIn(third, w.keepAlive, new StorageBudget(300));
    await w.settled();
    const gone = await revoked(w.calls);
    assert.deepEqual({ first: gone.includes(first.refreshToken), second: gone.includes(second.refreshToken), third: gone.includes(third.refreshToken) }, { first: true, second: true, third: false }, `revoked: ${JSON.stringify(gone)}`);
  });
});
