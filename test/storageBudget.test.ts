// One page request waits for storage at most once for its reads and once for its writes, however
// many steps it takes (docs/behaviour.md, "Bounds on every wait"): the allowance itself,
// HeldCredentials spending it, and whole requests through the request path over storage that never
// answers (an open queued behind a deletion another tab's connection blocks), with a short bound.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Announcer } from '../src/sw/announcer.js';
import { BridgeActions } from '../src/sw/bridgeActions.js';
import { NO_CREDENTIALS, type CredentialStorage } from '../src/sw/credentialStorage.js';
import { HeldCredentials } from '../src/sw/heldCredentials.js';
import { resolveOptions, type StorefrontAuthOptions } from '../src/sw/options.js';
import { sendOwn } from '../src/sw/outbound.js';
import { RequestPath, type KeepAlive } from '../src/sw/requestPath.js';
import { SessionRefresher } from '../src/sw/sessionRefresher.js';
import { boundedWait, StorageBudget } from '../src/sw/storageBudget.js';
import { storeApiJwt, stuckStorage } from './fakes.js';

const BOUND = 200;
const BASE = 'https://shop.example/store';
const HOUR = 3_600_000;
const keepAlive: KeepAlive = (work) => void work.catch(() => {});

const noLoss = { failed: () => {}, superseded: () => {} };

/** How long `work` took, ms. */
async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

describe('StorageBudget', () => {
  it('holds one allowance for reads and one for writes, each spent by the waits of its kind', () => {
    const budget = new StorageBudget(2_000);
    assert.deepEqual([budget.left('read'), budget.left('write')], [2_000, 2_000]);
    budget.spend('read', 1_500);
    assert.deepEqual([budget.left('read'), budget.left('write')], [500, 2_000]);
    budget.spend('read', 900);
    budget.spend('write', 10);
    assert.deepEqual([budget.left('read'), budget.left('write')], [0, 1_990]);
  });

  it('carries a rider (a request joining a refresh): each wait there holds it as one of its own would, for as long as it sat through it, until the run ends', async () => {
    const run = new StorageBudget(BOUND);
    const rider = new StorageBudget(BOUND);
    const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
    await boundedWait(sleep(10), () => undefined, 'read', run);
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    let gone = false;
    // A wait under way when it joins: only the part since. The bounds are read off the clock, not
    // assumed from the sleeps, which a busy machine stretches.
    const readStarted = performance.now();
    const reading = boundedWait(sleep(50), () => undefined, 'read', run);
    // 20 ms by the clock: Node's timers count from the event loop's cached time, so on a busy machine
    // a sleep may end early by the clock.
    while (performance.now() - readStarted < 20) await sleep(5);
    const joined = performance.now();
    void run.carry(rider, ended).then(() => (gone = true));
    assert.equal(rider.left('read'), BOUND, 'a wait over before it joined is not its own');
    await reading;
    const readEnded = performance.now();
    // Charged as a wait of its own is, as this one's end reaches it: a few microtasks later, so the
    // most it may be charged is read after those.
    await sleep(0);
    const readSettled = performance.now();
    const readCharged = BOUND - rider.left('read');
    assert.ok(readCharged > 0 && readCharged <= readSettled - joined + 1, `${readCharged} ms charged, ${readSettled - joined} since it joined`);
    assert.ok(readCharged < readEnded - readStarted - 15, `${readCharged} ms charged of ${readEnded - readStarted}: the part before it joined too`);
    // One that began after it joined: the whole of it.
    const writeStarted = performance.now();
    await boundedWait(sleep(30), () => undefined, 'write', run);
    const writeEnded = performance.now();
    await sleep(0);
    const writeSettled = performance.now();
    const writeCharged = BOUND - rider.left('write');
    assert.ok(writeCharged >= writeEnded - writeStarted - 2 && writeCharged <= writeSettled - writeStarted + 1, `${writeCharged} ms charged of ${writeEnded - writeStarted}`);
    const charged = rider.left('write');
    end();
    await ended;
    await boundedWait(sleep(10), () => undefined, 'write', run);
    assert.equal(rider.left('write'), charged, 'the run over: no longer charged');
    assert.ok(run.left('read') < BOUND - 55, "the run's own allowance is its own");
    assert.equal(gone, false, 'no wait outlasted its allowance');
  });

  it('lets a rider go on once a wait under way there outlasts its own allowance of that kind; the wait goes on', async () => {
    const run = new StorageBudget(BOUND);
    const rider = new StorageBudget(BOUND);
    rider.spend('write', BOUND - 30);
    const stuck = new Promise<string>(() => {});
    const waited = boundedWait(stuck, () => 'from memory', 'write', run);
    let leftAt: number | undefined;
    const started = performance.now();
    void run.carry(rider, waited).then(() => (leftAt = performance.now() - started));
    await new Promise((resolve) => setTimeout(resolve, 80));
    assert.ok(leftAt !== undefined && leftAt >= 25 && leftAt < 80, `left after ${leftAt} ms`);
    assert.ok(rider.left('write') < 1, `charged all it had left: ${rider.left('write')} ms remain`);
    assert.equal(await waited, 'from memory', 'the wait itself still had its own allowance to run');
    await boundedWait(new Promise<void>((resolve) => setTimeout(resolve, 10)), () => undefined, 'read', run);
    assert.equal(rider.left('read'), BOUND, 'not carried any more');
  });
});

