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

const TOKEN = 'POST /spree_oauth/token';
const REVOKE = 'POST /spree_oauth/revoke';
const HOUR = 3_600_000;

async function grantTokens(calls: Call[]): Promise<string[]> {
  const bodies = await Promise.all(calls.filter((call) => call.route === TOKEN).map((call) => call.body));
  return bodies.map((body) => new URLSearchParams(body).get('refresh_token') ?? '');
}

// A refresh whose write is redirected behind a logout (both on their way when IndexedDB refused the
// logout's transaction): in the memory store the logout came first, so the refresh replaced nothing,
// and the pair it brought is revoked. While that revocation is on its way, the refresh's own
// transaction still runs in the failed IndexedDB, over the pair the logout did not forget there, and
// sets `replaced` in the refresher's closure: read after `await revokeSession`, the refresher takes
// the revoked pair for a kept one that came already expired, and refreshes it again.
describe('a refresh redirected behind a logout, its change run in IndexedDB afterwards (worker)', () => {
  for (const landsThere of [false, true]) it(`sends no second refresh grant with the pair it revoked${landsThere ? '' : ' (control: its transaction never runs there)'}`, { timeout: 20_000 }, async () => {
    const NOW = 1_800_000_000_000;
    let clock = NOW;
    const old = { accessToken: 'oA/c+c"e\\7', refreshToken: 'oR+e/f"r\\7', expiresAt: NOW + 10_000, lifetimeMs: HOUR, confirmed: true };
    const q = refusingQueue({ cart: null, session: old, backoff: null });
    const body = deferred<void>();
    const revokeFresh = deferred<void>();
    const fresh = { access: 'nA+c/c"e\\8', refresh: 'nR/e+f"r\\8' };
    const w = routedWorker(
      { preset: 'spree' },
      NO_CREDENTIALS,
      {
        [TOKEN]: (call) =>
          call.body.then((sent) =>
            new URLSearchParams(sent).get('refresh_token') === old.refreshToken
              ? new Response(
                  new ReadableStream({
                    async pull(controller) {
                      await body.promise; // the body arrives slowly: the pair is expired by then
                      controller.enqueue(new TextEncoder().encode(JSON.stringify({ access_token: fresh.access, token_type: 'Bearer', expires_in: 3600, refresh_token: fresh.refresh, created_at: NOW / 1000 })));
                      controller.close();
                    },
                  }),
                  { headers: { 'Content-Type': 'application/json' } },
                )
              : Response.json({ error: 'invalid_grant' }, { status: 400 }),
          ),
        [REVOKE]: (call) => call.body.then((sent) => (new URLSearchParams(sent).get('token') === fresh.refresh ? revokeFresh.promise.then(() => Response.json({})) : Response.json({}))),
        'GET /api/v2/storefront/account': () => Response.json({ data: { id: '1', type: 'user', attributes: {} } }),
      },
      () => clock,
      { storage: q.storage },
    );
    assert.equal((await w.worker.actions.getState()).state.signedIn, true);
    const page = w.through(new Request(`${BASE}/api/v2/storefront/account`)); // due: refreshes first
    for (let i = 0; i < 100 && !w.calls.some((call) => call.route === TOKEN); i++) await pause(5);
    q.stall();
    await w.worker.actions.logout(w.keepAlive, new StorageBudget(30)); // late: its write on its way
    clock = NOW + HOUR - 10_000; // the pair the refresh brings is due (not expired) when it arrives
    body.resolve();
    for (let i = 0; i < 100 && q.queue.length < 2; i++) await pause(5);
    assert.equal(q.queue.length, 2, 'the logout and the refresh on their way');
    await q.refuse(); // the logout's transaction refused: the memory store takes over; both land there
    if (landsThere) await q.land(); // the refresh's transaction runs in IndexedDB afterwards, over the old pair
    revokeFresh.resolve();
    await Promise.race([page, pause(2_000)]);
    await w.settled();
    const grants = await grantTokens(w.calls);
    assert.deepEqual({ grants, signedIn: (await w.worker.actions.getState()).state.signedIn }, { grants: [old.refreshToken], signedIn: false });
  });
});

