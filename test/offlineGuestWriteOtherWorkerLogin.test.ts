// A guest's queued v2 write replayed by one worker while a login in another worker of the origin is
// still assigning the guest's cart to the user (docs/behaviour.md, "Offline cart writes": "A guest's
// write whose cart the shopper took into a sign-in is sent with that sign-in's bearer", and waits
// until the cart is assigned "in whichever worker the login runs"; test/offlineGuestWriteDuringLogin.test.ts
// has the same worker). v2 cart calls signed in carry the bearer alone, which names the user's cart,
// not the guest's, until the association has landed: the write must wait for it, or go as the guest's.
// The assignment's progress is stored (Credentials.cartAssigningUntil): a worker stopped mid-way
// leaves its mark, which holds the others' guest writes only until its time is up, however the
// device's clock moves; an earlier sign-in's assignment of the same cart does not end a later one's.
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
const CART_DOC = { data: { id: '8', type: 'cart', attributes: { number: CART.number, token: CART.token } } };
const SESSION: Session = { accessToken: '/B9+be\\arer"y', refreshToken: '+R\\ef/"resh', expiresAt: 2_100_000_000_000, lifetimeMs: 7_200_000, confirmed: true };
const SET_QUANTITY = `${BASE}/api/v2/storefront/cart/set_quantity`;

/**
 * The workers of one origin over one storage and one write queue, offline until `network.online`;
 * `serve` answers what reaches the network (a `HEAD`, the replay's probe, is answered here).
 */
