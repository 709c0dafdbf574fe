// When the worker opens storage (src/sw/startAuthWorker.ts): an active worker as it starts, so
// that the request that woke it finds the credentials loading already; a request at once shares that
// one load; a release still waiting to serve opens nothing until a request. (Loading 100 ms after
// the start was measured and dropped: docs/performance.md.) Node with fake-indexeddb's
// IndexedDB, a scope with just what startAuthWorker reads of `self`, and the message listener it
// adds, called as the browser would.
import 'fake-indexeddb/auto';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { IDBFactory } from 'fake-indexeddb';
import { deleteDB, openDB } from 'idb';
import { MESSAGE_TAG, PROTOCOL_VERSION } from '../src/shared/protocol.js';
import { indexedDbStorage } from '../src/sw/credentialStorage.js';
import { startAuthWorker } from '../src/sw/startAuthWorker.js';

const BASE = 'https://shop.example/store';
const CART = { token: 'order-token', number: 'R100' };
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
/** Time for fake-indexeddb to answer. */
const settle = (): Promise<void> => sleep(10);
const GET_STATE = { tag: MESSAGE_TAG, v: PROTOCOL_VERSION, baseUrl: BASE, type: 'getState' };
const GUEST_WITH_CART = { tag: MESSAGE_TAG, v: PROTOCOL_VERSION, ok: true, state: { signedIn: false, accessTokenExpiresAt: null, cart: { number: CART.number }, pendingWrites: 0 }, changeId: null };

/** A fresh IndexedDB holding `CART` for BASE, whose `open` calls are counted from now on. */
async function databaseWithACart() {
  const factory = new IDBFactory();
  globalThis.indexedDB = factory;
  const seeding = indexedDbStorage(BASE, { lost: () => {}, settleWrites: async () => {} });
  await seeding.update((previous) => ({ ...previous, cart: CART }));
  const counted = { opens: 0 };
  const open = factory.open.bind(factory);
  factory.open = (...args: Parameters<IDBFactory['open']>) => {
    counted.opens++;
    return open(...args);
  };
  return counted;
}

/** The part of ServiceWorkerGlobalScope that startAuthWorker and its listener use; messages are dispatched by hand. */
function workerScope(state = 'activated') {
  const listeners = new Map<string, (event: unknown) => void>();
  const sent: Request[] = [];
  const scope = {
    fetch: async (input: RequestInfo, init?: RequestInit) => {
      sent.push(new Request(input, init));
      return new Response('{}');
    },
    location: new URL('https://shop.example/storefront-auth-sw.js'),
    serviceWorker: { state },
    clients: { matchAll: async () => [] },
    addEventListener: (type: string, listener: (event: unknown) => void) => void listeners.set(type, listener),
  };
  /** Posts `data` as a page would, with a port; resolves with the worker's reply. */
  const post = (data: unknown): Promise<unknown> =>
    new Promise((resolve) => {
      const listener = listeners.get('message');
      assert.ok(listener, 'a message listener was added at start');
      listener({ data, ports: [{ postMessage: resolve }], waitUntil: (work: Promise<unknown>) => void work });
    });
  return { scope, post, sent };
}

describe('starting the worker', () => {
  const saved = { self: (globalThis as { self?: unknown }).self, indexedDB: globalThis.indexedDB, BroadcastChannel: globalThis.BroadcastChannel };
  before(() => {
    // No channel: Node's would keep the test process alive, and nothing here announces.
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  });
  after(() => {
    Object.assign(globalThis, saved);
  });

  it('an active worker opens the database as it starts, and the bridge message then finds the stored cart in memory', async () => {
    const counted = await databaseWithACart();
    const { scope, post } = workerScope();
    (globalThis as { self?: unknown }).self = scope;

    startAuthWorker({ baseUrl: BASE }, {});
    await settle();
    assert.equal(counted.opens, 1, 'the credentials load before anything asks for them');
    assert.deepEqual(await post(GET_STATE), GUEST_WITH_CART);
    assert.equal(counted.opens, 1, 'no second open, no wait');
  });

  it('the storefront request that woke the worker shares the load begun at start, and sends the stored cart token', async () => {
    const counted = await databaseWithACart();
    const { scope, sent } = workerScope();
    (globalThis as { self?: unknown }).self = scope;

    const worker = startAuthWorker({ baseUrl: BASE }, {});
    // Still loading: the request path matches without a decision, and makes it once the credentials are read.
    const url = new URL(`${BASE}/api/v2/storefront/cart`);
    const request = new Request(url);
    assert.equal(worker.requests.match(request, url), true);
    const response = await worker.requests.handle(request, url, undefined, (work) => void work);
    assert.equal(response.status, 200);
    assert.equal(counted.opens, 1);
    assert.equal(sent[0]?.headers.get('X-Store-Order-Token'), CART.token);
  });

  it('a release still waiting to serve (installed, not active) opens nothing by itself', async () => {
    const counted = await databaseWithACart();
    const { scope, post } = workerScope('installed');
    (globalThis as { self?: unknown }).self = scope;

    startAuthWorker({ baseUrl: BASE }, {});
    // Far longer than the load at start takes an active worker (settle, above).
    await sleep(150);
    assert.equal(counted.opens, 0, 'the release it replaces still uses the database');
    assert.deepEqual(await post(GET_STATE), GUEST_WITH_CART);
    assert.equal(counted.opens, 1);
  });
  it('a cart kept just as another tab deletes the database is not held afterwards: the deletion took it too', async () => {
    globalThis.indexedDB = new IDBFactory();
    const { scope, post } = workerScope();
    (globalThis as { self?: unknown }).self = scope;
    const worker = startAuthWorker({ baseUrl: BASE }, {});
    await settle();
    // The cart's write transaction is under way when the deletion's versionchange reaches the worker.
    await Promise.all([worker.actions.keepCart({ token: '/order-token', number: 'R100' }, null, () => {}), deleteDB('storefront-auth')]);
    await settle();
    const db = await openDB('storefront-auth');
    const stored = db.objectStoreNames.contains('credentials') ? await db.get('credentials', BASE) : undefined;
    db.close();
    assert.equal(stored, undefined, 'nothing is stored after the deletion');
    assert.equal(((await post(GET_STATE)) as { state: { cart: unknown } }).state.cart, null);
  });
});
