// A login while the credentials were never read and storage does not answer within its 2 s bound
// (docs/behaviour.md, "Bounds on every wait": the worker answers from its memory copy, nothing held, and
// "the write lands when storage answers"). Storage holds a guest's cart, with a write queued on it:
// the login takes that cart along, and "A guest's write whose cart the shopper took along into a
// sign-in is replayed with the bearer" ("Offline cart writes"). The stand-in the bound answers with
// ("nothing held", so no cart) is no reason to drop the write: not when the login's write lands, nor
// when the network returns while storage is still stuck and a replay starts (the memory copy is then
// a guess made with nothing read, holding the session and no cart). Also a login whose write outlasts
// its wait while this worker's memory copy is known but behind storage: another worker stored a guest
// cart with a write queued on it, not heard yet (no BroadcastChannel here).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Announcement } from '../src/shared/protocol.js';
import { AuthWorker } from '../src/sw/authWorker.js';
import type { CredentialStorage, Credentials } from '../src/sw/credentialStorage.js';
import { resolveOptions } from '../src/sw/options.js';
import type { KeepAlive } from '../src/sw/requestPath.js';
import type { QueuedWrite } from '../src/sw/queuedWrite.js';
import { memoryWrites, type WriteStorage } from '../src/sw/writeStore.js';
import { installFakeLocks, removeFakeLocks, stallingStorage, unrefChannels } from './fakes.js';

const BASE = 'https://slow-login.example/store';
const CART = { token: 'Gu+e/st\\tok"en', number: 'R640' };
const GUEST: Credentials = { cart: CART, session: null, backoff: null };

/** Queues a guest's write on `cart` (`path` under BASE), made offline. */
async function queueGuestWrite(writes: WriteStorage, id: string, method: string, path: string, body: string, cart: string): Promise<void> {
  const write: QueuedWrite = {
    id,
    baseUrl: BASE,
    method,
    url: `${BASE}${path}`,
    headers: [['content-type', 'application/vnd.api+json']],
    body: new TextEncoder().encode(body).buffer as ArrayBuffer,
    credentials: 'same-origin',
    key: null,
    cart,
    signInId: null,
    createdAt: Date.now(),
    attempts: 0,
    notBefore: 0,
  };
  await writes.add(write, 50);
}

/** A worker with offline writes on, started (its storage read begun), telling its pages into `announced`. */
function startedWorker(storage: CredentialStorage, writes: WriteStorage, fetch: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>, announced: Announcement[], online: () => boolean): AuthWorker {
  const worker = new AuthWorker(resolveOptions({ baseUrl: BASE, offlineWrites: true }, 'https://slow-login.example/storefront-auth-sw.js'), { fetch, now: Date.now, storage, toPages: (announcement) => void announced.push(announcement), log: undefined, writes, online });
  worker.preload();
  return worker;
}

/** What the guest's queued writes came to: the settled announcements, and the writes still queued. */
async function guestWritesAfter(announced: Announcement[], writes: WriteStorage): Promise<{ settled: unknown[]; queued: string[] }> {
  return { settled: announced.filter((a) => a.type === 'writesettled').map((a) => a.write), queued: (await writes.list()).map((w) => w.id) };
}