function origin(serve: (request: Request) => Promise<Response>, now: () => number = Date.now) {
  const credentials = memoryStorage(GUEST);
  const writes = memoryWrites();
  const network = { online: false };
  const work: Promise<unknown>[] = [];
  const keepAlive: KeepAlive = (promise) => void work.push(promise);
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    if (!network.online) throw new TypeError('Failed to fetch');
    return request.method === 'HEAD' ? new Response(null) : serve(request);
  };
  return {
    credentials,
    network,
    keepAlive,
    /** A worker of the origin, started (as a page's message starts one) with the queue loaded. */
    async worker(): Promise<AuthWorker> {
      const worker = new AuthWorker(resolveOptions({ baseUrl: BASE, offlineWrites: true }, 'https://two-workers.example/storefront-auth-sw.js'), {
        fetch,
        now,
        storage: credentials,
        toPages: () => {},
        log: undefined,
        writes,
        online: () => network.online,
      });
      worker.preload();
      await worker.writes?.load();
      return worker;
    },
    /** Offline, the guest sets a quantity through `worker`: queued. */
    async queueGuestWrite(worker: AuthWorker): Promise<void> {
      const page = new Request(SET_QUANTITY, { method: 'PATCH', headers: { 'Content-Type': 'application/vnd.api+json' }, body: '{"line_item_id":"3","quantity":2}' });
      assert.equal((await worker.requests.handle(page, new URL(SET_QUANTITY), undefined, keepAlive)).status, 202);
    },
    /** Until the work kept alive, and the work it started, has settled. */
    async settled(): Promise<void> {
      for (let round = 0; round < 2; round++) {
        for (let seen = 0; seen < work.length; seen = work.length) await Promise.allSettled(work);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
  };
}

/** The token grant answering `pairs` in turn. */
function grants(pairs: { access_token: string; refresh_token: string }[]): () => Response {
  let granted = 0;
  return () => Response.json({ ...pairs[granted++], token_type: 'Bearer', expires_in: 3600 });
}

describe('a guest write replayed by one worker while another worker signs in', () => {
  before(() => {
    installFakeLocks();
    unrefChannels();
  });
  after(() => removeFakeLocks());

  it('never goes with the new bearer before the cart association has landed', async () => {
    const order: string[] = [];
    const associating = deferred<void>();
    const associateAnswer = deferred<void>();
    const grant = grants([{ access_token: 'B7/be+arer"x', refresh_token: 'r\\Ef/resh' }]);
    const shop = origin(async (request) => {
      const path = new URL(request.url).pathname;
      if (path.endsWith('/store_oauth/token')) return grant();
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
    });
    const signingIn = await shop.worker();
    const replaying = await shop.worker();
    await shop.queueGuestWrite(replaying);
    // The network returns; the shopper signs in in a page of the other worker, whose association is slow.
    shop.network.online = true;
    await signingIn.actions.login('shopper@example.com', 'pa"ss\\/+', shop.keepAlive, AbortSignal.timeout(5_000));
    await associating.promise;
    // The other worker hears of the sign-in, then a page of it reports the network's return.
    await new Promise((resolve) => setTimeout(resolve, 20));
    replaying.nudge(shop.keepAlive, true);
    await new Promise((resolve) => setTimeout(resolve, 50));
    associateAnswer.resolve();
    await shop.settled();
    // As the guest's before the association, or with the bearer after it; never with the bearer before.
    assert.ok(
      JSON.stringify(order) === JSON.stringify(['associate answered', 'set_quantity Bearer B7/be+arer"x']) || JSON.stringify(order) === JSON.stringify(['set_quantity guest true', 'associate answered']),
      `order: ${JSON.stringify(order)}`,
    );
  });

  it('is not held by an earlier sign-in\'s assignment of the same cart ending the later one\'s mark', async () => {
    const order: string[] = [];
    const pairs = [
      { access_token: 'Fi+rst/acc"ess\\1', refresh_token: 'f1/re+fr"esh' },
      { access_token: 'Se/co+nd"acc\\2', refresh_token: 's2+re/fr\\esh' },
    ];
    const grant = grants(pairs);
    const first = { started: deferred<void>(), answer: deferred<void>() };
    const second = { started: deferred<void>(), answer: deferred<void>() };
    const shop = origin(async (request) => {
      const path = new URL(request.url).pathname;
      const bearer = request.headers.get('Authorization');
      if (path.endsWith('/store_oauth/token')) return grant();
      if (path.endsWith('/cart/associate')) {
        const which = bearer === `Bearer ${pairs[0]!.access_token}` ? first : second;
        which.started.resolve();
        await which.answer.promise;
        order.push(`associate ${which === first ? 1 : 2} answered`);
        return Response.json(CART_DOC);
      }
      if (path.endsWith('/cart/set_quantity')) {
        order.push(`set_quantity ${bearer ?? 'guest'}`);
        return Response.json(CART_DOC);
      }
      return new Response(null, { status: 599 });
    });
    const a = await shop.worker();
    const b = await shop.worker();
    await shop.queueGuestWrite(a);
    shop.network.online = true;
    // Worker A: the shopper signs in; the cart's assignment is slow.
    await a.actions.login('one@example.com', 'p/w"1\\+', shop.keepAlive, AbortSignal.timeout(5_000));
    await first.started.promise;
    // The sign-in ends with the cart still held (a refresh refused, sessionRefresher.ts: `{ ...previous,
    // session: null, backoff }`): the cart is a guest's again, and the next sign-in takes it along.
    await shop.credentials.update((held) => ({ ...held, session: null, backoff: null }));
    // Worker B: a second sign-in takes the same cart along; its assignment is slow too.
    await b.actions.login('two@example.com', 'p+w/2"\\', shop.keepAlive, AbortSignal.timeout(5_000));
    await second.started.promise;
    assert.ok(((await shop.credentials.read()).cartAssigningUntil ?? 0) > Date.now(), 'the second sign-in marked its assignment');
    // The first assignment is answered, and worker A ends its mark; a page of A then reports the network's return.
    first.answer.resolve();
    await new Promise((resolve) => setTimeout(resolve, 50));
    a.nudge(shop.keepAlive, true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    second.answer.resolve();
    await shop.settled();
    // Never with the second bearer before the second assignment has been answered.
    const sent = order.indexOf(`set_quantity Bearer ${pairs[1]!.access_token}`);
    assert.ok(sent === -1 || sent > order.indexOf('associate 2 answered'), `order: ${JSON.stringify(order)}`);
  });

  /**
   * A mark stored `markedFor` ms ahead by a worker stopped mid-assignment; the device's clock runs 10
   * times faster than the real one, and `clockAt(elapsed)` is how far it is set back by then. Resolves
   * with the device time the guest's write went at, with the sign-in's bearer.
   */
  async function sentAfterStoppedMark(label: string, markedFor: number, setBack: (elapsed: number) => number): Promise<number> {
    const start = 1_900_000_000_000;
    let elapsed = 0;
    const clock = () => start + elapsed - setBack(elapsed);
    const sent: number[] = [];
    const shop = origin(async (request) => {
      if (new URL(request.url).pathname.endsWith('/cart/set_quantity')) {
        assert.equal(request.headers.get('Authorization'), `Bearer ${SESSION.accessToken}`, label);
        sent.push(elapsed);
        return Response.json(CART_DOC);
      }
      return new Response(null, { status: 599 });
    }, clock);
    await shop.queueGuestWrite(await shop.worker());
    // Another worker stored its sign-in, took the cart along, and was stopped before the assignment
    // ended; the browser stopped this one too, and a page's message starts it again.
    await shop.credentials.update((held) => ({ ...held, session: SESSION, signInId: 'sign-in-7', cartTakenBy: 'sign-in-7', cartAssigningUntil: start + markedFor }));
    const worker = await shop.worker();
    shop.network.online = true;
    worker.nudge(shop.keepAlive, true);
    const ticking = setInterval(() => (elapsed += 50), 5);
    try {
      // Not awaiting the work: a wait that never ends fails here instead of hanging the test.
      while (sent.length === 0 && elapsed < 30_000) await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      clearInterval(ticking);
    }
    assert.equal(sent.length, 1, `${label}: still unsent`);
    await shop.settled();
    return sent[0]!;
  }

  it('waits for a mark left by a worker stopped mid-assignment only until its time is up', async () => {
    const own = await sentAfterStoppedMark('its own time', 3_000, () => 0);
    assert.ok(own >= 3_000 && own <= 5_000, `its own time: sent at ${own} ms`);
    // A clock set back since the mark was stored: never longer than one assignment takes (10 s).
    const stored = await sentAfterStoppedMark('one assignment at most', 86_400_000, () => 0);
    assert.ok(stored >= 10_000 && stored <= 12_000, `one assignment at most: sent at ${stored} ms`);
    // 1 s into the wait, the clock is set back an hour (NTP): the time waited still counts.
    const during = await sentAfterStoppedMark('set back during the wait', 10_000, (elapsed) => (elapsed >= 1_000 ? 3_600_000 : 0));
    assert.ok(during <= 12_000, `set back during the wait: sent at ${during} ms`);
  });
});
