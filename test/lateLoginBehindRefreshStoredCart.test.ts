// A page's own login (unsealed) whose storage write outlasts its wait while this worker's memory copy
// is behind storage (another worker replaced the guest cart, not heard yet: no BroadcastChannel),
// followed by the page's own refresh continuing that sign-in, its write late too. docs/behaviour.md,
// `login()`: a guest "cart held at that moment is kept and assigned to the shopper".
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { memoryStorage, type CredentialStorage, type Credentials } from '../src/sw/credentialStorage.js';
import { BASE, routedWorker } from './workerHarness.js';

const FIRST_CART = { token: 'k1/Ca+rt"to\\k', number: 'R100' };
const SECOND_CART = { token: 'k2+Ca/rt\\to"k', number: 'R200' };
const GUEST: Credentials = { cart: FIRST_CART, session: null, backoff: null };
const GRANT = 'POST /spree_oauth/token';
const ASSOCIATE = 'PATCH /api/v2/storefront/cart/associate';

/** Storage that, while stalled, queues reads and writes, and answers them one at a time, each in a task of its own (as IndexedDB does). */
function oneByOneStorage(initial: Credentials) {
  const stored = memoryStorage(initial);
  let stalled = false;
  const queue: (() => void)[] = [];
  const wait = (): Promise<void> => (stalled ? new Promise<void>((resolve) => queue.push(resolve)) : Promise.resolve());
  const storage: CredentialStorage = { read: async () => (await wait(), stored.read()), update: async (change) => (await wait(), stored.update(change)) };
  return {
    stored,
    storage,
    stall: () => void (stalled = true),
    resume: async () => {
      stalled = false;
      while (queue.length > 0) {
        queue.shift()!();
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
  };
}

const channel = globalThis.BroadcastChannel;
before(() => void ((globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined));
after(() => void ((globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = channel));

describe('a late login over a guest cart another worker replaced, then a late refresh continuing it', () => {
  it('assigns the guest cart storage held, which the sign-in took along', { timeout: 20_000 }, async () => {
    const shared = oneByOneStorage(GUEST);
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
    const a = routedWorker({ preset: 'spree', sealTokens: false }, GUEST, routes, Date.now, { storage: shared.storage });
    const b = routedWorker({ preset: 'spree', sealTokens: false }, GUEST, routes, Date.now, { storage: shared.storage });
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