describe('a login while storage is slower than its bound', () => {
  before(() => {
    installFakeLocks();
    unrefChannels();
  });
  after(() => removeFakeLocks());

  for (const replay of [false, true]) {
    it(`does not drop the guest writes queued on the cart the login takes along${replay ? ', when a replay starts before storage answers' : ''}`, async () => {
      const announced: Announcement[] = [];
      const writes = memoryWrites();
      await queueGuestWrite(writes, 'guest-write-1', 'PATCH', '/api/v2/storefront/cart/set_quantity', '{"line_item_id":"9","quantity":4}', CART.number);
      const credentials = stallingStorage(GUEST);
      const network = { online: false };
      const work: Promise<unknown>[] = [];
      const keepAlive: KeepAlive = (promise) => void work.push(promise);
      const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
        const request = new Request(input, init);
        const path = new URL(request.url).pathname;
        if (path.endsWith('/store_oauth/token')) return Response.json({ access_token: 'aC/c+ess"t\\k', refresh_token: 'rE+f/resh', token_type: 'Bearer', expires_in: 3600, created_at: Math.floor(Date.now() / 1000) });
        // Offline for everything else until the network returns: the write stays queued.
        if (!network.online) throw new TypeError('Failed to fetch');
        if (request.method === 'HEAD') return new Response(null);
        return Response.json({ data: { id: '6', type: 'cart', attributes: { number: CART.number, token: CART.token } } });
      };
      // The worker was just started (a page's login woke it), and storage is stuck.
      credentials.stall();
      const worker = startedWorker(credentials.storage, writes, fetch, announced, () => network.online);
      await worker.actions.login('shopper@example.com', 'p"a\\ss/+', keepAlive, AbortSignal.timeout(9_000));
      await new Promise((resolve) => setTimeout(resolve, 100));
      if (replay) {
        // The network returns while storage is still stuck: a page reports it, a replay starts.
        network.online = true;
        worker.nudge(keepAlive, true);
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      credentials.resume();
      for (let seen = 0; seen < work.length; seen = work.length) await Promise.allSettled(work);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const stored = await credentials.stored.read();
      assert.deepEqual(stored.cart, CART, 'the login took the guest cart along in storage');
      assert.equal(stored.cartTakenBy, stored.signInId);
      const { settled, queued } = await guestWritesAfter(announced, writes);
      if (replay) {
        assert.ok(!settled.some((write) => (write as { outcome: string }).outcome === 'dropped'), `the guest's write on the cart the login took along was dropped: ${JSON.stringify(settled)}`);
      } else {
        assert.deepEqual(settled, [], `the guest's write on the cart the login took along was settled: ${JSON.stringify(settled)}`);
        assert.deepEqual(queued, ['guest-write-1']);
      }
    });
  }
});

const OTHER_CART = { token: 'Ot+h/er\\ca"rt', number: 'R7781' };

describe('a login whose write outlasts its wait, with a guest cart another worker stored', () => {
  before(() => {
    installFakeLocks();
    unrefChannels();
  });
  after(() => removeFakeLocks());

  it('keeps the guest writes queued on the cart the login takes along in storage', { timeout: 20_000 }, async () => {
    const announced: Announcement[] = [];
    const writes = memoryWrites();
    await queueGuestWrite(writes, 'other-guest-write', 'POST', '/api/v2/storefront/cart/add_item', '{"variant_id":"3","quantity":2}', OTHER_CART.number);
    const credentials = stallingStorage({ cart: null, session: null, backoff: null });
    const work: Promise<unknown>[] = [];
    const keepAlive: KeepAlive = (promise) => void work.push(promise);
    const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
      const request = new Request(input, init);
      if (new URL(request.url).pathname.endsWith('/store_oauth/token')) return Response.json({ access_token: 'aX/c+c"ess\\1', refresh_token: 'rX\\e+f/resh"2', token_type: 'Bearer', expires_in: 3600, created_at: Math.floor(Date.now() / 1000) });
      // Offline for everything else: the write stays queued, the association waits for the network.
      throw new TypeError('Failed to fetch');
    };
    const worker = startedWorker(credentials.storage, writes, fetch, announced, () => false);
    const { state } = await worker.actions.getState();
    assert.equal(state.cart, null);
    assert.equal(state.pendingWrites, 1);
    // Another worker stored its guest cart (its write above is queued on it); this worker was not told.
    await credentials.stored.update((held) => ({ ...held, cart: OTHER_CART }));
    // Storage turns slow; this worker's page signs the guest in.
    credentials.stall();
    await worker.actions.login('guest@example.com', 'p"a\\ss/+w', keepAlive, AbortSignal.timeout(9_000));
    credentials.resume();
    for (let seen = 0; seen < work.length; seen = work.length) await Promise.allSettled(work);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const stored = await credentials.stored.read();
    assert.deepEqual(stored.cart, OTHER_CART, 'the login took the guest cart along in storage');
    assert.equal(stored.cartTakenBy, stored.signInId);
    const { settled, queued } = await guestWritesAfter(announced, writes);
    assert.deepEqual(settled, [], `the guest's write on the cart the login took along was settled: ${JSON.stringify(settled)}`);
    assert.deepEqual(queued, ['other-guest-write']);
  });
});