// A persist that outlasted its wait lands in IndexedDB while a later write of this worker is still on
// its way there (its catch-up waits for that one). That later write is refused: the memory store that
// takes over must start from what storage held under it, which includes the persist that landed.
describe('a late persist landed in IndexedDB before the loss, a later write still on its way', () => {
  for (const later of ['update', 'persist'] as const) it(`its change is in the memory store that takes over (later write: ${later})`, { timeout: 10_000 }, async () => {
    const shopper = { accessToken: 'pA/c+c"e\\9', refreshToken: 'pR+e/f"r\\9', expiresAt: Date.now() + 7_200_000, lifetimeMs: 7_200_000, confirmed: true };
    const q = refusingQueue({ cart: null, session: shopper, backoff: null });
    const held = new HeldCredentials(q.storage, { failed: () => {}, superseded: () => {} });
    await held.load();
    q.stall();
    const key = 'k/e+y"\\1';
    const keyed = await held.persist((previous) => ({ ...previous, refreshKey: { refreshToken: shopper.refreshToken, key } }), new StorageBudget(30));
    assert.equal(keyed, null, 'late');
    const cart = { token: 'pC/a+r"t\\1', number: 'R909' };
    const change = (previous: Credentials): Credentials => ({ ...previous, cart });
    if (later === 'update') await held.update(change, new StorageBudget(30)); // late too: a stand-in
    else await held.persist(change, new StorageBudget(30));
    await q.land(); // the key's write lands in IndexedDB
    assert.equal((await q.stored.read()).refreshKey?.key, key, 'stored in IndexedDB');
    await q.refuse(); // the cart's write refused: the memory store takes over
    const stored = await held.reread(new StorageBudget(200));
    assert.deepEqual({ key: stored.refreshKey?.key ?? null, cart: stored.cart?.number ?? null }, { key, cart: 'R909' });
  });
});

// The first read of storage is slow: two writes outlast their wait, over a guess ("nothing held").
// IndexedDB then answers the read (the shopper's session) and lands the first write over it; the second
// write is refused. Storage held the session under that write, and the worker knew it: the memory store
// that takes over starts from it, not from the guess.
describe('the first read and a late write answered by IndexedDB, a later write refused', () => {
  it('the session storage held is kept in the memory store that takes over', { timeout: 10_000 }, async () => {
    const shopper = { accessToken: 'gA/c+c"e\\2', refreshToken: 'gR+e/f"r\\2', expiresAt: Date.now() + 7_200_000, lifetimeMs: 7_200_000, confirmed: true };
    const q = refusingQueue({ cart: null, session: shopper, backoff: null, signInId: 'si-g/+"\\2' });
    const held = new HeldCredentials(q.storage, { failed: () => {}, superseded: () => {} });
    q.stall();
    const loading = held.load(new StorageBudget(30)); // the first read, stuck
    assert.equal((await loading).session, null, 'answered from nothing read');
    const cart = { token: 'gC/a+r"t\\2', number: 'R202' };
    await held.update((previous) => ({ ...previous, cart }), new StorageBudget(30)); // late: a guess
    await held.update((previous) => ({ ...previous, backoff: null }), new StorageBudget(30)); // late too
    await q.land(); // the read answers: the shopper (outdated by the writes since: memory keeps its guess)
    await q.land(); // the cart's write lands over the shopper's session
    assert.equal((await q.stored.read()).session?.refreshToken, shopper.refreshToken, 'stored in IndexedDB');
    await q.refuse(); // the second write refused: the memory store takes over
    const stored = await held.reread(new StorageBudget(200));
    assert.deepEqual(
      { stored: stored.session?.refreshToken ?? null, memory: held.current?.session?.refreshToken ?? null, cart: held.current?.cart?.number ?? null },
      { stored: shopper.refreshToken, memory: shopper.refreshToken, cart: 'R202' },
    );
  });
});

