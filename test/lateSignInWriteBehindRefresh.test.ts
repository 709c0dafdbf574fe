// A page's own login (unsealed) whose storage write outlasts its wait before storage was ever read,
// followed by the page's own refresh continuing that sign-in, whose write is still in flight when the
// login's lands. docs/behaviour.md, `login()`: a guest "cart held at that moment is kept and assigned to
// the shopper"; the assignment mark (cartAssigningUntil) must end with the assignment.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CredentialStorage, Credentials } from '../src/sw/credentialStorage.js';
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
});
