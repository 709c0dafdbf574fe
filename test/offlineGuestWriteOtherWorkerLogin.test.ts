// A guest's queued v2 write replayed by one worker while a login in another worker of the origin is
// still assigning the guest's cart to the user (CONTRACT.md, "Offline cart writes": "A guest's write
// whose cart the shopper took into a sign-in is sent with that sign-in's bearer"; "Replayed ... by one
// worker at a time across all tabs and workers"; test/offlineGuestWriteDuringLogin.test.ts has the
// same worker). v2 cart calls signed in carry the bearer alone, which names the user's cart, not the
// guest's, until the association has landed: the write must wait for it, or go as the guest's.
// The assignment's progress is stored (Credentials.cartAssigningUntil): a worker stopped mid-way
// leaves its mark, which holds the others' guest writes only until its time is up.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AuthWorker } from '../src/sw/authWorker.js';
import { memoryStorage, type Credentials } from '../src/sw/credentialStorage.js';
import { resolveOptions } from '../src/sw/options.js';
import type { KeepAlive } from '../src/sw/requestPath.js';
import type { Session } from '../src/sw/tokenResponse.js';
import { memoryWrites } from '../src/sw/writeStore.js';
import { deferred, installFakeLocks, removeFakeLocks, unrefChannels } from './fakes.js';

const BASE = 'https://two-workers.example/store';
const CART = { token: 'gU3+st/t\\ok"9', number: 'R881' };
const GUEST: Credentials = { cart: CART, session: null, backoff: null };
const SESSION: Session = { accessToken: '/B9+be\\arer"y', refreshToken: '+R\\ef/"resh', expiresAt: 2_100_000_000_000, lifetimeMs: 7_200_000, confirmed: true };
const CART_DOC = { data: { id: '8', type: 'cart', attributes: { number: CART.number, token: CART.token } } };