describe('a worker whose first read is slow, two cart writes late, the second refused by IndexedDB', () => {
  it('keeps the shopper signed in: storage answered the read and the first write with the session', { timeout: 10_000 }, async () => {
    const shopper = { accessToken: 'wA/c+c"e\\3', refreshToken: 'wR+e/f"r\\3', expiresAt: Date.now() + 7_200_000, lifetimeMs: 7_200_000, confirmed: true };
    const q = refusingQueue({ cart: null, session: shopper, backoff: null, signInId: 'si-w/+"\\3' });
    q.stall(); // the worker's first read (its preload) is stuck
    const w = routedWorker({ preset: 'spree' }, NO_CREDENTIALS, {}, Date.now, { storage: q.storage });
    const first = { token: 'wC/a+r"t\\3', number: 'R313' };
    const second = { token: 'wD/a+r"t\\4', number: 'R414' };
    await w.worker.actions.keepCart(first, 'si-w/+"\\3', w.keepAlive, new StorageBudget(30)); // late: over nothing read
    await w.worker.actions.keepCart(second, 'si-w/+"\\3', w.keepAlive, new StorageBudget(30)); // late too
    await q.land(); // the first read answers: signed in
    await q.land(); // the first cart's write lands over the session
    await q.refuse(); // the second's is refused: the memory store takes over
    await w.settled();
    const { state } = await w.worker.actions.getState();
    assert.deepEqual({ signedIn: state.signedIn, cart: state.cart?.number ?? null }, { signedIn: true, cart: 'R414' });
  });
});

// The first read of storage is slow: a write outlasts its wait over a guess ("nothing held"). IndexedDB
// then answers the read (the shopper's session), and refuses the write, before any write of this worker
// landed. Storage held the session under that write, and the worker had read it: the memory store that
// takes over starts from it, not from the guess (as where the first write landed, above).
describe('the first read answered by IndexedDB, the late write behind it refused', () => {
  it('the session the read found is kept in the memory store that takes over', { timeout: 10_000 }, async () => {
    const shopper = { accessToken: 'hA/c+c"e\\4', refreshToken: 'hR+e/f"r\\4', expiresAt: Date.now() + 7_200_000, lifetimeMs: 7_200_000, confirmed: true };
    const q = refusingQueue({ cart: null, session: shopper, backoff: null, signInId: 'si-h/+"\\4' });
    const held = new HeldCredentials(q.storage, { failed: () => {}, superseded: () => {} });
    q.stall();
    assert.equal((await held.load(new StorageBudget(30))).session, null, 'answered from nothing read');
    const cart = { token: 'hC/a+r"t\\4', number: 'R424' };
    await held.update((previous) => ({ ...previous, cart }), new StorageBudget(30)); // late: a guess
    await q.land(); // the read answers: the shopper (outdated by the write since: memory keeps its guess)
    await q.refuse(); // the write refused: the memory store takes over
    const stored = await held.reread(new StorageBudget(200));
    assert.deepEqual(
      { stored: stored.session?.refreshToken ?? null, memory: held.current?.session?.refreshToken ?? null, cart: held.current?.cart?.number ?? null },
      { stored: shopper.refreshToken, memory: shopper.refreshToken, cart: 'R424' },
    );
  });
});