describe('HeldCredentials within one request’s budget', () => {
  it('waits once for its reads and once for its writes, then answers from memory at once', async () => {
    const stuck = stuckStorage();
    const held = new HeldCredentials(stuck.storage, noLoss, BOUND);
    const budget = held.budget();
    const first = await timed(() => held.load(budget));
    assert.ok(first.ms >= BOUND - 5, `the first read waited its bound (${first.ms} ms)`);
    assert.deepEqual(first.value, NO_CREDENTIALS);
    const again = await timed(() => Promise.all([held.load(budget), held.reread(budget)]));
    assert.ok(again.ms < BOUND / 2, `later reads answer at once (${again.ms} ms)`);
    const cart = { token: 'order-token', number: 'R1' };
    const write = await timed(() => held.update((previous) => ({ ...previous, cart }), budget));
    assert.ok(write.ms >= BOUND - 5, `the first write waited its own bound (${write.ms} ms)`);
    const second = await timed(() => held.update((previous) => ({ ...previous, backoff: null }), budget));
    assert.ok(second.ms < BOUND / 2, `a later write answers at once (${second.ms} ms)`);
    assert.deepEqual(held.current?.cart, cart, 'answered from memory');
    // The writes land, in order, once storage answers.
    stuck.release();
    await new Promise((resolve) => setTimeout(resolve, 5));
    stuck.release();
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.deepEqual(stuck.stored().cart, cart);
  });

  it('a read that settles in time spends only what it took; another request has its own allowance', async () => {
    let answer = (): void => {};
    const storage: CredentialStorage = { read: () => new Promise((resolve) => (answer = () => resolve(NO_CREDENTIALS))), update: (change) => Promise.resolve(change(NO_CREDENTIALS)) };
    const held = new HeldCredentials(storage, noLoss, BOUND);
    const budget = held.budget();
    const reading = held.reread(budget);
    setTimeout(() => answer(), BOUND / 4);
    await reading;
    assert.ok(budget.left('read') > BOUND / 2 && budget.left('read') < BOUND, String(budget.left('read')));
    assert.equal(held.budget().left('read'), BOUND);
  });

  it('requests that share one storage read wait on it each within their own allowance, and start no other', async () => {
    let reads = 0;
    const storage: CredentialStorage = { read: () => (reads++, new Promise(() => {})), update: (change) => Promise.resolve(change(NO_CREDENTIALS)) };
    const held = new HeldCredentials(storage, noLoss, BOUND);
    await Promise.all([held.load(held.budget()), held.load(held.budget())]);
    await held.load(held.budget());
    assert.equal(reads, 1, 'one read in flight, however many requests wait on it');
  });
});

