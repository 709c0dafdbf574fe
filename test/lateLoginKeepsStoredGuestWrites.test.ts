// A login whose storage write outlasts its 2 s wait while this worker's memory copy is known but
// behind storage: another worker created a guest cart and queued a write on it offline, not heard
// yet (no BroadcastChannel here). The login's write lands and takes that cart along (as a login
// from a guest does), so the guest's write on it belongs to the sign-in: "A guest's write whose cart
// the shopper took along into a sign-in is replayed with the bearer" (docs/behaviour.md, "Offline
// cart writes"). It must not be dropped for the memory copy's sake, which held no cart.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Announcement } from '../src/shared/protocol.js';
import { AuthWorker } from '../src/sw/authWorker.js';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { resolveOptions } from '../src/sw/options.js';
import type { KeepAlive } from '../src/sw/requestPath.js';
import { memoryWrites } from '../src/sw/writeStore.js';
import { installFakeLocks, removeFakeLocks, stallingStorage, unrefChannels } from './fakes.js';

const BASE = 'https://late-login.example/store';
const CART = { token: 'Ot+h/er\\ca"rt', number: 'R7781' };
const NOTHING: Credentials = { cart: null, session: null, backoff: null };

describe('a login whose write outlasts its wait, with a guest cart another worker stored', () => {
  before(() => {
    installFakeLocks();
    unrefChannels();
  });
  after(() => removeFakeLocks());

  it('keeps the guest writes queued on the cart the login takes along in storage', { timeout: 20_000 }, async () => {
    const announced: Announcement[] = [];
    const writes = memoryWrites();
    await writes.add(
      {
        id: 'other-guest-write',
        baseUrl: BASE,
        method: 'POST',
        url: `${BASE}/api/v2/storefront/cart/add_item`,
        headers: [['content-type', 'application/vnd.api+json']],
        body: new TextEncoder().encode('{"variant_id":"3","quantity":2}').buffer as ArrayBuffer,
        credentials: 'same-origin',
        key: null,
        cart: CART.number,
        signInId: null,
        createdAt: Date.now(),
        attempts: 0,
        notBefore: 0,
      },
      50,
    );
    const credentials = stallingStorage(NOTHING);
    const work: Promise<unknown>[] = [];
    const keepAlive: KeepAlive = (promise) => void work.push(promise);
    const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
      const request = new Request(input, init);
      if (new URL(request.url).pathname.endsWith('/store_oauth/token')) return Response.json({ access_token: 'aX/c+c"ess\\1', refresh_token: 'rX\\e+f/resh"2', token_type: 'Bearer', expires_in: 3600, created_at: Math.floor(Date.now() / 1000) });
      // Offline for everything else: the write stays queued, the association waits for the network.
      throw new TypeError('Failed to fetch');
    };
    const worker = new AuthWorker(resolveOptions({ baseUrl: BASE, offlineWrites: true }, 'https://late-login.example/storefront-auth-sw.js'), {
      fetch,
      now: Date.now,
      storage: credentials.storage,
      toPages: (announcement) => void announced.push(announcement),
      log: undefined,
      writes,
      online: () => false,
    });
    worker.preload();
    const { state } = await worker.actions.getState();
    assert.equal(state.cart, null);
    assert.equal(state.pendingWrites, 1);
    // Another worker stored its guest cart (its write above is queued on it); this worker was not told.
    await credentials.stored.update((held) => ({ ...held, cart: CART }));
    // Storage turns slow; this worker's page signs the guest in.
    credentials.stall();
    await worker.actions.login('guest@example.com', 'p"a\\ss/+w', keepAlive, AbortSignal.timeout(9_000));
    credentials.resume();
    for (let seen = 0; seen < work.length; seen = work.length) await Promise.allSettled(work);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const stored = await credentials.stored.read();
    assert.deepEqual(stored.cart, CART, 'the login took the guest cart along in storage');
    assert.equal(stored.cartTakenBy, stored.signInId);
    const settled = announced.filter((a) => a.type === 'writesettled').map((a) => a.write);
    assert.deepEqual(settled, [], `the guest's write on the cart the login took along was settled: ${JSON.stringify(settled)}`);
    assert.deepEqual((await writes.list()).map((w) => w.id), ['other-guest-write']);
  });
});