describe('a worker whose first read is slow, one cart write late and refused by IndexedDB after the read answered', () => {
  it('keeps the shopper signed in, with the cart: storage answered the read with the session', { timeout: 10_000 }, async () => {
    const shopper = { accessToken: 'vA/c+c"e\\5', refreshToken: 'vR+e/f"r\\5', expiresAt: Date.now() + 7_200_000, lifetimeMs: 7_200_000, confirmed: true };
    const q = refusingQueue({ cart: null, session: shopper, backoff: null, signInId: 'si-v/+"\\5' });
    q.stall(); // the worker's first read (its preload) is stuck
    const w = routedWorker({ preset: 'spree' }, NO_CREDENTIALS, { 'POST /spree_oauth/revoke': () => Response.json({}) }, Date.now, { storage: q.storage });
    const cart = { token: 'vC/a+r"t\\5', number: 'R525' };
    await w.worker.actions.keepCart(cart, 'si-v/+"\\5', w.keepAlive, new StorageBudget(30)); // late: over nothing read
    await q.land(); // the first read answers: signed in
    await q.refuse(); // the cart's write is refused: the memory store takes over
    await w.settled();
    const { state } = await w.worker.actions.getState();
    const gone = await revoked(w.calls);
    assert.deepEqual(
      { signedIn: state.signedIn, cart: state.cart?.number ?? null, revoked: gone.includes(shopper.refreshToken) },
      { signedIn: true, cart: 'R525', revoked: false },
    );
  });
});

// A late write lands while a later one is on its way (its catch-up waits for that one), and a re-read of
// storage (another worker's change heard, or the connection closed) answers behind it. The memory copy,
// forgotten for the re-read, is left empty: each request then reads storage again, behind the write
// still on its way, and goes on as a guest's once its wait has passed, though storage answered.
describe('a re-read answered while a late write\'s catch-up waits for a later write', () => {
  it('fills the memory copy that the re-read forgot', { timeout: 10_000 }, async () => {
    const shopper = { accessToken: 'mA/c+c"e\\6', refreshToken: 'mR+e/f"r\\6', expiresAt: Date.now() + 7_200_000, lifetimeMs: 7_200_000, confirmed: true };
    const q = refusingQueue({ cart: null, session: shopper, backoff: null });
    const held = new HeldCredentials(q.storage, { failed: () => {}, superseded: () => {} });
    await held.load();
    q.stall();
    const cart = { token: 'mC/a+r"t\\6', number: 'R626' };
    await held.update((previous) => ({ ...previous, cart }), new StorageBudget(30)); // late
    held.invalidate(); // another worker's change heard: a re-read, behind the cart's write
    const key = 'k/e+y"\\6';
    const keyed = held.persist((previous) => ({ ...previous, refreshKey: { refreshToken: shopper.refreshToken, key } }), new StorageBudget(5_000)); // on its way
    await q.land(); // the cart's write lands (late): its catch-up waits for the persist
    await q.land(); // the re-read answers
    const answered = await held.load(new StorageBudget(100));
    assert.deepEqual(
      { memory: held.current?.session?.refreshToken ?? null, answered: answered.session?.refreshToken ?? null, cart: answered.cart?.number ?? null },
      { memory: shopper.refreshToken, answered: shopper.refreshToken, cart: 'R626' },
    );
    while (q.queue.length > 0) await q.land();
    assert.equal((await keyed)?.refreshKey?.key, key);
  });
});

