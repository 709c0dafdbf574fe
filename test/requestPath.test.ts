// The request path of the orchestrator (CONTRACT.md, "What the worker does to requests"), in Node
// with memory storage and a recording fetch: `match` decides synchronously once the credentials
// are in memory, `handle` uses that decision without a storage read, and requests that need no
// credential are not matched at all, so they never reach respondWith.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AuthWorker } from '../src/sw/authWorker.js';
import { memoryStorage, type CredentialStorage, type Credentials } from '../src/sw/credentialStorage.js';
import { resolveOptions } from '../src/sw/options.js';

const BASE = 'https://shop.example/store';
const CART = { token: 'order-token', number: 'R100' };
const options = resolveOptions({ baseUrl: BASE }, 'https://shop.example/storefront-auth-sw.js');

/** Memory storage that counts reads and can hold the first one back. */
function countingStorage(initial: Credentials, gate?: Promise<void>) {
  const inner = memoryStorage(initial);
  const counts = { reads: 0 };
  const storage: CredentialStorage = {
    async read() {
      counts.reads++;
      if (gate !== undefined) await gate;
      return inner.read();
    },
    update: (change) => inner.update(change),
  };
  return { storage, counts };
}

/** A worker over `storage` whose fetch records each request and answers 200. */
function authWorker(storage: CredentialStorage) {
  const sent: Request[] = [];
  const logs: string[] = [];
  const worker = new AuthWorker(options, {
    fetch: async (input, init) => {
      sent.push(new Request(input, init));
      return new Response('{}', { status: 200 });
    },
    now: () => Date.now(),
    storage,
    log: (message) => logs.push(message),
  });
  // As installStorefrontAuth does in an active worker.
  worker.preload();
  return { worker, sent, logs };
}

const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

describe('AuthWorker request path', () => {
  // The real announcer opens a BroadcastChannel, which would keep Node's event loop alive; without
  // one it announces nothing, which these tests do not need.
  const channel = globalThis.BroadcastChannel;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  });
  after(() => {
    globalThis.BroadcastChannel = channel;
  });

  it('matches with the decision itself once the credentials are in memory, and handles it without a storage read', async () => {
    const { storage, counts } = countingStorage({ cart: CART, session: null });
    const { worker, sent, logs } = authWorker(storage);
    await settle();
    const readsAfterLoad = counts.reads;
    const url = new URL(`${BASE}/api/v2/storefront/cart`);
    const request = new Request(url);
    const decision = worker.match(request, url);
    assert.deepEqual(decision, { kind: 'cartOrCheckout', credential: 'orderToken', capture: null });
    assert.ok(decision !== null && decision !== true);
    const response = await worker.handle(request, url, decision);
    assert.equal(response.status, 200);
    assert.equal(sent.length, 1);
    assert.equal(sent[0]?.headers.get('X-Store-Order-Token'), CART.token);
    assert.equal(counts.reads, readsAfterLoad, 'no storage read on the request path');
    assert.deepEqual(logs, ['GET /store/api/v2/storefront/cart: orderToken']);
  });

  it('does not match requests that need nothing, so they never reach respondWith', async () => {
    const { storage } = countingStorage({ cart: null, session: null });
    const { worker } = authWorker(storage);
    await settle();
    for (const path of ['/api/v2/storefront/products', '/api/v2/storefront/account', '/api/v2/storefront/cart']) {
      const url = new URL(`${BASE}${path}`);
      assert.equal(worker.match(new Request(url), url), null, path);
    }
    const elsewhere = new URL('https://other.example/store/api/v2/storefront/cart');
    assert.equal(worker.match(new Request(elsewhere), elsewhere), null);
  });

  it('matches every storefront request while the credentials load, and decides once they are in', async () => {
    let open = (): void => {};
    const { storage } = countingStorage({ cart: CART, session: null }, new Promise<void>((resolve) => (open = resolve)));
    const { worker, sent } = authWorker(storage);
    const url = new URL(`${BASE}/api/v2/storefront/checkout`);
    const request = new Request(url);
    assert.equal(worker.match(request, url), true);
    const handled = worker.handle(request, url);
    await settle();
    assert.equal(sent.length, 0, 'waits for the credentials');
    open();
    assert.equal((await handled).status, 200);
    assert.equal(sent[0]?.headers.get('X-Store-Order-Token'), CART.token);
  });
});
