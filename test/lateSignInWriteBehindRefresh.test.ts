// A page's own login (unsealed) whose storage write outlasts its wait before storage was ever read,
// followed by the page's own refresh continuing that sign-in, whose write is still in flight when the
// login's lands; and the same over a guest cart another worker replaced. docs/behaviour.md, `login()`: a guest "cart held at that moment is kept and assigned to
// the shopper"; the assignment mark (cartAssigningUntil) must end with the assignment.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CredentialStorage, Credentials } from '../src/sw/credentialStorage.js';
import { oneByOneStorage } from './fakes.js';
import { BASE, routedWorker } from './workerHarness.js';

const CART = { token: 'gU/e+st"ca\\rt7', number: 'R417' };
const GUEST: Credentials = { cart: CART, session: null, backoff: null };
const GRANT = 'POST /spree_oauth/token';
const ASSOCIATE = 'PATCH /api/v2/storefront/cart/associate';

/** Storage whose reads and writes each wait until the test settles them, in the order they were made. */
function queuedStorage(initial: Credentials) {
  let value = initial;
  const pending: (() => void)[] = [];
  const storage: CredentialStorage = {
    read: () => new Promise((resolve) => pending.push(() => resolve(value))),
    update: (change) => new Promise((resolve) => pending.push(() => resolve((value = change(value))))),
  };
  return { storage, pending: () => pending.length, settleNext: () => pending.shift()?.(), stored: () => value };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a late login write landing while the page refresh continuing it is still being written', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  });
  after(() => {
    globalThis.BroadcastChannel = channel;
  });

  it('still assigns the guest cart and ends the assignment mark', { timeout: 20_000 }, async () => {
    const slow = queuedStorage(GUEST);
    const pairs = [
      { access_token: 'a1/Be+ar"er\\x', refresh_token: 'r1+Re/fr"esh\\' },
      { access_token: 'a2+Be/ar\\er"y', refresh_token: 'r2/Re"fr+esh\\' },
    ];
    let granted = 0;
    const { calls, through, settled } = routedWorker(
      { preset: 'spree', sealTokens: false },
      GUEST,
      { [GRANT]: () => Response.json({ ...pairs[granted++], token_type: 'Bearer', expires_in: 7200, created_at: Math.floor(Date.now() / 1000) }), [ASSOCIATE]: () => Response.json({}) },
      Date.now,
      { storage: slow.storage },
    );
    const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
    // The page's own password grant: its write outlasts the wait, nothing read yet.
    const login = await through(new Request(`${BASE}/spree_oauth/token`, { method: 'POST', headers: form, body: 'grant_type=password&username=shopper%40example.com&password=p%2Fw%22' }));
    assert.equal(login?.status, 200);
    // The page's own refresh with the real refresh token it was given: continues the sign-in.
    const refresh = await through(new Request(`${BASE}/spree_oauth/token`, { method: 'POST', headers: form, body: `grant_type=refresh_token&refresh_token=${encodeURIComponent(pairs[0]!.refresh_token)}` }));
    assert.equal(refresh?.status, 200);
    // Storage answers in order: the read, the login's write (the refresh's still in flight), then the refresh's.
    while (slow.pending() > 0) {
      slow.settleNext();
      await pause(20);
    }
    await pause(50);
    await settled();
    await pause(50);
    const stored = slow.stored();
    assert.equal(stored.session?.accessToken, pairs[1]!.access_token, 'the refresh continued the sign-in');
    assert.deepEqual(stored.cart, CART, 'the guest cart is still held');
    assert.ok(calls.some((call) => call.route === ASSOCIATE), `the guest cart held at login is assigned to the user; sent: ${JSON.stringify(calls.map((c) => c.route))}`);
    assert.equal(stored.cartAssigningUntil, undefined, 'the assignment mark ended with the assignment');
  });

  // Another worker replaced the guest cart, not heard yet (no BroadcastChannel); storage answers one
  // write per task, as IndexedDB does.
  const FIRST_CART = { token: 'k1/Ca+rt"to\\k', number: 'R100' };
  const SECOND_CART = { token: 'k2+Ca/rt\\to"k', number: 'R200' };
  const FIRST_GUEST: Credentials = { cart: FIRST_CART, session: null, backoff: null };

  it('over a guest cart another worker replaced, its memory copy behind, assigns the guest cart storage held, which the sign-in took along', { timeout: 20_000 }, async () => {
    const shared = oneByOneStorage({ cart: FIRST_CART, session: null, backoff: null });
    const pairs = [
      { access_token: 'b1\\Be+ar"er/x', refresh_token: 'b1"Re/fr+esh\\' },
      { access_token: 'b2/Be"ar\\er+y', refresh_token: 'b2+Re\\fr"esh/' },
    ];
    let granted = 0;
    const routes = {
      [GRANT]: () => Response.json({ ...pairs[granted++], token_type: 'Bearer', expires_in: 7200, created_at: Math.floor(Date.now() / 1000) }),
      [ASSOCIATE]: () => Response.json({}),
      'POST /api/v2/storefront/cart': () => Response.json({ data: { id: '9', type: 'cart', attributes: { number: SECOND_CART.number, token: SECOND_CART.token } } }, { status: 201 }),
    };
    const a = routedWorker({ preset: 'spree', sealTokens: false }, FIRST_GUEST, routes, Date.now, { storage: shared.storage });
    const b = routedWorker({ preset: 'spree', sealTokens: false }, FIRST_GUEST, routes, Date.now, { storage: shared.storage });
    for (const { worker } of [a, b]) assert.equal((await worker.actions.getState()).state.cart?.number, FIRST_CART.number);
    // Another tab's worker makes a new guest cart: stored.
    await b.worker.actions.createCart(AbortSignal.timeout(8_000), b.keepAlive);
    await b.settled();
    assert.equal((await shared.stored.read()).cart?.number, SECOND_CART.number);
    // Storage turns slow; A's page signs in with its own password grant, then refreshes with the real refresh token.
    shared.stall();
    const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
    const login = await a.through(new Request(`${BASE}/spree_oauth/token`, { method: 'POST', headers: form, body: 'grant_type=password&username=shopper%40example.com&password=p%2Fw%22' }));
    assert.equal(login?.status, 200);
    const refresh = await a.through(new Request(`${BASE}/spree_oauth/token`, { method: 'POST', headers: form, body: `grant_type=refresh_token&refresh_token=${encodeURIComponent(pairs[0]!.refresh_token)}` }));
    assert.equal(refresh?.status, 200);
    await shared.resume();
    await a.settled();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await a.settled();
    const stored = await shared.stored.read();
    assert.equal(stored.session?.accessToken, pairs[1]!.access_token, 'the refresh continued the sign-in');
    assert.equal(stored.cart?.number, SECOND_CART.number, 'the sign-in took the stored guest cart along');
    assert.equal(stored.cartTakenBy, stored.signInId);
    const association = a.calls.find((call) => call.route === ASSOCIATE);
    assert.ok(association !== undefined, `the guest cart the sign-in took along is assigned; sent: ${JSON.stringify(a.calls.map((c) => c.route))}`);
    assert.equal(new URL(association.request.url).searchParams.get('guest_order_token'), SECOND_CART.token);
    assert.equal(stored.cartAssigningUntil, undefined, 'the assignment mark ended with the assignment');
  });
});
