// The stored mark of a guest cart's assignment to a sign-in (Credentials.cartAssigningUntil; docs/
// behaviour.md, "Offline cart writes": a guest's write waits until the cart is assigned, in whichever
// worker the login runs): an earlier sign-in's assignment of the same cart does not end a later one's,
// and a clock set back during the wait does not hold a write past one assignment's time.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AuthWorker } from '../src/sw/authWorker.js';
import { memoryStorage, type Credentials } from '../src/sw/credentialStorage.js';
import { resolveOptions } from '../src/sw/options.js';
import type { KeepAlive } from '../src/sw/requestPath.js';
import type { Session } from '../src/sw/tokenResponse.js';
import { memoryWrites } from '../src/sw/writeStore.js';
import { deferred, installFakeLocks, removeFakeLocks, unrefChannels } from './fakes.js';

const BASE = 'https://assign-mark.example/store';
const CART = { token: 'gT4+g/ue\\st"7', number: 'R5512' };
const GUEST: Credentials = { cart: CART, session: null, backoff: null };
const CART_DOC = { data: { id: '9', type: 'cart', attributes: { number: CART.number, token: CART.token } } };
const SET_QUANTITY = `${BASE}/api/v2/storefront/cart/set_quantity`;

function guestWrite(): Request {
  return new Request(SET_QUANTITY, { method: 'PATCH', headers: { 'Content-Type': 'application/vnd.api+json' }, body: '{"line_item_id":"4","quantity":3}' });
}

describe('the stored assignment mark', () => {
  before(() => {
    installFakeLocks();
    unrefChannels();
  });
  after(() => removeFakeLocks());

  it('is not ended by an earlier sign-in\'s assignment of the same cart', async () => {
    const order: string[] = [];
    const network = { online: false };
    const pairs = [
      { access_token: 'Fi+rst/acc"ess\\1', refresh_token: 'f1/re+fr"esh' },
      { access_token: 'Se/co+nd"acc\\2', refresh_token: 's2+re/fr\\esh' },
    ];
    let grants = 0;
    const first = { started: deferred<void>(), answer: deferred<void>() };
    const second = { started: deferred<void>(), answer: deferred<void>() };
    const credentials = memoryStorage(GUEST);
    const writes = memoryWrites();
    const work: Promise<unknown>[] = [];
    const keepAlive: KeepAlive = (promise) => void work.push(promise);
    const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
      const request = new Request(input, init);
      if (!network.online) throw new TypeError('Failed to fetch');
      const path = new URL(request.url).pathname;
      const bearer = request.headers.get('Authorization');
      if (request.method === 'HEAD') return new Response(null);
      if (path.endsWith('/store_oauth/token')) return Response.json({ ...pairs[grants++], token_type: 'Bearer', expires_in: 3600 });
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
    };
    const make = () => {
      const worker = new AuthWorker(resolveOptions({ baseUrl: BASE, offlineWrites: true }, 'https://assign-mark.example/storefront-auth-sw.js'), {
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
    const a = make();
    const b = make();
    await a.writes?.load();
    await b.writes?.load();
    // Offline, the guest sets a quantity: queued.
    assert.equal((await a.requests.handle(guestWrite(), new URL(SET_QUANTITY), undefined, keepAlive)).status, 202);
    network.online = true;
    // Worker A: the shopper signs in; the cart's assignment is slow.
    await a.actions.login('one@example.com', 'p/w"1\\+', keepAlive, AbortSignal.timeout(5_000));
    await first.started.promise;
    // The sign-in ends with the cart still held (a refresh refused, sessionRefresher.ts: `{ ...previous,
    // session: null, backoff }`): the cart is a guest's again, and the next sign-in takes it along.
    await credentials.update((held) => ({ ...held, session: null, backoff: null }));
    // Worker B: a second sign-in takes the same cart along; its assignment is slow too.
    await b.actions.login('two@example.com', 'p+w/2"\\', keepAlive, AbortSignal.timeout(5_000));
    await second.started.promise;
    assert.ok(((await credentials.read()).cartAssigningUntil ?? 0) > Date.now(), 'the second sign-in marked its assignment');
    // The first assignment is answered: worker A ends the mark, which is the second's.
    first.answer.resolve();
    await new Promise((resolve) => setTimeout(resolve, 50));
    // A page of worker A reports the network's return: the guest's write is replayed.
    a.nudge(keepAlive, true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    second.answer.resolve();
    for (let seen = 0; seen < work.length; seen = work.length) await Promise.allSettled(work);
    await new Promise((resolve) => setTimeout(resolve, 50));
    for (let seen = 0; seen < work.length; seen = work.length) await Promise.allSettled(work);
    // Never with the second bearer before the second assignment has been answered.
    const sent = order.indexOf(`set_quantity Bearer ${pairs[1]!.access_token}`);
    assert.ok(sent === -1 || sent > order.indexOf('associate 2 answered'), `order: ${JSON.stringify(order)}`);
  });

  it('waits at most one assignment\'s time when the clock is set back during the wait', async () => {
    const start = 1_900_000_000_000;
    let clock = start;
    // Device time actually passed, whatever the wall clock says.
    let elapsed = 0;
    const sent: number[] = [];
    const credentials = memoryStorage(GUEST);
    const writes = memoryWrites();
    const work: Promise<unknown>[] = [];
    const keepAlive: KeepAlive = (promise) => void work.push(promise);
    const network = { online: false };
    const session: Session = { accessToken: 'Cl+ock/ba"ck\\a', refreshToken: 'r/Cl+"k\\', expiresAt: 2_100_000_000_000, lifetimeMs: 7_200_000, confirmed: true };
    const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
      const request = new Request(input, init);
      if (!network.online) throw new TypeError('Failed to fetch');
      if (request.method === 'HEAD') return new Response(null);
      if (new URL(request.url).pathname.endsWith('/cart/set_quantity')) {
        sent.push(elapsed);
        return Response.json(CART_DOC);
      }
      return new Response(null, { status: 599 });
    };
    const make = () => {
      const worker = new AuthWorker(resolveOptions({ baseUrl: BASE, offlineWrites: true }, 'https://assign-mark.example/storefront-auth-sw.js'), {
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
    assert.equal((await queuing.requests.handle(guestWrite(), new URL(SET_QUANTITY), undefined, keepAlive)).status, 202);
    // Another worker stored its sign-in, took the cart along, and was stopped mid-assignment (its mark: 10 s).
    await credentials.update((held) => ({ ...held, session, signInId: 'sign-in-c', cartTakenBy: 'sign-in-c', cartAssigningUntil: start + 10_000 }));
    const worker = make();
    await worker.writes?.load();
    network.online = true;
    worker.nudge(keepAlive, true);
    // The device's clock runs 10 times faster than the real one; 1 s into the wait, it is set back an hour (NTP).
    let setBack = false;
    const ticking = setInterval(() => {
      clock += 50;
      elapsed += 50;
      if (!setBack && elapsed >= 1_000) {
        setBack = true;
        clock -= 3_600_000;
      }
    }, 5);
    try {
      while (sent.length === 0 && elapsed < 20_000) await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      clearInterval(ticking);
    }
    assert.equal(sent.length, 1, `still unsent ${elapsed} ms (device time) into the wait`);
    assert.ok(sent[0]! <= 12_000, `sent ${sent[0]} ms into the wait`);
  });
});
