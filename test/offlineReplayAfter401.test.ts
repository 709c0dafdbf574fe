// The replay of a queued write after a 401 (src/sw/requestPath.ts `sendQueued`, `#send`'s `replayAs`):
// made anew once the refresh is done, with its own 8 s budget (the first try and the refresh may have
// spent the first one's: the replay's fetch then rejected at once, and a v2 add_item the server had
// refused was given up as expired), and only while the write still belongs to what is held (a new
// cart kept during the refresh, by another tab, left a write made on the old cart replayed anyway).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Announcement } from '../src/shared/protocol.js';
import { AuthWorker } from '../src/sw/authWorker.js';
import { memoryStorage, type Credentials } from '../src/sw/credentialStorage.js';
import { resolveOptions } from '../src/sw/options.js';
import type { KeepAlive } from '../src/sw/requestPath.js';
import { memoryWrites } from '../src/sw/writeStore.js';
import { routedWorker } from './workerHarness.js';

const BASE = 'https://shop.example/store';
const CART = { token: 'Zq+/order-token', number: 'R100' };
const ADD = '/api/v2/storefront/cart/add_item';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const HOUR = 3_600_000;
const OTHER_CART = { token: 'new/order-token', number: 'R200' };
const session = (n: number) => ({ accessToken: `a${n}+/access`, refreshToken: `r${n}/refresh`, expiresAt: Date.now() + HOUR, lifetimeMs: HOUR, confirmed: true });
const SIGNED_IN: Credentials = { cart: CART, session: session(1), backoff: null, signInId: 'sign-in-1' };
const SET = 'PATCH /api/v2/storefront/cart/set_quantity';
const CART_DOC = { data: { id: '1', type: 'cart', attributes: { number: 'R100', token: CART.token } } };

describe('the replay of a queued write after a 401', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => void ((globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined));
  after(() => void ((globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = channel));

  it('a v2 add_item answered 401 after 1.5 s, then a 7 s refresh: replayed once with the new bearer, on a budget of its own', { timeout: 40_000 }, async () => {
    // Signed in, the bearer valid for an hour: not due, so no refresh before the first send.
    const held: Credentials = { cart: CART, session: { accessToken: 'a1/access', refreshToken: 'r1/refresh', expiresAt: Date.now() + 3_600_000, lifetimeMs: 3_600_000, confirmed: true }, backoff: null, signInId: 'sign-in-1' };
    const sent: string[] = [];
    const announced: Announcement[] = [];
    const kept: Promise<unknown>[] = [];
    const network = { online: false };
    const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
      const request = new Request(input, init);
      const signal = init?.signal ?? (input instanceof Request ? input.signal : request.signal);
      signal.throwIfAborted();
      const path = new URL(request.url).pathname.slice('/store'.length);
      if (request.method === 'HEAD') return new Response(null);
      if (path === '/store_oauth/token') {
        sent.push('token');
        await sleep(7_000);
        return Response.json({ access_token: 'a2/fresh', refresh_token: 'r2/fresh', token_type: 'Bearer', expires_in: 3600 });
      }
      if (path === ADD) {
        const bearer = request.headers.get('Authorization');
        sent.push(`add ${bearer}`);
        if (bearer === 'Bearer a1/access') {
          await sleep(1_500);
          return Response.json({ error: 'The access token expired' }, { status: 401 });
        }
        return Response.json({ data: { id: '1', type: 'cart', attributes: { number: 'R100', token: CART.token } } });
      }
      return new Response(null, { status: 599 });
    };
    const worker = new AuthWorker(resolveOptions({ baseUrl: BASE, offlineWrites: true }, 'https://shop.example/storefront-auth-sw.js'), {
      fetch,
      now: Date.now,
      storage: memoryStorage(held),
      toPages: (announcement) => void announced.push(announcement),
      log: undefined,
      writes: memoryWrites(),
      online: () => network.online,
    });
    worker.preload();
    const keepAlive: KeepAlive = (work) => void kept.push(work);
    const page = new Request(`${BASE}${ADD}`, { method: 'POST', headers: { 'Content-Type': 'application/vnd.api+json' }, body: '{"variant_id":"2","quantity":1}' });
    const url = new URL(page.url);
    const decision = worker.requests.match(page, url);
    assert.ok(decision !== null);
    const answer = await worker.requests.handle(page, url, decision === true ? undefined : decision, keepAlive);
    assert.equal(answer.status, 202);
    network.online = true;
    const hold = setInterval(() => {}, 1_000);
    try {
      worker.nudge(keepAlive, true);
      for (let seen = 0; seen < kept.length; seen = kept.length) await Promise.allSettled(kept);
    } finally {
      clearInterval(hold);
    }
    const id = (await answer.json()).id;
    const settled = announced.filter((a) => a.type === 'writesettled').map((a) => a.write);
    assert.deepEqual({ sent, settled }, { sent: ['add Bearer a1/access', 'token', 'add Bearer a2/fresh'], settled: [{ id, outcome: 'applied', status: 200 }] });
  });

  it('is dropped unsent when the worker holds another cart by then (a createCart in another tab)', async () => {
    const network = { online: true };
    let sets = 0;
    let heldAtReplay: string | undefined;
    const w = routedWorker({ offlineWrites: true }, SIGNED_IN, {
      [SET]: async () => {
        if (++sets > 1) {
          heldAtReplay = (await w.worker.actions.getState()).state.cart?.number;
          return Response.json(CART_DOC);
        }
        // While the replay is on its way, another tab creates a new cart for the same sign-in.
        await w.storage.update((stored) => ({ ...stored, cart: OTHER_CART }));
        return Response.json({ error: 'The access token expired' }, { status: 401 });
      },
      'POST /store_oauth/token': () => Response.json({ access_token: 'a2/fresh', refresh_token: 'r2/fresh', token_type: 'Bearer', expires_in: 3600 }),
    }, Date.now, { writes: memoryWrites(), online: () => network.online, requestSync: () => {} });
    network.online = false;
    const page = new Request(`https://shop.example/store/api/v2/storefront/cart/set_quantity`, { method: 'PATCH', headers: { 'Content-Type': 'application/vnd.api+json' }, body: '{"line_item_id":"1","quantity":3}' });
    const queued = await w.through(page);
    assert.equal(queued?.status, 202);
    const id = (await queued!.json()).id;
    network.online = true;
    w.worker.nudge(w.keepAlive, true);
    await w.settled();
    const settled = w.announced.filter((a) => a.type === 'writesettled').map((a) => a.write);
    assert.deepEqual(
      { sent: w.calls.map((c) => `${c.route} ${c.request.headers.get('Authorization')}`), settled, heldAtReplay },
      { sent: [`${SET} Bearer a1+/access`, 'POST /store_oauth/token null'], settled: [{ id, outcome: 'dropped' }], heldAtReplay: undefined },
    );
  });
});