describe('a page request over storage that never answers', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  });
  after(() => {
    globalThis.BroadcastChannel = channel;
  });

  /** The request path as AuthWorker wires it, over `storage` with the short bound, and a server answering by `answer`. */
  function requestPath(storage: CredentialStorage, answer: (request: Request) => Response, options: StorefrontAuthOptions = {}) {
    const resolved = resolveOptions({ baseUrl: BASE, ...options }, 'https://shop.example/storefront-auth-sw.js');
    const held = new HeldCredentials(storage, noLoss, BOUND);
    const sent: Request[] = [];
    const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
      const request = new Request(input, init);
      sent.push(request);
      return answer(request);
    };
    const now = (): number => Date.now();
    const context = { options: resolved, held, announcer: new Announcer(resolved.baseUrl, () => held.invalidate(), () => {}), fetch, send: (wire: Parameters<typeof sendOwn>[2], limits?: Parameters<typeof sendOwn>[4]) => sendOwn(fetch, resolved.baseUrl, wire, now, limits), now, log: undefined, writes: null };
    const refresher = new SessionRefresher({ ...context, newKey: () => 'key-1' }, `test:${Math.random()}`);
    const requests = new RequestPath({ ...context, refresher, keeper: new BridgeActions({ ...context, refresher }) });
    /** Sends `request` as the fetch listener would, and times its answer. */
    const through = (request: Request) => {
      const url = new URL(request.url);
      const decision = requests.match(request, url);
      assert.notEqual(decision, null, 'matched');
      return timed(() => requests.handle(request, url, decision === true || decision === null ? undefined : decision, keepAlive));
    };
    return { through, sent, held, requests };
  }

  it("a page's new cart waits once to read and once to write what it brought, not once per step", async () => {
    const cart = { data: { id: '1', type: 'cart', attributes: { number: 'R200', token: 'order-new' } } };
    const { through, held } = requestPath(stuckStorage().storage, () => Response.json(cart, { status: 201 }));
    const { value: response, ms } = await through(new Request(`${BASE}/api/v2/storefront/cart`, { method: 'POST' }));
    assert.equal(response.status, 201);
    // The decision's load, the load before sending and the cart's write: two allowances, not three waits.
    assert.ok(ms >= 2 * BOUND - 10 && ms < 3 * BOUND - 20, `answered in ${ms} ms`);
    assert.deepEqual(held.current?.cart, { token: 'order-new', number: 'R200' }, 'kept in memory meanwhile');
  });

  it('spree-v3: a due refresh whose key storage cannot take sends no grant, within the same two allowances, and the request goes with the still-valid JWT', async () => {
    const jwt = (leftS: number) => storeApiJwt(Date.now() / 1000 + leftS);
    // Due: 5 s left of an hour. The memory copy holds it (loaded before storage got stuck).
    const stale = { accessToken: jwt(5), refreshToken: 'rT9stale', expiresAt: Date.now() + 5_000, lifetimeMs: HOUR, confirmed: true };
    const stuck = stuckStorage({ cart: null, session: stale, backoff: null });
    const { through, sent, held } = requestPath(
      stuck.storage,
      (request) => (request.url.endsWith('/auth/refresh') ? Response.json({ token: jwt(3600), refresh_token: 'rT9fresh', user: {} }) : Response.json({ id: 'cus_1' })),
      { preset: 'spree-v3', publishableKey: 'pk_test' },
    );
    const loading = held.load();
    stuck.release();
    await loading;

    const { value: response, ms } = await through(new Request(`${BASE}/api/v3/store/customers/me`, { headers: { 'X-Spree-Api-Key': 'pk_test' } }));
    assert.equal(response.status, 200);
    // The refresh's re-read and the key's write, which storage never takes: two allowances.
    assert.ok(ms >= 2 * BOUND - 10 && ms < 3 * BOUND - 20, `answered in ${ms} ms`);
    assert.deepEqual(sent.map((request) => new URL(request.url).pathname), ['/store/api/v3/store/customers/me'], 'no grant whose key is not on disk');
    assert.equal(sent[0]?.headers.get('Authorization'), `Bearer ${stale.accessToken}`);
    assert.deepEqual(held.current, { cart: null, session: stale, backoff: null });
  });

  it('v2 (no key to store): a due refresh on the way waits no more: its re-read and its writes share the same two allowances', async () => {
    const stale = { accessToken: 'aT7stale', refreshToken: 'rT7stale', expiresAt: Date.now() + 5_000, lifetimeMs: HOUR, confirmed: true };
    const stuck = stuckStorage({ cart: null, session: stale, backoff: null });
    const { through, sent, held } = requestPath(stuck.storage, (request) =>
      request.url.endsWith('/store_oauth/token') ? Response.json({ access_token: 'aT7fresh', token_type: 'Bearer', expires_in: 3600, refresh_token: 'rT7fresh', created_at: Date.now() / 1000 }) : Response.json({ data: {} }),
    );
    const loading = held.load();
    stuck.release();
    await loading;

    const { value: response, ms } = await through(new Request(`${BASE}/api/v2/storefront/account`));
    assert.equal(response.status, 200);
    // The refresh's re-read and the rotation's write: two allowances.
    assert.ok(ms >= 2 * BOUND - 10 && ms < 3 * BOUND - 20, `answered in ${ms} ms`);
    assert.deepEqual(sent.map((request) => new URL(request.url).pathname), ['/store/store_oauth/token', '/store/api/v2/storefront/account']);
    assert.equal(sent[1]?.headers.get('Authorization'), 'Bearer aT7fresh');
    assert.equal(held.current?.session?.refreshToken, 'rT7fresh');
  });
});
