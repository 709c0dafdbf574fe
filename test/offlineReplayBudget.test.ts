// The time budget of a replayed offline write (src/sw/offlineWrites.ts, `REPLAY_BUDGET_MS`;
// src/sw/requestPath.ts, `sendQueued`) starts when the write goes out, not before a due refresh: a
// refresh whose token endpoint never answers takes its own 8 s, after which the still-valid bearer is
// used and the v2 add_item is sent and applied. Started before, it had run out by then, the browser's
// fetch rejected at once, and the add_item that never left was given up as expired.
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

describe('the replay budget of a queued write', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => void ((globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined));
  after(() => void ((globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = channel));

  it('sends a v2 add_item once a due refresh gave up, with the whole budget for its answer', { timeout: 30_000 }, async () => {
    // Signed in, the bearer still valid for 20 s: due for a refresh (30 s window), still sendable.
    const held: Credentials = { cart: CART, session: { accessToken: 'a1/access', refreshToken: 'r1/refresh', expiresAt: Date.now() + 20_000, lifetimeMs: 3_600_000, confirmed: true }, backoff: null, signInId: 'sign-in-1' };
    const sentWrites: string[] = [];
    const announced: Announcement[] = [];
    const kept: Promise<unknown>[] = [];
    const network = { online: false };
    // A browser's fetch: rejects at once for an aborted signal, and when its signal aborts while waiting.
    const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
      const request = new Request(input, init);
      // The caller's own signal: a copy's (undici's Request follows it weakly) may be collected first.
      const signal = init?.signal ?? (input instanceof Request ? input.signal : request.signal);
      signal.throwIfAborted();
      const path = new URL(request.url).pathname.slice('/store'.length);
      if (request.method === 'HEAD') return new Response(null);
      if (path === '/store_oauth/token') {
        // A slow token endpoint: no answer before the worker's own 8 s budget ends.
        return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
      }
      if (path === ADD) {
        sentWrites.push(request.method);
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
    assert.equal(answer.status, 202, 'queued while offline, never sent');
    network.online = true;
    // Node's AbortSignal.timeout timers do not hold the event loop: this does.
    const hold = setInterval(() => {}, 1_000);
    try {
      worker.nudge(keepAlive, true);
      for (let seen = 0; seen < kept.length; seen = kept.length) await Promise.allSettled(kept);
    } finally {
      clearInterval(hold);
    }
    const id = (await answer.json()).id;
    const settled = announced.filter((a) => a.type === 'writesettled').map((a) => a.write);
    assert.deepEqual({ sent: sentWrites, settled }, { sent: ['POST'], settled: [{ id, outcome: 'applied', status: 200 }] }, 'sent once the refresh gave up, not given up unsent');
  });
});