describe('a page request after a re-read answered while a late cart write\'s catch-up waits (worker)', () => {
  it('goes with the bearer the re-read found, not as a guest\'s', { timeout: 20_000 }, async () => {
    const shopper = { accessToken: 'nA/c+c"e\\7', refreshToken: 'nR+e/f"r\\7', expiresAt: Date.now() + 7_200_000, lifetimeMs: 7_200_000, confirmed: true };
    const q = refusingQueue({ cart: null, session: shopper, backoff: null, signInId: 'si-n/+"\\7' });
    const sent: (string | null)[] = [];
    const w = routedWorker({ preset: 'spree' }, NO_CREDENTIALS, {
      'GET /api/v2/storefront/account': (call) => (sent.push(call.request.headers.get('Authorization')), Response.json({ data: { id: '1', type: 'user', attributes: {} } })),
    }, Date.now, { storage: q.storage });
    assert.equal((await w.worker.actions.getState()).state.signedIn, true);
    q.stall();
    await w.worker.actions.keepCart({ token: 'nC/a+r"t\\7', number: 'R727' }, 'si-n/+"\\7', w.keepAlive, new StorageBudget(30)); // late
    w.worker.forgetMemoryCopy('closed'); // the connection closed: a re-read, behind the cart's write
    const second = w.worker.actions.keepCart({ token: 'nD/a+r"t\\8', number: 'R828' }, 'si-n/+"\\7', w.keepAlive, new StorageBudget(10_000)); // on its way (a slow disk)
    await q.land(); // the first cart's write lands (late): its catch-up waits for the second
    await q.land(); // the re-read answers: signed in
    await w.through(new Request(`${BASE}/api/v2/storefront/account`));
    while (q.queue.length > 0) await q.land();
    await second;
    await w.settled();
    assert.deepEqual(sent, [`Bearer ${shopper.accessToken}`]);
  });
});

// As above, with a re-read (another worker's change heard) in place of the first read: it answers with
// the shopper's session, and the write made while it was under way (a guess) is refused.
describe('a re-read answered by IndexedDB, the late write made during it refused', () => {
  it('the session the re-read found is kept in the memory store that takes over', { timeout: 10_000 }, async () => {
    const shopper = { accessToken: 'qA/c+c"e\\9', refreshToken: 'qR+e/f"r\\9', expiresAt: Date.now() + 7_200_000, lifetimeMs: 7_200_000, confirmed: true };
    const q = refusingQueue({ cart: null, session: shopper, backoff: null });
    const held = new HeldCredentials(q.storage, { failed: () => {}, superseded: () => {} });
    await held.load();
    q.stall();
    held.invalidate(); // a re-read, stuck
    await held.update((previous) => ({ ...previous, cart: { token: 'qC/a+r"t\\9', number: 'R999' } }), new StorageBudget(30)); // late: a guess
    await q.land(); // the re-read answers: the shopper
    await q.refuse(); // the write refused: the memory store takes over
    assert.deepEqual({ session: held.current?.session?.refreshToken ?? null, cart: held.current?.cart?.number ?? null }, { session: shopper.refreshToken, cart: 'R999' });
  });
});

// A late cart write lands while a later write is on its way (its catch-up waits: `#behind` is what it
// stored). Another worker's logout commits after it, and a re-read made after that logout answers
// with nothing held. The later write is then refused: storage held the logout under it, and the worker
// read that. The memory store that takes over must not start from the session the cart write stored.
describe('a re-read answered after a late write landed, with another worker\'s logout between, a later write refused', () => {
  for (const how of ['invalidate', 'reread'] as const) it(`keeps the logout the re-read found (${how})`, { timeout: 10_000 }, async () => {
    const shopper = { accessToken: 'zA/c+c"e\\1', refreshToken: 'zR+e/f"r\\1', expiresAt: Date.now() + 7_200_000, lifetimeMs: 7_200_000, confirmed: true };
    const q = refusingQueue({ cart: null, session: shopper, backoff: null, signInId: 'si-z/+"\\1' });
    const held = new HeldCredentials(q.storage, { failed: () => {}, superseded: () => {} });
    await held.load();
    q.stall();
    const cart = { token: 'zC/a+r"t\\1', number: 'R101' };
    await held.update((previous) => ({ ...previous, cart }), new StorageBudget(30)); // late: on its way
    const reread = how === 'invalidate' ? (held.invalidate(), null) : held.reread(new StorageBudget(10_000)); // a read, behind the cart's write
    const keyed = held.persist((previous) => ({ ...previous, backoff: { attempts: 1, until: 7 } }), new StorageBudget(10_000)); // on its way, behind the read
    await q.land(); // the cart's write lands (late): its catch-up waits for the persist
    await q.stored.update(() => NO_CREDENTIALS); // another worker's logout, ordered before the read
    await q.land(); // the read answers: nothing held
    if (reread !== null) assert.equal((await reread).session, null, 'the re-read found the logout');
    await q.refuse(); // the persist refused: the memory store takes over
    await keyed;
    const now = await held.reread(new StorageBudget(200));
    assert.deepEqual({ stored: now.session?.refreshToken ?? null, memory: held.current?.session?.refreshToken ?? null }, { stored: null, memory: null });
  });
});

