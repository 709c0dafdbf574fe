// A queued write replayed while the memory copy is being read again (another worker's announcement,
// a connection the browser closed) and storage takes longer than its 2 s bound (docs/behaviour.md,
// "Offline cart writes": "If at replay the worker holds another cart, or the shopper who made it has
// signed out or another has signed in, it is dropped unsent"). The shopper still holds the cart: the
// stand-in "nothing held" that the bound answers with is no reason to drop the write.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Announcement } from '../src/shared/protocol.js';
import { AuthWorker } from '../src/sw/authWorker.js';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { resolveOptions } from '../src/sw/options.js';
import type { KeepAlive } from '../src/sw/requestPath.js';
import { memoryWrites } from '../src/sw/writeStore.js';
import { heldReads, installFakeLocks, removeFakeLocks, unrefChannels } from './fakes.js';

const BASE = 'https://slow-reread.example/store';
const CART = { token: 'sl+ow/Re\\ad"tok', number: 'R552' };
const GUEST: Credentials = { cart: CART, session: null, backoff: null };
const CART_DOC = { data: { id: '5', type: 'cart', attributes: { number: CART.number, token: CART.token } } };

describe('a replay while the credentials are re-read slowly', () => {
  before(() => {
    installFakeLocks();
    unrefChannels();
  });
  after(() => removeFakeLocks());

  it('does not drop a guest write whose cart is still held', async () => {
    const network = { online: false };
    const sent: string[] = [];
    const announced: Announcement[] = [];
    const credentials = heldReads(GUEST);
    const writes = memoryWrites();
    const work: Promise<unknown>[] = [];
    const keepAlive: KeepAlive = (promise) => void work.push(promise);
    const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
      const request = new Request(input, init);
      if (!network.online) throw new TypeError('Failed to fetch');
      if (request.method === 'HEAD') return new Response(null);
      if (new URL(request.url).pathname.endsWith('/cart/set_quantity')) {
        sent.push(request.headers.get('X-Spree-Order-Token') ?? 'none');
        return Response.json(CART_DOC);
      }
      return new Response(null, { status: 599 });
    };
    const worker = new AuthWorker(resolveOptions({ baseUrl: BASE, offlineWrites: true }, 'https://slow-reread.example/storefront-auth-sw.js'), {
      fetch,
      now: Date.now,
      storage: credentials.storage,
      toPages: (announcement) => void announced.push(announcement),
      log: undefined,
      writes,
      online: () => network.online,
    });
    worker.preload();
    await worker.writes?.load();
    const url = new URL(`${BASE}/api/v2/storefront/cart/set_quantity`);
    const page = new Request(url, { method: 'PATCH', headers: { 'Content-Type': 'application/vnd.api+json' }, body: '{"line_item_id":"4","quantity":3}' });
    assert.equal((await worker.requests.handle(page, url, undefined, keepAlive)).status, 202);
    // The browser closes the connection (or another worker announces a change): the copy is read
    // again, and storage is slow to answer that read.
    credentials.hold();
    worker.forgetMemoryCopy('closed');
    network.online = true;
    worker.nudge(keepAlive, true);
    await new Promise((resolve) => setTimeout(resolve, 2_600));
    credentials.release();
    for (let seen = 0; seen < work.length; seen = work.length) await Promise.allSettled(work);
    await new Promise((resolve) => setTimeout(resolve, 50));
    worker.nudge(keepAlive, true);
    for (let seen = 0; seen < work.length; seen = work.length) await Promise.allSettled(work);
    const settled = announced.filter((a) => a.type === 'writesettled').map((a) => a.write);
    assert.deepEqual(
      settled.map((w) => (w as { outcome: string }).outcome),
      ['applied'],
      `the write, its cart still held, was told ${JSON.stringify(settled)} and sent ${JSON.stringify(sent)}`,
    );
    assert.equal(sent.length, 1);
    assert.deepEqual((await credentials.stored.read()).cart, CART);
  });
});
