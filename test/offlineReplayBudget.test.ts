// The time budget of a replayed offline write (src/sw/offlineWrites.ts, `REPLAY_BUDGET_MS`;
// src/sw/requestPath.ts, `sendQueued`) is the send's own: it starts when the write goes out, not before
// a due refresh (a refresh whose token endpoint never answers takes its own 8 s, after which the
// still-valid bearer is used), and the replay after a 401 is made anew with a budget of its own (the
// first answer and the refresh may have spent the first one's). Spent before, the browser's fetch
// rejected at once, and a v2 add_item that the server never applied was given up as expired.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Announcement } from '../src/shared/protocol.js';
import { AuthWorker } from '../src/sw/authWorker.js';
import { memoryStorage, type Credentials } from '../src/sw/credentialStorage.js';
import { resolveOptions } from '../src/sw/options.js';
import type { KeepAlive } from '../src/sw/requestPath.js';
import { memoryWrites } from '../src/sw/writeStore.js';

const BASE = 'https://shop.example/store';
const CART = { token: 'Zq+/order-token', number: 'R100' };
const ADD = '/api/v2/storefront/cart/add_item';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const signedIn = (expiresInMs: number): Credentials => ({ cart: CART, session: { accessToken: 'a1/access', refreshToken: 'r1/refresh', expiresAt: Date.now() + expiresInMs, lifetimeMs: 3_600_000, confirmed: true }, backoff: null, signInId: 'sign-in-1' });

/**
 * Queues a v2 add_item offline, comes back online and waits until the replay is done: what reached
 * the server (`token`, or `add` and its bearer) and what the pages were told. The fake fetch is a
 * browser's: it rejects at once for an aborted signal, and when its signal aborts while waiting.
 */
async function replayAddItem(held: Credentials, answer: { token: (signal: AbortSignal) => Promise<Response>; add: (bearer: string | null) => Promise<Response> }): Promise<{ sent: string[]; settled: unknown[]; id: string }> {
  const sent: string[] = [];
  const announced: Announcement[] = [];
  const kept: Promise<unknown>[] = [];
  const network = { online: false };
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    // The caller's own signal: a copy's (undici's Request follows it weakly) may be collected first.
    const signal = init?.signal ?? (input instanceof Request ? input.signal : request.signal);
    signal.throwIfAborted();
    const path = new URL(request.url).pathname.slice('/store'.length);
    if (request.method === 'HEAD') return new Response(null);
    if (path === '/store_oauth/token') {
      sent.push('token');
      return answer.token(signal);
    }
    if (path !== ADD) return new Response(null, { status: 599 });
    const bearer = request.headers.get('Authorization');
    sent.push(`add ${bearer}`);
    return answer.add(bearer);
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
  const queued = await worker.requests.handle(page, url, decision === true ? undefined : decision, keepAlive);
  assert.equal(queued.status, 202, 'queued while offline, never sent');
  network.online = true;
  // Node's AbortSignal.timeout timers do not hold the event loop: this does.
  const hold = setInterval(() => {}, 1_000);
  try {
    worker.nudge(keepAlive, true);
    for (let seen = 0; seen < kept.length; seen = kept.length) await Promise.allSettled(kept);
  } finally {
    clearInterval(hold);
  }
  const settled = announced.filter((a) => a.type === 'writesettled').map((a) => a.write);
  return { sent, settled, id: (await queued.json()).id };
}

const CART_DOC = { data: { id: '1', type: 'cart', attributes: { number: 'R100', token: CART.token } } };

// Each case has its own worker and storage, and spends most of its time waiting: run them side by side.
describe('the replay budget of a queued write', { concurrency: true }, () => {
  const channel = globalThis.BroadcastChannel;
  before(() => void ((globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined));
  after(() => void ((globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = channel));

  it('sends a v2 add_item once a due refresh gave up, with the whole budget for its answer', { timeout: 30_000 }, async () => {
    // Signed in, the bearer still valid for 20 s: due for a refresh (30 s window), still sendable.
    const { sent, settled, id } = await replayAddItem(signedIn(20_000), {
      // A slow token endpoint: no answer before the worker's own 8 s budget ends.
      token: (signal) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
      add: async () => Response.json(CART_DOC),
    });
    assert.deepEqual({ sent, settled }, { sent: ['token', 'add Bearer a1/access'], settled: [{ id, outcome: 'applied', status: 200 }] }, 'sent once the refresh gave up, not given up unsent');
  });

  it('replays a v2 add_item answered 401 after 1.5 s, then a 7 s refresh, once with the new bearer, on a budget of its own', { timeout: 40_000 }, async () => {
    // Signed in, the bearer valid for an hour: not due, so no refresh before the first send.
    const { sent, settled, id } = await replayAddItem(signedIn(3_600_000), {
      token: async () => {
        await sleep(7_000);
        return Response.json({ access_token: 'a2/fresh', refresh_token: 'r2/fresh', token_type: 'Bearer', expires_in: 3600 });
      },
      add: async (bearer) => {
        if (bearer !== 'Bearer a1/access') return Response.json(CART_DOC);
        await sleep(1_500);
        return Response.json({ error: 'The access token expired' }, { status: 401 });
      },
    });
    assert.deepEqual({ sent, settled }, { sent: ['add Bearer a1/access', 'token', 'add Bearer a2/fresh'], settled: [{ id, outcome: 'applied', status: 200 }] });
  });
});