describe('a worker: a re-read finds another worker\'s logout while a late cart write\'s catch-up waits, the later cart write refused', () => {
  it('stays logged out: the memory store that takes over does not bring the shopper back', { timeout: 20_000 }, async () => {
    const { routedWorker } = await import('./workerHarness.js');
    const shopper = { accessToken: 'yA/c+c"e\\2', refreshToken: 'yR+e/f"r\\2', expiresAt: Date.now() + 7_200_000, lifetimeMs: 7_200_000, confirmed: true };
    const q = refusingQueue({ cart: null, session: shopper, backoff: null, signInId: 'si-y/+"\\2' });
    const sent: (string | null)[] = [];
    const w = routedWorker({ preset: 'spree' }, NO_CREDENTIALS, {
      'GET /api/v2/storefront/account': (call) => (sent.push(call.request.headers.get('Authorization')), Response.json({ data: { id: '1', type: 'user', attributes: {} } })),
      'POST /spree_oauth/revoke': () => Response.json({}),
    }, Date.now, { storage: q.storage });
    assert.equal((await w.worker.actions.getState()).state.signedIn, true);
    q.stall();
    await w.worker.actions.keepCart({ token: 'yC/a+r"t\\2', number: 'R202' }, 'si-y/+"\\2', w.keepAlive, new StorageBudget(30)); // late
    w.worker.forgetMemoryCopy('closed'); // a re-read, behind the cart's write
    const second = w.worker.actions.keepCart({ token: 'yD/a+r"t\\3', number: 'R303' }, 'si-y/+"\\2', w.keepAlive, new StorageBudget(10_000)); // on its way
    await q.land(); // the first cart's write lands (late): its catch-up waits for the second
    await q.stored.update(() => NO_CREDENTIALS); // another worker's logout, ordered before the re-read
    await q.land(); // the re-read answers: nothing held
    const told = (await w.worker.actions.getState()).state.signedIn;
    await q.refuse(); // the second cart write refused: the memory store takes over
    await second.catch(() => {});
    await w.settled();
    const { state } = await w.worker.actions.getState();
    assert.deepEqual({ told, signedIn: state.signedIn }, { told: false, signedIn: false }, 'the pages told the shopper logged out, then signed in again');
  });
});

