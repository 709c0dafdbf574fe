// Offline cart writes through the whole worker (src/sw/offlineWrites.ts and what it wires), in Node
// with memory storage and a routed fetch: which writes are queued and when, the 202, what is stored
// (never a credential), the replay through the request path (the credential current then, a due
// refresh first, one refresh and replay after a 401, a redirect refused), the key, the settling,
// the identity, the bounds, and what the pages are told. The warm path reads no storage.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Announcement } from '../src/shared/protocol.js';
import type { Credentials } from '../src/sw/credentialStorage.js';
import type { QueuedWrite } from '../src/sw/queuedWrite.js';
import type { KeepAlive } from '../src/sw/requestPath.js';
import { SAME_RETURN_MS } from '../src/sw/writeReplayer.js';
import { memoryWrites, type WriteStorage } from '../src/sw/writeStore.js';
import { AuthWorker, type WorkerEnvironment } from '../src/sw/authWorker.js';
import { memoryStorage } from '../src/sw/credentialStorage.js';
import { resolveOptions } from '../src/sw/options.js';
import { deferred, installFakeLocks, removeFakeLocks, storeApiJwt } from './fakes.js';
import { BASE, routedWorker, type Call, type Routes } from './workerHarness.js';

const HOUR = 3_600_000;
const CART = { token: 'Zq+/order-token', number: 'R100' };
const GUEST: Credentials = { cart: CART, session: null, backoff: null };
const session = (n: number, leftMs = HOUR) => ({ accessToken: `a${n}+/access`, refreshToken: `r${n}/refresh`, expiresAt: Date.now() + leftMs, lifetimeMs: HOUR, confirmed: true });
const SIGNED_IN: Credentials = { cart: CART, session: session(1), backoff: null, signInId: 'sign-in-1' };

