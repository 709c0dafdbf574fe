// The request path (docs/behaviour.md, "What the worker does to requests"), through the
// orchestrator, in Node with memory storage and a recording fetch: `match` decides synchronously
// once the credentials are in memory, `handle` uses that decision without a storage read, and
// requests that need no credential are not matched at all, so they never reach respondWith.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AuthWorker } from '../src/sw/authWorker.js';
import { memoryStorage, type CredentialStorage, type Credentials } from '../src/sw/credentialStorage.js';
import { resolveOptions } from '../src/sw/options.js';
import type { KeepAlive } from '../src/sw/requestPath.js';
import { routedWorker } from './workerHarness.js';

const BASE = 'https://shop.example/store';
const CART = { token: 'order-token', number: 'R100' };
const HOUR = 3_600_000;
/** What a decision carries for a page that set no credential header of its own. */
const NO_PAGE_CREDENTIAL = { authorization: false, orderToken: false, sealedBearer: false, sealedCart: false };
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
    toPages: () => {},
    log: (message) => logs.push(message),
  });
  // As installStorefrontAuth does in an active worker.
  worker.preload();
  return { worker, sent, logs };
}

const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));
const keepAlive: KeepAlive = (work) => void work.catch(() => {});

describe('the request path', () => {
  // The real announcer opens a BroadcastChannel, which would keep Node's event loop alive; without
  // one it announces nothing to other workers, which these tests do not need.
  const channel = globalThis.BroadcastChannel;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  });
  after(() => {
    globalThis.BroadcastChannel = channel;
  });

  it('matches with the decision itself once the credentials are in memory, and handles it without a storage read', async () => {
    const { storage, counts } = countingStorage({ cart: CART, session: null, backoff: null });
    const { worker, sent, logs } = authWorker(storage);
    await settle();
    const readsAfterLoad = counts.reads;
    assert.equal(readsAfterLoad, 1, 'preload read storage once');
    const url = new URL(`${BASE}/api/v2/storefront/cart`);
    const request = new Request(url);
    const decision = worker.requests.match(request, url);
    assert.deepEqual(decision, { kind: 'cartOrCheckout', credential: 'orderToken', capture: null, page: NO_PAGE_CREDENTIAL });
    assert.ok(decision !== null && decision !== true);
    const response = await worker.requests.handle(request, url, decision, keepAlive);
    assert.equal(response.status, 200);
    assert.equal(sent.length, 1);
    assert.equal(sent[0]?.headers.get('X-Store-Order-Token'), CART.token);
    assert.equal(counts.reads, readsAfterLoad, 'no storage read on the request path');
    assert.deepEqual(logs, ['GET /store/api/v2/storefront/cart: orderToken']);
  });

  it('after a 401, never replays a request with the pair another sign-in stored meanwhile: the page gets the 401', async () => {
    const pair = (n: string) => ({ accessToken: `${n}/access+${n}`, refreshToken: `+${n}/refresh`, expiresAt: Date.now() + HOUR, lifetimeMs: HOUR, confirmed: true });
    const first: Credentials = { cart: null, session: pair('a'), backoff: null, signInId: 'sign-in-a' };
    const { through, calls, storage } = routedWorker({}, first, {
      'GET /api/v2/storefront/account': async () => {
        // While it is on its way, another tab's worker stores a logout and another shopper's login.
        await storage.update(() => ({ cart: null, session: pair('b'), backoff: null, signInId: 'sign-in-b' }));
        return Response.json({ error: 'The access token was revoked' }, { status: 401 });
      },
    });
    await settle();
    assert.equal((await through(new Request(`${BASE}/api/v2/storefront/account`)))?.status, 401);
    assert.deepEqual(calls.map((call) => call.request.headers.get('Authorization')), ['Bearer a/access+a']);
  });

  it('adds a bearer that is not due without a storage read', async () => {
    const session = { accessToken: 'access-1', refreshToken: 'refresh-1', expiresAt: Date.now() + HOUR, lifetimeMs: HOUR, confirmed: true };
    const { storage, counts } = countingStorage({ cart: null, session, backoff: null });
    const { worker, sent } = authWorker(storage);
    await settle();
    const readsAfterLoad = counts.reads;
    const url = new URL(`${BASE}/api/v2/storefront/account`);
    const request = new Request(url);
    const decision = worker.requests.match(request, url);
    assert.deepEqual(decision, { kind: 'account', credential: 'bearer', capture: null, page: NO_PAGE_CREDENTIAL });
    assert.ok(decision !== null && decision !== true);
    assert.equal((await worker.requests.handle(request, url, decision, keepAlive)).status, 200);
    assert.equal(sent.length, 1);
    assert.equal(sent[0]?.headers.get('Authorization'), 'Bearer access-1');
    assert.equal(counts.reads, readsAfterLoad, 'no storage read on the request path');
  });

  it('does not match requests that need nothing, so they never reach respondWith', async () => {
    const { storage } = countingStorage({ cart: null, session: null, backoff: null });
    const { worker } = authWorker(storage);
    await settle();
    for (const path of ['/api/v2/storefront/products', '/api/v2/storefront/account', '/api/v2/storefront/cart']) {
      const url = new URL(`${BASE}${path}`);
      assert.equal(worker.requests.match(new Request(url), url), null, path);
    }
    const elsewhere = new URL('https://other.example/store/api/v2/storefront/cart');
    assert.equal(worker.requests.match(new Request(elsewhere), elsewhere), null);
  });

  it('does not match navigations, nor no-cors requests to a base on another origin, whose answers the page cannot read', async () => {
    const { storage } = countingStorage({ cart: CART, session: null, backoff: null });
    const { worker } = authWorker(storage);
    await settle();
    const url = new URL(`${BASE}/api/v2/storefront/cart`);
    assert.notEqual(worker.requests.match(new Request(url), url), null, 'a cors fetch is matched');
    // The base is on the worker's own origin: a no-cors request to it is read by the page, so it is matched.
    assert.deepEqual(worker.requests.match(new Request(url, { mode: 'no-cors' }), url), { kind: 'cartOrCheckout', credential: 'orderToken', capture: null, page: NO_PAGE_CREDENTIAL });
    const api = 'https://api.shop.example/store';
    const elsewhere = new AuthWorker(resolveOptions({ baseUrl: api }, 'https://shop.example/storefront-auth-sw.js'), { fetch: () => Promise.reject(new Error('unused')), now: Date.now, storage: memoryStorage({ cart: CART, session: null, backoff: null }), toPages: () => {}, log: undefined });
    elsewhere.preload();
    await settle();
    const other = new URL(`${api}/api/v2/storefront/cart`);
    assert.notEqual(elsewhere.requests.match(new Request(other), other), null, 'a cors fetch to the other origin is matched');
    assert.equal(elsewhere.requests.match(new Request(other, { mode: 'no-cors' }), other), null);
    // Node's Request refuses mode 'navigate'; a browser's navigation request has it.
    const navigation = Object.defineProperty(new Request(url), 'mode', { value: 'navigate' });
    assert.equal(worker.requests.match(navigation, url), null);
  });

  it('matches every storefront request while the credentials load, and decides once they are in', async () => {
    let open = (): void => {};
    const { storage } = countingStorage({ cart: CART, session: null, backoff: null }, new Promise<void>((resolve) => (open = resolve)));
    const { worker, sent } = authWorker(storage);
    const url = new URL(`${BASE}/api/v2/storefront/checkout`);
    const request = new Request(url);
    assert.equal(worker.requests.match(request, url), true);
    const handled = worker.requests.handle(request, url, undefined, keepAlive);
    await settle();
    assert.equal(sent.length, 0, 'waits for the credentials');
    open();
    assert.equal((await handled).status, 200);
    assert.equal(sent[0]?.headers.get('X-Store-Order-Token'), CART.token);
  });

  it('sends a request matched while loading untouched once it turns out to need nothing', async () => {
    let open = (): void => {};
    const { storage } = countingStorage({ cart: null, session: null, backoff: null }, new Promise<void>((resolve) => (open = resolve)));
    const { worker, sent } = authWorker(storage);
    const url = new URL(`${BASE}/api/v2/storefront/cart`);
    const request = new Request(url, { headers: { 'X-Trace': '1' } });
    assert.equal(worker.requests.match(request, url), true);
    const handled = worker.requests.handle(request, url, undefined, keepAlive);
    open();
    assert.equal((await handled).status, 200);
    assert.equal(sent.length, 1);
    assert.equal(sent[0]?.headers.get('X-Store-Order-Token'), null);
    assert.equal(sent[0]?.headers.get('X-Trace'), '1');
  });

  describe('with sealed tokens', () => {
    const SESSION = { accessToken: 'access-real', refreshToken: 'refresh-real', expiresAt: Date.now() + HOUR, lifetimeMs: HOUR, confirmed: true };

    /** A worker whose server answers every request with `body`. */
    function answering(initial: Credentials, body: string, resolved = options) {
      const sent: Request[] = [];
      const worker = new AuthWorker(resolved, {
        fetch: async (input, init) => {
          sent.push(new Request(input, init));
          return new Response(body, { status: 200, headers: { 'Content-Type': 'application/vnd.api+json', 'X-Request-Id': 'r1' } });
        },
        now: () => Date.now(),
        storage: memoryStorage(initial),
        toPages: () => {},
        log: undefined,
      });
      worker.preload();
      return { worker, sent };
    }

    it('sends the real bearer and order token for the placeholders the page hands back', async () => {
      const { worker, sent } = answering({ cart: CART, session: SESSION, backoff: null }, '{}');
      await settle();
      const url = new URL(`${BASE}/api/v2/storefront/cart/associate?guest_order_token=sealed%3Acart`);
      const request = new Request(url, { method: 'PATCH', headers: { Authorization: 'Bearer sealed:access', 'X-Store-Order-Token': 'sealed:cart' } });
      const decision = worker.requests.match(request, url);
      assert.deepEqual(decision, { kind: 'cartOrCheckout', credential: 'bearer', capture: null, page: { ...NO_PAGE_CREDENTIAL, sealedBearer: true, sealedCart: true } }, 'a placeholder is the worker\'s credential, not the page\'s');
      await worker.requests.handle(request, url, decision === true || decision === null ? undefined : decision, keepAlive);
      assert.equal(sent[0]?.headers.get('Authorization'), 'Bearer access-real');
      // docs/security.md, "How sealing works": the server sees what an unsealed page would have
      // sent.
      assert.equal(sent[0]?.headers.get('X-Store-Order-Token'), CART.token, 'the placeholder header gets the real cart token');
      assert.equal(new URL(sent[0]?.url ?? '').searchParams.get('guest_order_token'), CART.token);
    });

    it('reads the bearer placeholder with its scheme in any case, as HTTP reads an auth scheme (RFC 9110 11.1)', async () => {
      const account = new URL(`${BASE}/api/v2/storefront/account`);
      for (const value of ['bearer sealed:access', 'BEARER sealed:access', 'Bearer  sealed:access']) {
        const { worker, sent } = answering({ cart: CART, session: SESSION, backoff: null }, '{}');
        await settle();
        const request = new Request(account, { headers: { Authorization: value } });
        const decision = worker.requests.match(request, account);
        await worker.requests.handle(request, account, decision === true || decision === null ? undefined : decision, keepAlive);
        assert.equal(sent[0]?.headers.get('Authorization'), 'Bearer access-real', `${value}: the worker's bearer, not the placeholder`);
      }
      // The placeholder itself is case-sensitive: another value is the page's own.
      const { worker } = answering({ cart: CART, session: SESSION, backoff: null }, '{}');
      await settle();
      assert.equal(worker.requests.match(new Request(account, { headers: { Authorization: 'Bearer SEALED:ACCESS' } }), account), null);
    });

    it('takes out a placeholder header it has nothing to swap for, signed out or without a cart, in memory or not', async () => {
      // After a logout an SDK still holds `sealed:access`: an unsealed page would send no bearer.
      const account = new URL(`${BASE}/api/v2/storefront/account`);
      const cart = new URL(`${BASE}/api/v2/storefront/cart`);
      const { worker, sent } = answering({ cart: null, session: null, backoff: null }, '{}');
      await settle();
      const withBearer = new Request(account, { headers: { Authorization: 'Bearer sealed:access', 'X-Trace': '1' } });
      const decision = worker.requests.match(withBearer, account);
      assert.deepEqual(decision, { kind: 'account', credential: null, capture: null, page: { ...NO_PAGE_CREDENTIAL, sealedBearer: true } }, 'handled, to take the placeholder out');
      await worker.requests.handle(withBearer, account, decision === true || decision === null ? undefined : decision, keepAlive);
      const withCartToken = new Request(cart, { headers: { 'X-Store-Order-Token': 'sealed:cart' } });
      await worker.requests.handle(withCartToken, cart, undefined, keepAlive);
      assert.equal(sent[0]?.headers.get('Authorization'), null);
      assert.equal(sent[0]?.headers.get('X-Trace'), '1');
      assert.equal(sent[1]?.headers.get('X-Store-Order-Token'), null);
      // The page's own (real) credential is still the page's: not matched, sent untouched.
      assert.equal(worker.requests.match(new Request(account, { headers: { Authorization: 'Bearer its-own' } }), account), null);
    });

    it('takes out a placeholder header whose cart went while the request waited for its refresh (a logout meanwhile)', async () => {
      const due = { accessToken: 'access-alice', refreshToken: 'refresh-alice', expiresAt: Date.now() + 10_000, lifetimeMs: HOUR, confirmed: true };
      let answerRefresh: (response: Response) => void = () => {};
      const { worker, calls, keepAlive: keep, settled, through } = routedWorker({ preset: 'spree' }, { cart: { token: 'alice-cart', number: 'R1' }, session: due, backoff: null }, {
        'POST /spree_oauth/token': () => new Promise<Response>((resolve) => (answerRefresh = resolve)),
        'POST /spree_oauth/revoke': () => Response.json({}),
        'GET /api/v2/storefront/cart': () => Response.json({ data: {} }),
      });
      const reading = through(new Request(`${BASE}/api/v2/storefront/cart`, { headers: { 'X-Spree-Order-Token': 'sealed:cart' } }));
      for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
      assert.equal(calls[0]?.route, 'POST /spree_oauth/token', 'the due refresh is on its way');
      await worker.actions.logout(keep);
      answerRefresh(Response.json({ access_token: 'access-2', token_type: 'Bearer', expires_in: 3600, refresh_token: 'refresh-2', created_at: Math.floor(Date.now() / 1000) }));
      await reading;
      await settled();
      const read = calls.find((call) => call.route === 'GET /api/v2/storefront/cart');
      assert.equal(read?.request.headers.get('Authorization'), null);
      assert.equal(read?.request.headers.get('X-Spree-Order-Token'), null, 'no placeholder reaches the server');
    });

    it('seals the token of a cart document and keeps the status and headers', async () => {
      const document = JSON.stringify({ data: { id: '1', type: 'cart', attributes: { number: 'R100', token: CART.token } } });
      const { worker } = answering({ cart: CART, session: null, backoff: null }, document);
      await settle();
      const url = new URL(`${BASE}/api/v2/storefront/cart`);
      const request = new Request(url);
      const decision = worker.requests.match(request, url);
      const response = await worker.requests.handle(request, url, decision === true || decision === null ? undefined : decision, keepAlive);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('X-Request-Id'), 'r1');
      assert.equal(await response.text(), document.replace(CART.token, 'sealed:cart'));
    });

    /** Sends `request` through `worker` as its fetch listener would. */
    async function through(worker: AuthWorker, request: Request): Promise<Response> {
      const url = new URL(request.url);
      const decision = worker.requests.match(request, url);
      return worker.requests.handle(request, url, decision === true || decision === null ? undefined : decision, keepAlive);
    }

    it("keeps what it seals out of the HTTP cache (cache 'no-store'), guest or signed in, account answers included", async () => {
      const cart = (cache: RequestCache) => new Request(`${BASE}/api/v2/storefront/cart`, { cache });
      const guest = answering({ cart: CART, session: null, backoff: null }, '{}');
      const signedIn = answering({ cart: CART, session: SESSION, backoff: null }, '{}');
      await settle();
      await through(guest.worker, cart('force-cache'));
      await through(signedIn.worker, cart('default'));
      await through(signedIn.worker, new Request(`${BASE}/api/v2/storefront/account`, { cache: 'force-cache' }));
      // A page that did not control the worker could otherwise read the stored body, token and all, with force-cache.
      assert.equal(guest.sent[0]?.cache, 'no-store');
      assert.equal(signedIn.sent[0]?.cache, 'no-store');
      assert.equal(signedIn.sent[1]?.cache, 'no-store', 'an account response is sealed too: an order list holds tokens');
    });

    it('leaves the cache mode as the page set it with sealing off', async () => {
      const { worker, sent } = answering({ cart: CART, session: null, backoff: null }, '{}', resolveOptions({ baseUrl: BASE, sealTokens: false }, 'https://shop.example/storefront-auth-sw.js'));
      await settle();
      await through(worker, new Request(`${BASE}/api/v2/storefront/cart`, { cache: 'force-cache' }));
      assert.equal(sent[0]?.cache, 'force-cache');
    });

    /** A worker whose fetch answers as a browser's does: with the URL it sent to, and an opaque redirect for `redirect: 'manual'`. */
    function answeringWithUrls(initial: Credentials) {
      return new AuthWorker(options, {
        fetch: async (input, init) => {
          const request = new Request(input, init);
          const response = request.redirect === 'manual' && request.method !== 'GET' ? new Response(null) : new Response('{"data":{}}', { status: 200 });
          Object.defineProperty(response, 'url', { value: request.url });
          if (response.body === null) Object.defineProperty(response, 'type', { value: 'opaqueredirect' });
          return response;
        },
        now: () => Date.now(),
        storage: memoryStorage(initial),
        toPages: () => {},
        log: undefined,
      });
    }

    it("never hands the page a URL holding the real cart token, which it reads as response.url (XHR's responseURL)", async () => {
      const worker = answeringWithUrls({ cart: CART, session: SESSION, backoff: null });
      worker.preload();
      await settle();
      const query = '?guest_order_token=sealed%3Acart';
      // An account response's URL is the one the worker sent, real token included.
      const account = await through(worker, new Request(`${BASE}/api/v2/storefront/account${query}`));
      assert.equal(account.status, 200);
      assert.equal(await account.text(), '{"data":{}}', 'the body as the server sent it');
      assert.ok(!account.url.includes(CART.token), account.url);
      // An opaque redirect, which the page asked for with redirect 'manual', cannot be rebuilt without its URL.
      const associate = await through(worker, new Request(`${BASE}/api/v2/storefront/cart/associate${query}`, { method: 'PATCH', redirect: 'manual' }));
      assert.ok(!associate.url.includes(CART.token), associate.url);
      assert.equal(associate.type, 'error', 'a network error for the page');
    });

    it("seals an account response by what the worker knows: the held cart's token, the bearer it sent echoed, and other orders' tokens", async () => {
      const orders = JSON.stringify({ data: [{ attributes: { token: CART.token } }, { attributes: { token: 'order-other' } }], meta: { echo: `Bearer ${SESSION.accessToken}` } });
      const { worker } = answering({ cart: CART, session: SESSION, backoff: null }, orders);
      await settle();
      const url = new URL(`${BASE}/api/v2/storefront/account/orders`);
      const request = new Request(url);
      const decision = worker.requests.match(request, url);
      const response = await worker.requests.handle(request, url, decision === true || decision === null ? undefined : decision, keepAlive);
      assert.deepEqual(JSON.parse(await response.text()), { data: [{ attributes: { token: 'sealed:cart' } }, { attributes: { token: 'sealed:order' } }], meta: { echo: 'Bearer sealed:access' } });
    });

    it('drops a response header that echoes a token the worker sent, and keeps the others', async () => {
      // A server that echoes the order token it received in a header of its answer.
      const echoing = new AuthWorker(options, {
        fetch: async (input, init) => new Response('{}', { headers: { 'X-Debug-Token': new Request(input, init).headers.get('X-Store-Order-Token') ?? '', 'X-Other': 'kept' } }),
        now: () => Date.now(),
        storage: memoryStorage({ cart: CART, session: null, backoff: null }),
        toPages: () => {},
        log: undefined,
      });
      echoing.preload();
      await settle();
      const url = new URL(`${BASE}/api/v2/storefront/cart`);
      const request = new Request(url);
      const decision = echoing.requests.match(request, url);
      const response = await echoing.requests.handle(request, url, decision === true || decision === null ? undefined : decision, keepAlive);
      assert.equal(response.headers.get('X-Debug-Token'), null);
      assert.equal(response.headers.get('X-Other'), 'kept');
    });
  });
});