// `#behind` after a late write landed while a later write is on its way: what storage held under the
// writes in flight. Another worker's change heard since (an invalidate()) says storage moved on from
// it; if the later write is then refused before the re-read answers, the memory store that takes over
// must not start from what `#behind` held before that change.
describe('#behind stale at a loss: another worker\'s logout heard after a late write landed, the later write refused before the re-read answers', () => {
  for (const [later, cartLate] of [['persist', true], ['update', true], ['persist', false]] as const) it(`does not bring the logged-out shopper back in the memory store (${later}${cartLate ? '' : '; control: the cart write lands in time, no `#behind`'})`, { timeout: 10_000 }, async () => {
    const shopper = { accessToken: 'bA/c+c"e\\1', refreshToken: 'bR+e/f"r\\1', expiresAt: Date.now() + 7_200_000, lifetimeMs: 7_200_000, confirmed: true };
    const q = refusingQueue({ cart: null, session: shopper, backoff: null, signInId: 'si-b/+"\\1' });
    const held = new HeldCredentials(q.storage, { failed: () => {}, superseded: () => {} });
    await held.load();
    q.stall();
    const cart = { token: 'bC/a+r"t\\1', number: 'R515' };
    const first = held.update((previous) => ({ ...previous, cart }), new StorageBudget(cartLate ? 30 : 10_000)); // late: on its way
    if (cartLate) await first;
    // Another worker's logout, made after the cart write (queued behind it in IndexedDB) ...
    const logout = q.storage.update(() => NO_CREDENTIALS);
    // ... and this worker's later write, made after that logout: storage applies it over the logout.
    const change = (previous: Credentials): Credentials => ({ ...previous, backoff: { attempts: 1, until: 9 } });
    const keyed = later === 'persist' ? held.persist(change, new StorageBudget(10_000)) : held.update(change, new StorageBudget(10_000));
    await q.land(); // the cart write lands (late): its catch-up waits for the later write (`#behind`: the shopper with the cart)
    await q.land(); // the other worker's logout commits
    await logout;
    held.invalidate(); // its broadcast heard: a re-read, behind this worker's later write
    await q.refuse(); // the later write refused: the memory store takes over
    await keyed;
    const now = await held.reread(new StorageBudget(200));
    assert.deepEqual(
      { stored: now.session?.refreshToken ?? null, memory: held.current?.session?.refreshToken ?? null },
      { stored: null, memory: null },
      'the logout committed under the refused write is undone in the memory store',
    );
  });
});

describe('a worker: another worker\'s logout heard after a late cart write landed, the later cart write refused before the re-read answers', () => {
  it('stays logged out: no page request goes with the logged-out shopper\'s bearer', { timeout: 20_000 }, async () => {
    const shopper = { accessToken: 'cA/c+c"e\\2', refreshToken: 'cR+e/f"r\\2', expiresAt: Date.now() + 7_200_000, lifetimeMs: 7_200_000, confirmed: true };
    const q = refusingQueue({ cart: null, session: shopper, backoff: null, signInId: 'si-c/+"\\2' });
    const sent: (string | null)[] = [];
    const w = routedWorker({ preset: 'spree' }, NO_CREDENTIALS, {
      'GET /api/v2/storefront/account': (call) => (sent.push(call.request.headers.get('Authorization')), Response.json({ data: { id: '1', type: 'user', attributes: {} } })),
      'POST /spree_oauth/revoke': () => Response.json({}),
      'POST /spree_oauth/token': () => Response.json({ error: 'invalid_grant' }, { status: 400 }),
    }, Date.now, { storage: q.storage });
    assert.equal((await w.worker.actions.getState()).state.signedIn, true);
    q.stall();
    await w.worker.actions.keepCart({ token: 'cC/a+r"t\\2', number: 'R212' }, 'si-c/+"\\2', w.keepAlive, new StorageBudget(30)); // late
    const logout = q.storage.update(() => NO_CREDENTIALS); // another worker's logout, queued behind the cart write
    const second = w.worker.actions.keepCart({ token: 'cD/a+r"t\\3', number: 'R313' }, 'si-c/+"\\2', w.keepAlive, new StorageBudget(10_000)); // behind the logout
    await q.land(); // the first cart write lands (late): its catch-up waits for the second
    await q.land(); // the logout commits
    await logout;
    w.worker.forgetMemoryCopy('closed'); // a re-read (as on hearing the logout), behind the second cart write
    await q.refuse(); // the second cart write refused: the memory store takes over
    await second.catch(() => {});
    // A guest's account call is left to the browser, credential-less (`null`): the worker sends nothing.
    const answer = await w.through(new Request(`${BASE}/api/v2/storefront/account`));
    await w.settled();
    const { state } = await w.worker.actions.getState();
    assert.deepEqual({ signedIn: state.signedIn, leftToTheBrowser: answer === null, sent }, { signedIn: false, leftToTheBrowser: true, sent: [] });
  });
});