const ADD = 'POST /api/v2/storefront/cart/add_item';
const SET = 'PATCH /api/v2/storefront/cart/set_quantity';
const CART_DOC = { data: { id: '1', type: 'cart', attributes: { number: 'R100', token: CART.token } } };
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** A page's cart write under BASE. */
function pageWrite(path = '/api/v2/storefront/cart/add_item', init: RequestInit = {}): Request {
  return new Request(`${BASE}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/vnd.api+json' }, body: '{"variant_id":"2","quantity":1}', ...init });
}

/** Write storage that counts what is asked of it. */
function countingWrites(inner: WriteStorage = memoryWrites()) {
  const counts = { list: 0, count: 0, add: 0, replace: 0, remove: 0 };
  const storage: WriteStorage = {
    list: () => (counts.list++, inner.list()),
    count: () => (counts.count++, inner.count()),
    add: (write, max) => (counts.add++, inner.add(write, max)),
    replace: (write) => (counts.replace++, inner.replace(write)),
    remove: (write, unlessSending) => (counts.remove++, inner.remove(write, unlessSending)),
  };
  return { storage, counts, inner };
}

/** A worker with offline writes on, holding `initial`; the browser online while `network.online`. */
function offlineWorker(initial: Credentials, routes: Routes, options: Record<string, unknown> = {}, env: Partial<WorkerEnvironment> = {}) {
  const network = { online: true, syncs: 0 };
  const writes = countingWrites();
  const worker = routedWorker({ offlineWrites: true, ...options }, initial, routes, env.now ?? Date.now, {
    writes: writes.storage,
    online: () => network.online,
    requestSync: () => void network.syncs++,
    ...env,
  });
  /** The announcements of one type, by their write detail. */
  const told = (type: Announcement['type']) => worker.announced.filter((announcement) => announcement.type === type).map((announcement) => announcement.write);
  /** Waits for what a nudge started (the replay) and everything it handed on. */
  const replayed = async (now = true): Promise<void> => {
    worker.worker.nudge(worker.keepAlive, now);
    await worker.settled();
  };
  return { ...worker, network, writes, told, replayed };
}

const offlineFetch = (): Response => {
  throw new TypeError('Failed to fetch');
};

describe('offline cart writes', () => {
  // No BroadcastChannel: Node's would keep the process alive, and these tests need no other worker.
  const channel = globalThis.BroadcastChannel;
  before(() => void ((globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined));
  after(() => void ((globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = channel));

  it('are off by default: a write that cannot be sent fails the page’s fetch, and nothing is told', async () => {
    const { through, announced, worker } = routedWorker({}, GUEST, { [ADD]: offlineFetch });
    await assert.rejects(through(pageWrite()), TypeError);
    assert.deepEqual(announced, []);
    assert.equal(worker.writes, null);
    assert.equal((await worker.actions.getState()).state.pendingWrites, 0);
  });

  describe('while the browser reports itself offline', () => {
    it('queue a cart write unsent, answer 202 with its id, and tell the pages', async () => {
      const { through, calls, network, told, writes, announced, worker } = offlineWorker(GUEST, {});
      network.online = false;
      const response = await through(pageWrite('/api/v2/storefront/cart/add_item', { headers: { 'Content-Type': 'application/vnd.api+json', 'X-Store-Order-Token': 'sealed:cart', 'Accept-Language': 'fr' } }));
      assert.ok(response);
      assert.equal(response.status, 202);
      assert.equal(response.headers.get('Content-Type'), 'application/json');
      const id = response.headers.get('Storefront-Auth-Queued') ?? '';
      assert.match(id, UUID_V4);
      assert.deepEqual(await response.json(), { queued: true, id });
      assert.deepEqual(calls, [], 'nothing was sent');
      assert.deepEqual(told('writequeued'), [{ id, method: 'POST', path: '/store/api/v2/storefront/cart/add_item' }]);
      assert.equal(announced.at(-1)?.state.pendingWrites, 1);
      assert.equal(network.syncs, 1, 'a Background Sync is asked for');
      assert.equal((await worker.actions.getState()).state.pendingWrites, 1);
      const [stored] = await writes.inner.list();
      assert.deepEqual({ ...stored, body: null, seq: 0, createdAt: 0 }, {
        seq: 0,
        id,
        baseUrl: BASE,
        method: 'POST',
        url: `${BASE}/api/v2/storefront/cart/add_item`,
        // The page's own headers, without the placeholder: the worker adds the credential at each attempt.
        headers: [['accept-language', 'fr'], ['content-type', 'application/vnd.api+json']],
        body: null,
        credentials: 'same-origin',
        key: null,
        cart: 'R100',
        signInId: null,
        createdAt: 0,
        attempts: 0,
        notBefore: 0,
      } satisfies QueuedWrite);
      assert.equal(new TextDecoder().decode(stored?.body ?? undefined), '{"variant_id":"2","quantity":1}');
    });

    it('store no token, placeholder or body in any announcement', async () => {
      const { through, network, announced } = offlineWorker(SIGNED_IN, {});
      network.online = false;
      await through(pageWrite('/api/v2/storefront/cart/add_item', { headers: { Authorization: 'Bearer sealed:access' } }));
      const text = JSON.stringify(announced);
      for (const secret of [CART.token, 'a1+/access', 'r1/refresh', 'sealed:', 'variant_id']) assert.ok(!text.includes(secret), secret);
    });
  });

  describe('back online', () => {
    it('replay a guest’s write once, with the order-token header held then, and tell the pages it was applied', async () => {
      const { through, calls, network, told, replayed, announced } = offlineWorker(GUEST, { [ADD]: () => Response.json(CART_DOC) });
      network.online = false;
      const id = (await (await through(pageWrite()))!.json()).id;
      network.online = true;
      await replayed();
      assert.deepEqual(calls.map((call) => call.route), [ADD]);
      const [sent] = calls;
      assert.equal(sent?.request.headers.get('X-Store-Order-Token'), CART.token);
      assert.equal(sent?.request.headers.get('Authorization'), null);
      assert.equal(sent?.request.headers.get('Content-Type'), 'application/vnd.api+json');
      assert.equal(await sent?.body, '{"variant_id":"2","quantity":1}');
      assert.equal(sent?.request.redirect, 'manual', 'a write never follows a redirect');
      assert.deepEqual(told('writesettled'), [{ id, outcome: 'applied', status: 200 }]);
      assert.equal(announced.at(-1)?.state.pendingWrites, 0);
      await replayed();
      assert.equal(calls.length, 1, 'sent once');
    });

    it('replay a signed-in write with the bearer, refreshed first when it is due: one refresh, then the new bearer', async () => {
      const due: Credentials = { ...SIGNED_IN, session: session(1, 10_000) };
      const { through, calls, network, replayed, told } = offlineWorker(due, {
        'POST /store_oauth/token': () => Response.json({ access_token: 'a2/fresh', refresh_token: 'r2/fresh', token_type: 'Bearer', expires_in: 3600 }),
        [ADD]: () => Response.json(CART_DOC),
      });
      network.online = false;
      await through(pageWrite());
      network.online = true;
      await replayed();
      assert.deepEqual(calls.map((call) => call.route), ['POST /store_oauth/token', ADD]);
      assert.equal(calls[1]?.request.headers.get('Authorization'), 'Bearer a2/fresh');
      assert.equal(told('writesettled')[0] && (told('writesettled')[0] as { outcome: string }).outcome, 'applied');
    });

    it('after a 401, refresh once and replay the write with the new bearer', async () => {
      let adds = 0;
      const { through, calls, network, replayed, told } = offlineWorker(SIGNED_IN, {
        'POST /store_oauth/token': () => Response.json({ access_token: 'a2/fresh', refresh_token: 'r2/fresh', token_type: 'Bearer', expires_in: 3600 }),
        [ADD]: () => (++adds === 1 ? Response.json({ error: 'The access token expired' }, { status: 401 }) : Response.json(CART_DOC)),
      });
      network.online = false;
      const id = (await (await through(pageWrite()))!.json()).id;
      network.online = true;
      await replayed();
      assert.deepEqual(calls.map((call) => call.route), [ADD, 'POST /store_oauth/token', ADD]);
      assert.deepEqual(calls.map((call) => call.request.headers.get('Authorization')), ['Bearer a1+/access', null, 'Bearer a2/fresh']);
      assert.deepEqual(told('writesettled'), [{ id, outcome: 'applied', status: 200 }]);
    });

    it('after a 401, drop the write when another shopper signed in meanwhile: never replayed with their bearer', async () => {
      let sets = 0;
      const worker = offlineWorker(SIGNED_IN, {
        [SET]: async () => {
          if (++sets > 1) return Response.json(CART_DOC);
          // While the replay is on its way, another tab's worker stores a logout and B's login.
          await worker.storage.update(() => ({ cart: CART, session: session(9), backoff: null, signInId: 'sign-in-B' }));
          return Response.json({ error: 'The access token was revoked' }, { status: 401 });
        },
      });
      worker.network.online = false;
      const id = (await (await worker.through(pageWrite('/api/v2/storefront/cart/set_quantity', { method: 'PATCH' })))!.json()).id;
      worker.network.online = true;
      await worker.replayed();
      assert.deepEqual(worker.calls.map((call) => `${call.route} ${call.request.headers.get('Authorization')}`), [`${SET} Bearer a1+/access`]);
      assert.deepEqual(worker.told('writesettled'), [{ id, outcome: 'dropped' }]);
    });

    it('give up a v2 add_item whose replay got no answer while online, never sent twice: it may have been applied', async () => {
      let clock = Date.now();
      const { through, network, calls, probes, replayed, told, writes } = offlineWorker(GUEST, { [ADD]: offlineFetch }, {}, { now: () => clock });
      network.online = false;
      const id = (await (await through(pageWrite()))!.json()).id;
      network.online = true;
      await replayed();
      clock += 10 * 60_000;
      await replayed();
      assert.equal(calls.filter((call) => call.route === ADD).length, 1);
      assert.equal(probes.length, 1, 'sent once the server answered');
      assert.deepEqual(told('writesettled'), [{ id, outcome: 'expired' }]);
      assert.deepEqual(await writes.inner.list(), []);
    });

    it('send a v2 add_item only once the server answers: a network not yet carrying requests keeps it, unsent and counted', async () => {
      let clock = Date.now();
      let up = false;
      const { through, network, calls, replayed, told, writes } = offlineWorker(GUEST, { 'HEAD /': () => (up ? new Response(null, { status: 404 }) : offlineFetch()), [ADD]: () => Response.json(CART_DOC), [SET]: () => Response.json(CART_DOC) }, {}, { now: () => clock });
      network.online = false;
      const id = (await (await through(pageWrite()))!.json()).id;
      network.online = true;
      await replayed();
      assert.deepEqual(calls.map((call) => call.route), ['HEAD /'], 'the write did not leave');
      const [kept] = await writes.inner.list();
      assert.equal(kept?.attempts, 1);
      assert.equal(kept?.sending, undefined);
      up = true;
      clock += 10 * 60_000;
      await replayed(false);
      assert.deepEqual(calls.map((call) => call.route), ['HEAD /', 'HEAD /', ADD]);
      assert.deepEqual(told('writesettled'), [{ id, outcome: 'applied', status: 200 }]);
      // A write that sets may be sent twice: it goes without a probe.
      network.online = false;
      await through(pageWrite('/api/v2/storefront/cart/set_quantity', { method: 'PATCH' }));
      network.online = true;
      await replayed();
      assert.deepEqual(calls.map((call) => call.route).slice(3), [SET]);
    });

    it('keep a write whose replay failed while offline without its mark, and send it when the network returns', async () => {
      let sets = 0;
      const { through, network, calls, replayed, told, writes } = offlineWorker(GUEST, { [SET]: () => (++sets === 1 ? offlineFetch() : Response.json(CART_DOC)) });
      network.online = false;
      const id = (await (await through(pageWrite('/api/v2/storefront/cart/set_quantity', { method: 'PATCH' })))!.json()).id;
      // A page reports the network's return before the worker's fetches get through, and the browser still says offline.
      await replayed();
      assert.equal((await writes.inner.list())[0]?.sending, undefined, 'no mark left: the attempt ended');
      network.online = true;
      await replayed();
      assert.equal(calls.length, 2);
      assert.deepEqual(told('writesettled'), [{ id, outcome: 'applied', status: 200 }]);
    });

    it('keep a v2 add_item that never left because the due refresh failed first', async () => {
      const expired: Credentials = { ...SIGNED_IN, session: session(1, -60_000) };
      const { through, calls, network, replayed, told, writes } = offlineWorker(expired, {
        'POST /store_oauth/token': () => Response.json({ error: 'server_error' }, { status: 503 }),
        [ADD]: () => Response.json(CART_DOC),
      });
      network.online = false;
      await through(pageWrite());
      network.online = true;
      await replayed();
      assert.deepEqual(calls.map((call) => call.route), ['POST /store_oauth/token'], 'the add_item never left');
      assert.deepEqual(told('writesettled'), []);
      assert.equal((await writes.inner.list()).length, 1, 'still kept');
    });

    it('send a kept v2 add_item when the API is on another origin: the probe follows redirects, as a browser requires of no-cors', async () => {
      // Fetch's "main fetch": a cross-origin no-cors request that does not follow redirects is a network error, never sent.
      const crossOrigin = (call: Call): Response => (call.request.mode === 'no-cors' && call.request.redirect !== 'follow' ? offlineFetch() : new Response(null, { status: 404 }));
      const { through, calls, network, replayed, told } = offlineWorker(GUEST, { 'HEAD /': crossOrigin, [ADD]: () => Response.json(CART_DOC) });
      network.online = false;
      const id = (await (await through(pageWrite()))!.json()).id;
      network.online = true;
      await replayed();
      assert.deepEqual(calls.map((call) => call.route), ['HEAD /', ADD]);
      assert.deepEqual(told('writesettled'), [{ id, outcome: 'applied', status: 200 }]);
    });

    it('never send a v2 add_item twice: one lost with the network after the probe answered is given up, whatever the browser says by then', async () => {
      let clock = Date.now();
      let adds = 0;
      const worker = offlineWorker(GUEST, {
        [ADD]: () => {
          // The server has it; the Wi-Fi drops before its answer, and the browser reports itself offline.
          if (++adds === 1) {
            worker.network.online = false;
            return offlineFetch();
          }
          return Response.json(CART_DOC);
        },
      }, {}, { now: () => clock });
      worker.network.online = false;
      const id = (await (await worker.through(pageWrite()))!.json()).id;
      worker.network.online = true;
      await worker.replayed();
      worker.network.online = true;
      clock += 10 * 60_000;
      await worker.replayed();
      assert.equal(adds, 1);
      assert.deepEqual(worker.told('writesettled'), [{ id, outcome: 'expired' }]);
    });

    it('give up, unsent, a v2 add_item whose attempt a stopped worker never saw end; a set is sent again', async () => {
      const inner = memoryWrites();
      const first = offlineWorker(GUEST, { [ADD]: () => new Promise<never>(() => {}), [SET]: () => new Promise<never>(() => {}) }, {}, { writes: inner });
      first.network.online = false;
      const added = (await (await first.through(pageWrite()))!.json()).id;
      await first.through(pageWrite('/api/v2/storefront/cart/set_quantity', { method: 'PATCH' }));
      // The worker stops during the attempt: it never settles.
      first.network.online = true;
      first.worker.nudge(first.keepAlive, true);
      while (first.calls.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
      const next = offlineWorker(GUEST, { [ADD]: () => Response.json(CART_DOC), [SET]: () => Response.json(CART_DOC) }, {}, { writes: inner });
      await next.replayed();
      assert.deepEqual(next.calls.map((call) => call.route), [SET], 'the add_item may have been applied: not sent again');
      assert.deepEqual(next.told('writesettled').map((write) => (write as { id: string; outcome: string }).outcome), ['expired', 'applied']);
      assert.equal((next.told('writesettled')[0] as { id: string }).id, added);
    });

    it('tell a write applied, not dropped, when a logout ends its sign-in while it is on its way', async () => {
      const worker = offlineWorker(SIGNED_IN, {
        'POST /store_oauth/revoke': () => Response.json({}),
        [SET]: async () => {
          // The server has the write; meanwhile the shopper logs out in another tab.
          await worker.worker.actions.logout(worker.keepAlive);
          return Response.json(CART_DOC);
        },
      });
      worker.network.online = false;
      const id = (await (await worker.through(pageWrite('/api/v2/storefront/cart/set_quantity', { method: 'PATCH' })))!.json()).id;
      worker.network.online = true;
      await worker.replayed();
      assert.equal(worker.calls.filter((call) => call.route === SET).length, 1);
      assert.deepEqual(worker.told('writesettled'), [{ id, outcome: 'applied', status: 200 }]);
    });

    it('drop a write kept for another attempt once the logout that ended its sign-in came while it was on its way', async () => {
      const worker = offlineWorker(SIGNED_IN, {
        'POST /store_oauth/revoke': () => Response.json({}),
        [SET]: async () => {
          await worker.worker.actions.logout(worker.keepAlive);
          return Response.json({}, { status: 503 });
        },
      });
      worker.network.online = false;
      const id = (await (await worker.through(pageWrite('/api/v2/storefront/cart/set_quantity', { method: 'PATCH' })))!.json()).id;
      worker.network.online = true;
      await worker.replayed();
      await worker.replayed();
      assert.equal(worker.calls.filter((call) => call.route === SET).length, 1);
      assert.deepEqual(worker.told('writesettled'), [{ id, outcome: 'dropped' }]);
    });

    it('drop a signed-in write unsent when the due refresh is refused: the sign-in it was made under has ended', async () => {
      const due: Credentials = { ...SIGNED_IN, session: session(1, 10_000) };
      const { through, calls, network, replayed, told } = offlineWorker(due, {
        'POST /store_oauth/token': () => Response.json({ error: 'invalid_grant' }, { status: 400 }),
      });
      network.online = false;
      const id = (await (await through(pageWrite()))!.json()).id;
      network.online = true;
      await replayed();
      assert.deepEqual(calls.map((call) => call.route), ['POST /store_oauth/token'], 'never sent as a guest');
      assert.deepEqual(told('writesettled'), [{ id, outcome: 'dropped' }]);
    });

    it("never keep a page's write with redirect 'error' that met a redirect: it reached the server", async () => {
      const opaqueRedirect = (): Response => Object.defineProperty(new Response(null), 'type', { value: 'opaqueredirect' });
      // Fetch refuses a redirect under `error` with a bare TypeError, as it does a network error.
      const { through, calls, announced } = offlineWorker(GUEST, { [SET]: (call) => (call.request.redirect === 'error' ? offlineFetch() : opaqueRedirect()) });
      await assert.rejects(through(pageWrite('/api/v2/storefront/cart/set_quantity', { method: 'PATCH', redirect: 'error' })), TypeError);
      assert.equal(calls.length, 1);
      assert.deepEqual(announced, []);
    });

    it('reject a write that meets a redirect, sent once', async () => {
      // Fetch hides a manual redirect's status and location: an opaque-redirect filtered response.
      const opaqueRedirect = (): Response => Object.defineProperty(new Response(null), 'type', { value: 'opaqueredirect' });
      const { through, calls, network, replayed, told } = offlineWorker(GUEST, { [ADD]: opaqueRedirect });
      network.online = false;
      const id = (await (await through(pageWrite()))!.json()).id;
      network.online = true;
      await replayed();
      assert.equal(calls.length, 1);
      assert.deepEqual(told('writesettled'), [{ id, outcome: 'rejected' }]);
    });

    it('reject a 422, never retried; keep a 503 with its back-off, then apply it', async () => {
      let sets = 0;
      let clock = Date.now();
      const { through, calls, network, replayed, told, writes } = offlineWorker(GUEST, {
        [ADD]: () => Response.json({ error: 'Quantity must be greater than 0' }, { status: 422 }),
        [SET]: () => (++sets === 1 ? Response.json({ error: 'down' }, { status: 503 }) : Response.json(CART_DOC)),
      }, {}, { now: () => clock });
      network.online = false;
      const rejected = (await (await through(pageWrite()))!.json()).id;
      const retried = (await (await through(pageWrite('/api/v2/storefront/cart/set_quantity', { method: 'PATCH' })))!.json()).id;
      network.online = true;
      await replayed();
      assert.deepEqual(calls.map((call) => call.route), [ADD, SET]);
      assert.deepEqual(told('writesettled'), [{ id: rejected, outcome: 'rejected', status: 422 }]);
      const [kept] = await writes.inner.list();
      assert.equal(kept?.id, retried);
      assert.equal(kept?.attempts, 1);
      assert.ok((kept?.notBefore ?? 0) >= clock + 4_000, 'waits its back-off');
      // A request before the back-off ends sends nothing; the network's next return sends it at once.
      await replayed(false);
      assert.equal(calls.length, 2);
      clock += SAME_RETURN_MS;
      await replayed(true);
      assert.deepEqual(calls.map((call) => call.route), [ADD, SET, SET]);
      assert.deepEqual(told('writesettled').at(-1), { id: retried, outcome: 'applied', status: 200 });
    });

    it("keep a 503 until its Retry-After date, counted from the answer's Date with the device clock 10 min ahead", async () => {
      const clock = Math.floor(Date.now() / 1000) * 1000;
      const server = clock - 10 * 60_000;
      const down = (): Response => Response.json({ error: 'down' }, { status: 503, headers: { Date: new Date(server).toUTCString(), 'Retry-After': new Date(server + 60_000).toUTCString() } });
      const { through, network, replayed, writes } = offlineWorker(GUEST, { [SET]: down }, {}, { now: () => clock });
      network.online = false;
      await through(pageWrite('/api/v2/storefront/cart/set_quantity', { method: 'PATCH' }));
      network.online = true;
      await replayed();
      const [kept] = await writes.inner.list();
      assert.equal(kept?.notBefore, clock + 60_000);
    });

    it('keep a write whose replay finds the network gone again, without counting the attempt', async () => {
      // A write that sets: a v2 add_item sent once the server answered is given up when its answer is lost.
      const { through, calls, network, replayed, writes } = offlineWorker(GUEST, { [SET]: () => ((network.online = false), offlineFetch()) });
      network.online = false;
      await through(pageWrite('/api/v2/storefront/cart/set_quantity', { method: 'PATCH' }));
      network.online = true;
      await replayed();
      assert.equal(calls.length, 1);
      const [kept] = await writes.inner.list();
      assert.deepEqual([kept?.attempts, kept?.notBefore], [0, 0]);
    });

    it('expire a write on its 20th counted failure', async () => {
      const { through, network, replayed, told, writes } = offlineWorker(GUEST, { [ADD]: () => Response.json({}, { status: 500 }) });
      network.online = false;
      const id = (await (await through(pageWrite()))!.json()).id;
      const [stored] = await writes.inner.list();
      assert.ok(stored);
      await writes.inner.replace({ ...stored, attempts: 19 });
      network.online = true;
      await replayed();
      assert.deepEqual(told('writesettled'), [{ id, outcome: 'expired' }]);
      assert.deepEqual(await writes.inner.list(), []);
    });
  });

  describe('online', () => {
    it('send a v2 add_item whose answer is lost as without the queue: the page gets the network error', async () => {
      const { through, calls, told } = offlineWorker(GUEST, { [ADD]: offlineFetch });
      await assert.rejects(through(pageWrite()), TypeError);
      assert.equal(calls.length, 1);
      assert.deepEqual(told('writequeued'), []);
    });

    it('queue a v2 set_quantity whose answer is lost, counted, with its back-off', async () => {
      const { through, calls, told, writes } = offlineWorker(GUEST, { [SET]: offlineFetch });
      const response = await through(pageWrite('/api/v2/storefront/cart/set_quantity', { method: 'PATCH', body: '{"line_item_id":"1","quantity":3}' }));
      assert.equal(response?.status, 202);
      assert.equal(calls.length, 1);
      assert.equal(told('writequeued').length, 1);
      const [stored] = await writes.inner.list();
      assert.equal(stored?.attempts, 1);
      assert.ok((stored?.notBefore ?? 0) > Date.now() + 4_000);
    });

    it('leave an answered write to the page, whatever its status', async () => {
      const { through, told } = offlineWorker(GUEST, { [ADD]: () => Response.json({ error: 'down' }, { status: 503 }) });
      assert.equal((await through(pageWrite()))?.status, 503);
      assert.deepEqual(told('writequeued'), []);
    });

    it('queue a new write behind older ones, unsent, even a v2 add_item, and replay them in order, one at a time', async () => {
      let inFlight = 0;
      const bodies: string[] = [];
      const { through, calls, network, replayed, told } = offlineWorker(GUEST, {
        [ADD]: async (call) => {
          assert.equal(++inFlight, 1, 'one at a time');
          bodies.push(await call.body);
          await new Promise((resolve) => setTimeout(resolve, 5));
          inFlight--;
          return Response.json(CART_DOC);
        },
      });
      network.online = false;
      await through(pageWrite('/api/v2/storefront/cart/add_item', { body: '{"n":1}' }));
      network.online = true;
      // Online again, but the first write is still queued: the next ones go behind it, unsent.
      const answers = await Promise.all([2, 3].map((n) => through(pageWrite('/api/v2/storefront/cart/add_item', { body: `{"n":${n}}` }))));
      assert.deepEqual(answers.map((answer) => answer?.status), [202, 202]);
      await replayed();
      assert.deepEqual(bodies, ['{"n":1}', '{"n":2}', '{"n":3}']);
      assert.equal(calls.length, 3);
      assert.deepEqual(told('writesettled').map((detail) => (detail as { outcome: string }).outcome), ['applied', 'applied', 'applied']);
    });
  });

  describe('the bounds', () => {
    it('queue 50 writes per base URL; the 51st gets the network error', async () => {
      const { through, network, calls } = offlineWorker(GUEST, {});
      network.online = false;
      for (let n = 0; n < 50; n++) assert.equal((await through(pageWrite()))?.status, 202, String(n));
      await assert.rejects(through(pageWrite()), TypeError);
      assert.equal(calls.length, 0);
    });

    it('never queue a body over 64 KiB, a write that is not a cart write, one with the page’s own credential, or one without a cart', async () => {
      const lost = { [ADD]: offlineFetch, 'PATCH /api/v2/storefront/checkout': offlineFetch, 'POST /api/v2/storefront/cart': offlineFetch, [SET]: offlineFetch };
      const cases: Array<[what: string, held: Credentials, request: Request]> = [
        ['a 70 KB body', GUEST, pageWrite('/api/v2/storefront/cart/set_quantity', { method: 'PATCH', body: JSON.stringify({ note: 'x'.repeat(70_000) }) })],
        ['a body one byte over 64 KiB', GUEST, pageWrite('/api/v2/storefront/cart/set_quantity', { method: 'PATCH', body: 'x'.repeat(65_537) })],
        ['checkout', GUEST, pageWrite('/api/v2/storefront/checkout', { method: 'PATCH' })],
        ['cart creation', GUEST, pageWrite('/api/v2/storefront/cart')],
        ['the page’s own order token', GUEST, pageWrite('/api/v2/storefront/cart/set_quantity', { method: 'PATCH', headers: { 'X-Store-Order-Token': 'its-own' } })],
        ['the page’s own order token in the query, after a placeholder', GUEST, pageWrite('/api/v2/storefront/cart/set_quantity?guest_order_token=sealed:cart&guest_order_token=its-own', { method: 'PATCH' })],
        ['the page’s own order token in the query, before a placeholder', GUEST, pageWrite('/api/v2/storefront/cart/set_quantity?guest_order_token=its-own&guest_order_token=sealed:cart', { method: 'PATCH' })],
        ['the page’s own bearer', SIGNED_IN, pageWrite('/api/v2/storefront/cart/set_quantity', { method: 'PATCH', headers: { Authorization: 'Bearer its-own' } })],
        ['no cart held', { ...SIGNED_IN, cart: null }, pageWrite('/api/v2/storefront/cart/set_quantity', { method: 'PATCH' })],
      ];
      for (const [what, held, request] of cases) {
        const { through, told, network, writes } = offlineWorker(held, lost);
        network.online = false;
        await assert.rejects(through(request), TypeError, what);
        assert.deepEqual(told('writequeued'), [], what);
        assert.deepEqual(await writes.inner.list(), [], what);
      }
      // At the bound exactly, it is queued.
      const { through, network } = offlineWorker(GUEST, {});
      network.online = false;
      assert.equal((await through(pageWrite('/api/v2/storefront/cart/set_quantity', { method: 'PATCH', body: 'x'.repeat(65_536) })))?.status, 202);
    });
  });

  describe('on spree-v3', () => {
    const V3 = { preset: 'spree-v3', publishableKey: 'pk_test' };
    const V3_CART = { token: 'v3-cart-token', number: 'R300', id: 'cart_1' };
    const ITEMS = 'POST /api/v3/store/carts/cart_1/items';
    const v3Write = (headers: Record<string, string> = {}) =>
      new Request(`${BASE}/api/v3/store/carts/cart_1/items`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Spree-Api-Key': 'pk_test', 'x-spree-token': 'sealed:cart', ...headers }, body: '{"variant_id":"variant_1","quantity":1}' });
    const held: Credentials = { cart: V3_CART, session: null, backoff: null };

    it('send a write with a new UUID v4 key, queue it with that key when the answer is lost, and replay it with the same key', async () => {
      let items = 0;
      const { through, calls, network, replayed, writes } = offlineWorker(held, { [ITEMS]: () => (++items === 1 ? offlineFetch() : Response.json({ id: 'cart_1', number: 'R300', token: 'v3-cart-token' }, { status: 201 })) }, V3);
      assert.equal((await through(v3Write()))?.status, 202);
      const key = calls[0]?.request.headers.get('Idempotency-Key') ?? '';
      assert.match(key, UUID_V4);
      const [stored] = await writes.inner.list();
      assert.equal(stored?.key, key);
      assert.ok(!stored?.headers.some(([name]) => ['idempotency-key', 'x-spree-token', 'authorization'].includes(name)), 'the key is kept apart, the placeholder dropped');
      assert.ok(stored?.headers.some(([name, value]) => name === 'x-spree-api-key' && value === 'pk_test'), 'the publishable key is kept: no credential');
      network.online = true;
      await replayed();
      assert.deepEqual(calls.map((call) => call.request.headers.get('Idempotency-Key')), [key, key]);
      assert.equal(calls[1]?.request.headers.get('x-spree-token'), 'v3-cart-token');
    });

    it('keep the page’s own key, and give the write a new one after a 409', async () => {
      let items = 0;
      let clock = Date.now();
      const { through, calls, network, replayed } = offlineWorker(held, { [ITEMS]: () => (++items === 1 ? Response.json({ error: { code: 'cart_already_updated' } }, { status: 409 }) : Response.json({}, { status: 201 })) }, V3, { now: () => clock });
      network.online = false;
      assert.equal((await through(v3Write({ 'Idempotency-Key': 'spree-sdk-retry-page-key' })))?.status, 202);
      network.online = true;
      await replayed();
      clock += SAME_RETURN_MS;
      await replayed();
      const keys = calls.map((call) => call.request.headers.get('Idempotency-Key'));
      assert.equal(keys[0], 'spree-sdk-retry-page-key');
      assert.match(keys[1] ?? '', UUID_V4);
    });

    it('send a signed-in shopper’s write with the JWT, and queue it when the answer is lost: its key makes any write safe to replay', async () => {
      const jwt = storeApiJwt(Math.floor(Date.now() / 1000) + 3600);
      const signedIn: Credentials = { cart: V3_CART, session: { ...session(1), accessToken: jwt }, backoff: null, signInId: 's-1' };
      const { through, calls } = offlineWorker(signedIn, { [ITEMS]: offlineFetch }, V3);
      assert.equal((await through(v3Write({ Authorization: 'Bearer sealed:access' })))?.status, 202);
      assert.equal(calls[0]?.request.headers.get('Authorization'), `Bearer ${jwt}`);
    });
  });

  describe('identity', () => {
    it('logout drops the writes of the cart and sign-in it ends, each told, before the logout’s change', async () => {
      const { through, network, worker, told, announced, keepAlive, calls } = offlineWorker(SIGNED_IN, { 'POST /store_oauth/revoke': () => Response.json({}) });
      network.online = false;
      const id = (await (await through(pageWrite()))!.json()).id;
      const result = await worker.actions.logout(keepAlive);
      assert.deepEqual(told('writesettled'), [{ id, outcome: 'dropped' }]);
      assert.equal(result.state.pendingWrites, 0);
      assert.deepEqual(announced.slice(-2).map((announcement) => announcement.type), ['writesettled', 'change']);
      network.online = true;
      worker.nudge(keepAlive, true);
      assert.ok(!calls.some((call) => call.route === ADD));
    });

    it('a new cart drops the writes of the cart it replaces', async () => {
      const { through, network, worker, told } = offlineWorker(GUEST, {
        'POST /api/v2/storefront/cart': () => Response.json({ data: { id: '2', type: 'cart', attributes: { number: 'R200', token: 'second-token' } } }, { status: 201 }),
      });
      network.online = false;
      const id = (await (await through(pageWrite()))!.json()).id;
      network.online = true;
      await worker.actions.createCart(AbortSignal.timeout(5_000));
      assert.deepEqual(told('writesettled'), [{ id, outcome: 'dropped' }]);
    });

    it('another shopper’s login drops the writes of the sign-in before', async () => {
      const { through, network, worker, told, keepAlive } = offlineWorker(SIGNED_IN, {
        'POST /store_oauth/token': () => Response.json({ access_token: 'other/access', refresh_token: 'other/refresh', token_type: 'Bearer', expires_in: 3600 }),
      });
      network.online = false;
      const id = (await (await through(pageWrite()))!.json()).id;
      network.online = true;
      const result = await worker.actions.login('other@example.com', 'secret', keepAlive, AbortSignal.timeout(5_000));
      assert.deepEqual(told('writesettled'), [{ id, outcome: 'dropped' }]);
      assert.equal(result.state.pendingWrites, 0);
    });

    it('a guest’s write whose cart the shopper took into a sign-in is replayed with the bearer, after the cart’s association', async () => {
      const order: string[] = [];
      const { through, network, worker, calls, keepAlive, settled, told } = offlineWorker(GUEST, {
        'POST /store_oauth/token': () => Response.json({ access_token: 'a2/access', refresh_token: 'r2/refresh', token_type: 'Bearer', expires_in: 3600 }),
        'PATCH /api/v2/storefront/cart/associate': async () => {
          await new Promise((resolve) => setTimeout(resolve, 20));
          order.push('associate');
          return Response.json(CART_DOC);
        },
        [ADD]: () => (order.push('add_item'), Response.json(CART_DOC)),
      });
      network.online = false;
      const id = (await (await through(pageWrite()))!.json()).id;
      network.online = true;
      await worker.actions.login('demo@example.com', 'spree123', keepAlive, AbortSignal.timeout(5_000));
      worker.nudge(keepAlive, true);
      await settled();
      assert.deepEqual(order, ['associate', 'add_item']);
      const sent = calls.find((call) => call.route === ADD);
      assert.equal(sent?.request.headers.get('Authorization'), 'Bearer a2/access');
      assert.deepEqual(told('writesettled'), [{ id, outcome: 'applied', status: 200 }]);
    });

    it('a guest’s write goes with the sign-in that took its cart along, never with a shopper who signs in after it', async () => {
      let grants = 0;
      const { through, network, worker, calls, keepAlive, settled, told } = offlineWorker(GUEST, {
        'POST /store_oauth/token': () => (grants++, Response.json({ access_token: `shopper${grants}/access`, refresh_token: `shopper${grants}/refresh`, token_type: 'Bearer', expires_in: 3600 })),
        'PATCH /api/v2/storefront/cart/associate': () => Response.json(CART_DOC),
        'POST /store_oauth/revoke': () => Response.json({}),
        [ADD]: () => Response.json(CART_DOC),
      });
      network.online = false;
      const id = (await (await through(pageWrite()))!.json()).id;
      // The guest signs in as shopper 1, taking the cart along; shopper 2 then signs in on the same device, without a logout.
      await worker.actions.login('one@example.com', 'x', keepAlive, AbortSignal.timeout(5_000));
      const result = await worker.actions.login('two@example.com', 'y', keepAlive, AbortSignal.timeout(5_000));
      assert.deepEqual(told('writesettled'), [{ id, outcome: 'dropped' }]);
      assert.equal(result.state.pendingWrites, 0);
      await settled();
      network.online = true;
      worker.nudge(keepAlive, true);
      await settled();
      const sent = calls.find((call) => call.route === ADD);
      assert.equal(sent, undefined, `sent with ${sent?.request.headers.get('Authorization')}`);
    });
  });

  describe('replay triggers', () => {
    it('schedule the next replay when the head’s back-off ends', async () => {
      const wakes: number[] = [];
      const worker = routedWorker({ offlineWrites: true }, GUEST, { [SET]: offlineFetch }, Date.now, { writes: memoryWrites(), wakeIn: (ms) => void wakes.push(ms) });
      assert.equal((await worker.through(pageWrite('/api/v2/storefront/cart/set_quantity', { method: 'PATCH' })))?.status, 202);
      // Queuing it started a replay, which found it waiting; so does the next request.
      await worker.settled();
      worker.worker.nudge(worker.keepAlive);
      await worker.settled();
      assert.equal(wakes.length, 2);
      for (const ms of wakes) assert.ok(ms > 4_000 && ms <= 5_000, String(ms));
    });

    it('a worker that starts with writes queued sends them', async () => {
      const writes = memoryWrites();
      const first = offlineWorker(GUEST, {});
      first.network.online = false;
      await first.through(pageWrite());
      for (const stored of await first.writes.inner.list()) await writes.add(stored, 50);
      const started = routedWorker({ offlineWrites: true }, GUEST, { [ADD]: () => Response.json(CART_DOC) }, Date.now, { writes });
      for (let wait = 0; wait < 100 && started.calls.length === 0; wait++) await new Promise((resolve) => setTimeout(resolve, 5));
      assert.deepEqual(started.calls.map((call) => call.route), [ADD]);
    });

    it('Background Sync replays what is due, within its back-off, and rejects while writes are left, so that the browser tries again', async () => {
      let adds = 0;
      const { through, network, worker, calls, writes } = offlineWorker(GUEST, { [ADD]: () => (++adds === 1 ? Response.json({}, { status: 503 }) : Response.json(CART_DOC)) });
      network.online = false;
      await through(pageWrite());
      network.online = true;
      await assert.rejects(worker.writes!.sync());
      assert.equal(calls.length, 1);
      await assert.rejects(worker.writes!.sync(), 'the write waits for its back-off');
      assert.equal(calls.length, 1);
      const [waiting] = await writes.inner.list();
      await writes.inner.replace({ ...waiting!, notBefore: Date.now() - 1 });
      await worker.writes!.sync();
      assert.equal(calls.length, 2);
    });

    it('many tabs reporting the network’s return send a write once at once, not again after it failed', async () => {
      const { through, network, worker, calls, keepAlive, settled } = offlineWorker(GUEST, { [ADD]: () => Response.json({}, { status: 503 }) });
      network.online = false;
      await through(pageWrite());
      network.online = true;
      for (let tab = 0; tab < 3; tab++) worker.nudge(keepAlive, true);
      await settled();
      assert.equal(calls.length, 1);
    });

    it('a device clock set back since a write failed does not hold it for as long: its back-off counts as over', async () => {
      let clock = Date.now();
      let sets = 0;
      const { through, network, replayed, told } = offlineWorker(GUEST, { [SET]: () => (++sets === 1 ? Response.json({}, { status: 503 }) : Response.json(CART_DOC)) }, {}, { now: () => clock });
      network.online = false;
      const id = (await (await through(pageWrite('/api/v2/storefront/cart/set_quantity', { method: 'PATCH' })))!.json()).id;
      network.online = true;
      await replayed();
      // The shopper corrects a clock that ran a day fast.
      clock -= 24 * HOUR;
      await replayed(false);
      assert.equal(sets, 2);
      assert.deepEqual(told('writesettled'), [{ id, outcome: 'applied', status: 200 }]);
    });

    it('tabs reporting one return each a moment after the last failed send the write once, and it waits its first back-off', async () => {
      // Playwright and a real network alike: the pages hear of the return before the worker's fetches
      // get through, and each tab's report lands after the attempt the one before started has failed.
      const start = Date.now();
      let clock = start;
      const wakeAt = new Set<number>();
      // A write that sets, which a lost answer leaves kept (a v2 add_item would be given up).
      const { through, network, calls, writes, replayed } = offlineWorker(GUEST, { [SET]: offlineFetch }, {}, { now: () => clock, wakeIn: (ms: number) => void wakeAt.add(clock + ms) });
      network.online = false;
      await through(pageWrite('/api/v2/storefront/cart/set_quantity', { method: 'PATCH' }));
      network.online = true;
      for (let tab = 0; tab < 3; tab++) {
        await replayed(true);
        clock += 40;
      }
      assert.equal(calls.length, 1, 'one attempt for one return');
      const [kept] = await writes.inner.list();
      assert.equal(kept?.attempts, 1);
      assert.deepEqual([...wakeAt], [start + 5_000], 'each pass sets the same wake: the first back-off’s end');
      // A report once the same-return window has passed is another return: it goes at once.
      clock += SAME_RETURN_MS;
      await replayed(true);
      assert.equal(calls.length, 2);
    });

    it('a tab’s report right after an attempt this worker made while it saw itself offline sends the write again: nothing was counted', async () => {
      let clock = Date.now();
      let adds = 0;
      const { through, network, calls, told, replayed } = offlineWorker(GUEST, { [SET]: () => (++adds === 1 ? ((network.online = false), offlineFetch()) : Response.json(CART_DOC)) }, {}, { now: () => clock });
      network.online = false;
      const id = (await (await through(pageWrite('/api/v2/storefront/cart/set_quantity', { method: 'PATCH' })))!.json()).id;
      network.online = true;
      await replayed(true);
      clock += 40;
      await replayed(true);
      assert.equal(calls.length, 2);
      assert.deepEqual(told('writesettled'), [{ id, outcome: 'applied', status: 200 }]);
    });
  });

  describe('two workers of the origin', () => {
    before(() => void installFakeLocks());
    after(() => removeFakeLocks());

    it('tell a write applied, not dropped, when a logout in the other worker ends its sign-in while it is on its way', async () => {
      const credentials = memoryStorage(SIGNED_IN);
      const writes = memoryWrites();
      const told: unknown[] = [];
      let other: AuthWorker | undefined;
      const work: Promise<unknown>[] = [];
      const keepAlive: KeepAlive = (promise) => void work.push(promise);
      const make = (online: () => boolean) =>
        new AuthWorker(resolveOptions({ baseUrl: BASE, offlineWrites: true }, 'https://shop.example/storefront-auth-sw.js'), {
          fetch: async (input, init) => {
            const path = new URL(new Request(input, init).url).pathname;
            if (path.endsWith('/revoke')) return Response.json({});
            if (path.endsWith('/set_quantity')) {
              // The server has the write; meanwhile the shopper logs out in a page of the other worker.
              other!.writes?.invalidate();
              await other!.writes?.load();
              await other!.actions.logout(keepAlive);
              return Response.json(CART_DOC);
            }
            return new Response(null);
          },
          now: Date.now,
          storage: credentials,
          toPages: (announcement) => void (announcement.type === 'writesettled' && told.push(announcement.write)),
          log: undefined,
          writes,
          online,
        });
      const queuing = make(() => false);
      queuing.preload();
      const url = new URL(`${BASE}/api/v2/storefront/cart/set_quantity`);
      const id = (await (await queuing.requests.handle(pageWrite(url.pathname.slice(new URL(BASE).pathname.length), { method: 'PATCH' }), url, undefined, keepAlive)).json()).id;
      const sending = make(() => true);
      other = make(() => true);
      sending.preload();
      other.preload();
      sending.writes?.invalidate();
      sending.nudge(keepAlive, true);
      for (let seen = 0; seen < work.length; seen = work.length) await Promise.allSettled(work);
      assert.deepEqual(told, [{ id, outcome: 'applied', status: 200 }]);
    });

    it('send each write once, in order, one at a time, however many replays start at once', async () => {
      const credentials = memoryStorage(GUEST);
      const writes = memoryWrites();
      const sent: string[] = [];
      let inFlight = 0;
      const release = deferred<void>();
      const workers = [1, 2].map(() => {
        const worker = new AuthWorker(resolveOptions({ baseUrl: BASE, offlineWrites: true }, 'https://shop.example/storefront-auth-sw.js'), {
          fetch: async (input, init) => {
            const request = new Request(input, init);
            // The probe before a v2 add_item: the server's root answers.
            if (request.method === 'HEAD') return new Response(null);
            assert.equal(++inFlight, 1, 'one at a time across both workers');
            sent.push(await request.text());
            await release.promise;
            inFlight--;
            return Response.json(CART_DOC);
          },
          now: Date.now,
          storage: credentials,
          toPages: () => {},
          log: undefined,
          writes,
          online: () => true,
        });
        worker.preload();
        return worker;
      });
      // Queued while offline, as a page of the first worker made them.
      const queuing = routedWorker({ offlineWrites: true }, GUEST, {}, Date.now, { writes, online: () => false });
      for (const n of [1, 2, 3, 4]) await queuing.through(pageWrite('/api/v2/storefront/cart/add_item', { body: `{"n":${n}}` }));
      const work: Promise<unknown>[] = [];
      const keepAlive: KeepAlive = (promise) => void work.push(promise);
      for (const worker of workers) {
        worker.writes?.invalidate();
        worker.nudge(keepAlive, true);
        worker.nudge(keepAlive, true);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
      release.resolve();
      for (let seen = 0; seen < work.length; seen = work.length) await Promise.allSettled(work);
      assert.deepEqual(sent, ['{"n":1}', '{"n":2}', '{"n":3}', '{"n":4}']);
      assert.deepEqual(await writes.list(), []);
    });
  });

  describe('storage', () => {
    it('that cannot say how many writes wait leaves a write to go as without the queue', async () => {
      const broken = (): Promise<never> => Promise.reject(new Error('IndexedDB broke'));
      const failing: WriteStorage = { ...memoryWrites(), count: broken, add: broken, list: broken };
      const online = routedWorker({ offlineWrites: true }, GUEST, { [ADD]: () => Response.json(CART_DOC) }, Date.now, { writes: failing });
      assert.equal((await online.through(pageWrite()))?.status, 200);
      assert.equal((await online.worker.actions.getState()).state.pendingWrites, 0);
      const offline = routedWorker({ offlineWrites: true }, GUEST, {}, Date.now, { writes: failing, online: () => false });
      await assert.rejects(offline.through(pageWrite()), TypeError);
      assert.deepEqual(offline.announced, []);
    });

    // An upgrade blocked by another connection, or a stuck disk: the open never answers.
    const never = (): Promise<never> => new Promise<never>(() => {});

    it('that does not answer holds a write no longer than a storage wait: it goes as without the queue', async () => {
      const stuck: WriteStorage = { ...memoryWrites(), count: never, list: never, add: never };
      const { through, calls } = routedWorker({ offlineWrites: true }, GUEST, { [SET]: () => Response.json(CART_DOC) }, Date.now, { writes: stuck });
      const started = Date.now();
      assert.equal((await through(pageWrite('/api/v2/storefront/cart/set_quantity', { method: 'PATCH' })))?.status, 200);
      assert.ok(Date.now() - started < 3_000, `held ${Date.now() - started} ms`);
      assert.equal(calls.length, 1);
    });

    it('that stores a write only after the wait: the page gets the network error, and the write is taken out when it lands', async () => {
      const inner = memoryWrites();
      const landing = deferred<void>();
      const late: WriteStorage = { ...inner, add: async (write, max) => (await landing.promise, inner.add(write, max)) };
      const { through, announced, worker } = routedWorker({ offlineWrites: true }, GUEST, {}, Date.now, { writes: late, online: () => false });
      await assert.rejects(through(pageWrite()), TypeError);
      landing.resolve();
      await new Promise((resolve) => setTimeout(resolve, 10));
      assert.deepEqual(await inner.list(), [], 'the page was told it failed: nothing waits to be sent again');
      assert.deepEqual(announced, []);
      assert.equal((await worker.actions.getState()).state.pendingWrites, 0);
    });

    it('that does not answer holds getState and logout no longer than a storage wait', async () => {
      const inner = memoryWrites();
      const { through, network, worker, keepAlive, announced } = offlineWorker(GUEST, {}, {}, { writes: inner });
      network.online = false;
      assert.equal((await through(pageWrite()))?.status, 202);
      // Storage stops answering, and the count is to be read again (another worker changed the queue).
      Object.assign(inner, { count: never, list: never, add: never, remove: never });
      worker.writes?.invalidate();
      const started = Date.now();
      assert.equal((await worker.actions.getState()).state.pendingWrites, 0);
      const loggedOut = await worker.actions.logout(keepAlive);
      assert.equal(loggedOut.state.cart, null);
      assert.ok(Date.now() - started < 5_000, `held ${Date.now() - started} ms`);
      assert.equal(announced.at(-1)?.type, 'change', 'the logout is told');
    });

    it('deleted (site data cleared) leaves no write waiting, known without a read that would create it again', async () => {
      const { through, network, worker, writes } = offlineWorker(GUEST, {});
      network.online = false;
      await through(pageWrite());
      assert.equal(worker.writes?.pending, 1);
      const reads = { ...writes.counts };
      worker.forgetMemoryCopy('deleted');
      assert.equal(worker.writes?.pending, 0);
      assert.equal((await worker.actions.getState()).state.pendingWrites, 0);
      assert.deepEqual(writes.counts, reads);
    });

    it('wanted by a newer release: the replay in flight settles the write it is sending, and sends no more', async () => {
      const gate = deferred<void>();
      const { through, network, worker, calls, writes, keepAlive } = offlineWorker(GUEST, {
        [ADD]: async () => {
          await gate.promise;
          return Response.json(CART_DOC);
        },
      });
      network.online = false;
      await through(pageWrite());
      await through(pageWrite());
      network.online = true;
      worker.nudge(keepAlive, true);
      while (calls.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
      let settled = false;
      const handedOver = worker.settleWrites().then(() => (settled = true));
      await new Promise((resolve) => setTimeout(resolve, 10));
      assert.equal(settled, false, 'waits for the write in flight');
      gate.resolve();
      await handedOver;
      assert.equal(calls.length, 1, 'the next write is left to the newer release');
      assert.equal((await writes.inner.list()).length, 1, 'the sent write is out of the queue before the hand-over');
    });

    it('closed by the browser is counted again', async () => {
      const { through, network, worker, writes } = offlineWorker(GUEST, {});
      network.online = false;
      await through(pageWrite());
      const counted = writes.counts.count;
      worker.forgetMemoryCopy('closed');
      assert.equal((await worker.actions.getState()).state.pendingWrites, 1);
      assert.equal(writes.counts.count, counted + 1);
    });
  });

  describe('the warm path', () => {
    it('reads no write storage for requests while nothing is queued, once the count is known', async () => {
      const { through, writes, settled } = offlineWorker(GUEST, { 'GET /api/v2/storefront/cart': () => Response.json(CART_DOC), [ADD]: () => Response.json(CART_DOC) });
      await through(new Request(`${BASE}/api/v2/storefront/cart`));
      await settled();
      const before = { ...writes.counts };
      for (let n = 0; n < 5; n++) {
        await through(new Request(`${BASE}/api/v2/storefront/cart`));
        await through(pageWrite());
      }
      await settled();
      assert.deepEqual(writes.counts, before);
      assert.equal(before.count, 1, 'the count was read once, as the worker started');
    });
  });
});