describe('a guest write replayed by one worker while another worker signs in', () => {
  before(() => {
    installFakeLocks();
    unrefChannels();
  });
  after(() => removeFakeLocks());

  it('never goes with the new bearer before the cart association has landed', async () => {
    const order: string[] = [];
    const network = { online: false };
    const associating = deferred<void>();
    const associateAnswer = deferred<void>();
    const credentials = memoryStorage(GUEST);
    const writes = memoryWrites();
    const work: Promise<unknown>[] = [];
    const keepAlive: KeepAlive = (promise) => void work.push(promise);
    const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
      const request = new Request(input, init);
      if (!network.online) throw new TypeError('Failed to fetch');
      const path = new URL(request.url).pathname;
      if (request.method === 'HEAD') return new Response(null);
      if (path.endsWith('/store_oauth/token')) return Response.json({ access_token: 'B7/be+arer"x', refresh_token: 'r\\Ef/resh', token_type: 'Bearer', expires_in: 3600 });
      if (path.endsWith('/cart/associate')) {
        associating.resolve();
        await associateAnswer.promise;
        order.push('associate answered');
        return Response.json(CART_DOC);
      }
      if (path.endsWith('/cart/set_quantity')) {
        order.push(`set_quantity ${request.headers.get('Authorization') ?? `guest ${request.headers.get('X-Store-Order-Token') === CART.token}`}`);
        return Response.json(CART_DOC);
      }
      return new Response(null, { status: 599 });
    };
    const make = () => {
      const worker = new AuthWorker(resolveOptions({ baseUrl: BASE, offlineWrites: true }, 'https://two-workers.example/storefront-auth-sw.js'), {
        fetch,
        now: Date.now,
        storage: credentials,
        toPages: () => {},
        log: undefined,
        writes,
        online: () => network.online,
      });
      worker.preload();
      return worker;
    };
    const signingIn = make();
    const replaying = make();
    await signingIn.writes?.load();
    await replaying.writes?.load();
    // Offline, the guest sets a quantity: queued.
    const url = new URL(`${BASE}/api/v2/storefront/cart/set_quantity`);
    const page = new Request(url, { method: 'PATCH', headers: { 'Content-Type': 'application/vnd.api+json' }, body: '{"line_item_id":"3","quantity":2}' });
    assert.equal((await replaying.requests.handle(page, url, undefined, keepAlive)).status, 202);
    // The network returns; the shopper signs in in a page of the other worker, whose association is slow.
    network.online = true;
    const login = signingIn.actions.login('shopper@example.com', 'pa"ss\\/+', keepAlive, AbortSignal.timeout(5_000));
    await login;
    await associating.promise;
    // The other worker hears of the sign-in, then a page of it reports the network's return.
    await new Promise((resolve) => setTimeout(resolve, 20));
    replaying.nudge(keepAlive, true);
    await new Promise((resolve) => setTimeout(resolve, 50));
    associateAnswer.resolve();
    for (let seen = 0; seen < work.length; seen = work.length) await Promise.allSettled(work);
    await new Promise((resolve) => setTimeout(resolve, 20));
    for (let seen = 0; seen < work.length; seen = work.length) await Promise.allSettled(work);
    // As the guest's before the association, or with the bearer after it; never with the bearer before.
    assert.ok(
      JSON.stringify(order) === JSON.stringify(['associate answered', 'set_quantity Bearer B7/be+arer"x']) || JSON.stringify(order) === JSON.stringify(['set_quantity guest true', 'associate answered']),
      `order: ${JSON.stringify(order)}`,
    );
  });

  it('waits for a mark left by a worker stopped mid-assignment only until its time is up', async () => {
    for (const [label, markedFor, sentBy] of [
      ['its own time', 3_000, [3_000, 5_000]],
      // A clock set back since the mark was stored: never longer than one assignment takes (10 s).
      ['one assignment at most', 86_400_000, [10_000, 12_000]],
    ] as const) {
      const start = 1_900_000_000_000;
      let clock = start;
      const sent: number[] = [];
      const credentials = memoryStorage(GUEST);
      const writes = memoryWrites();
      const work: Promise<unknown>[] = [];
      const keepAlive: KeepAlive = (promise) => void work.push(promise);
      const network = { online: false };
      const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
        const request = new Request(input, init);
        if (!network.online) throw new TypeError('Failed to fetch');
        if (request.method === 'HEAD') return new Response(null);
        if (new URL(request.url).pathname.endsWith('/cart/set_quantity')) {
          assert.equal(request.headers.get('Authorization'), `Bearer ${SESSION.accessToken}`, label);
          sent.push(clock - start);
          return Response.json(CART_DOC);
        }
        return new Response(null, { status: 599 });
      };
      const make = () => {
        const worker = new AuthWorker(resolveOptions({ baseUrl: BASE, offlineWrites: true }, 'https://two-workers.example/storefront-auth-sw.js'), {
          fetch,
          now: () => clock,
          storage: credentials,
          toPages: () => {},
          log: undefined,
          writes,
          online: () => network.online,
        });
        worker.preload();
        return worker;
      };
      const queuing = make();
      await queuing.writes?.load();
      const url = new URL(`${BASE}/api/v2/storefront/cart/set_quantity`);
      const page = new Request(url, { method: 'PATCH', headers: { 'Content-Type': 'application/vnd.api+json' }, body: '{"line_item_id":"3","quantity":2}' });
      assert.equal((await queuing.requests.handle(page, url, undefined, keepAlive)).status, 202, label);
      // Another worker stored its sign-in, took the cart along, and was stopped before the assignment
      // ended; the browser stopped this one too, and a page's message starts it again.
      await credentials.update((held) => ({ ...held, session: SESSION, signInId: 'sign-in-7', cartTakenBy: 'sign-in-7', cartAssigningUntil: start + markedFor }));
      const worker = make();
      await worker.writes?.load();
      network.online = true;
      worker.nudge(keepAlive, true);
      // The device's clock runs 10 times faster than the real one.
      const ticking = setInterval(() => (clock += 50), 5);
      try {
        // Not awaiting the work: a wait that never ends fails here instead of hanging the test.
        while (sent.length === 0 && clock - start < 30_000) await new Promise((resolve) => setTimeout(resolve, 20));
        assert.equal(sent.length, 1, `${label}: still unsent`);
        for (let seen = 0; seen < work.length; seen = work.length) await Promise.allSettled(work);
      } finally {
        clearInterval(ticking);
      }
      assert.equal(sent.length, 1, label);
      assert.ok(sent[0]! >= sentBy[0] && sent[0]! <= sentBy[1], `${label}: sent at ${sent[0]} ms`);
    }
  });
});
