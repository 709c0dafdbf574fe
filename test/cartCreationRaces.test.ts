// A cart creation whose answer lands after the sign-in changed (docs/behaviour.md, "What is kept
// from answers"), through the bridge's createCart and through a page's own POST /cart, with memory
// storage and a routed fetch:
// - made under a sign-in that has ended since (a logout, or a logout and another login, while it was
//   on its way), the cart is that shopper's: it is not kept, so the next shopper at this browser
//   never sends its token, and the action resolves with the state as it stands;
// - made as a guest and landing after a login, it is kept and assigned to the user, as a guest cart
//   held at login is;
// - made as a guest because the session ended before it went out (a refused refresh), it is a
//   guest's and is kept;
// - made with the bearer of a sign-in that took over while the due refresh before it was on its way
//   (a login elsewhere; the refresh hands back the pair storage holds), it is that shopper's, and kept.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startActionBudget } from '../src/sw/actionBudget.js';
import type { Session } from '../src/sw/tokenResponse.js';
import { deferred } from './fakes.js';
import { BASE, routedWorker, type Call } from './workerHarness.js';

const NOW = 1_700_000_000_000;
const HOUR = 3_600_000;
const ALICE: Session = { accessToken: 'access-alice', refreshToken: 'refresh-alice', expiresAt: NOW + HOUR, lifetimeMs: HOUR, confirmed: true };
const CREATE = 'POST /api/v2/storefront/cart';
const ASSOCIATE = 'PATCH /api/v2/storefront/cart/associate';
const GRANT = 'POST /spree_oauth/token';
const REVOKE = 'POST /spree_oauth/revoke';

const cartAnswer = (token: string, number: string): Response => Response.json({ data: { attributes: { token, number } } }, { status: 201 });
const grantAnswer = (name: string): Response =>
  Response.json({ access_token: `access-${name}`, token_type: 'Bearer', expires_in: 3600, refresh_token: `refresh-${name}`, created_at: NOW / 1000 });
/** Lets the worker's pending steps (storage, the send) run. */
const tick = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
};
const assignedWith = (calls: Call[], token: string): Call | undefined =>
  calls.find((call) => call.route === ASSOCIATE && new URL(call.request.url).searchParams.get('guest_order_token') === token);

describe('a cart creation that lands after the sign-in changed', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  });
  after(() => {
    globalThis.BroadcastChannel = channel;
  });

  it("createCart made with the shopper's bearer is not kept after that shopper logged out", async () => {
    const creation = deferred<Response>();
    const { worker, calls, storage, keepAlive, settled, announced } = routedWorker({ preset: 'spree' }, { cart: null, session: ALICE, backoff: null }, {
      [CREATE]: () => creation.promise,
      [REVOKE]: () => Response.json({}),
    }, () => NOW);
    const creating = worker.actions.createCart(startActionBudget());
    await tick();
    assert.equal(calls[0]?.request.headers.get('Authorization'), 'Bearer access-alice');
    await worker.actions.logout(keepAlive);
    const afterLogout = announced.length;
    creation.resolve(cartAnswer('alice-cart-token', 'R-ALICE'));
    const created = await creating;
    await settled();
    assert.deepEqual(created.state, { signedIn: false, accessTokenExpiresAt: null, cart: null, pendingWrites: 0 });
    assert.equal(created.changeId, null, 'nothing changed');
    assert.equal(announced.length, afterLogout, 'no change announced after the logout');
    assert.equal((await storage.read()).cart, null);
  });

  it("createCart made under one sign-in is not kept as the next shopper's after a logout and a login", async () => {
    const creation = deferred<Response>();
    const { worker, calls, storage, keepAlive, settled } = routedWorker({ preset: 'spree' }, { cart: null, session: ALICE, backoff: null, signInId: 'alice' }, {
      [CREATE]: () => creation.promise,
      [REVOKE]: () => Response.json({}),
      [GRANT]: () => grantAnswer('bob'),
    }, () => NOW);
    const creating = worker.actions.createCart(startActionBudget());
    await tick();
    await worker.actions.logout(keepAlive);
    await worker.actions.login('bob@example.com', 'pw', keepAlive, startActionBudget());
    creation.resolve(cartAnswer('alice-cart-token', 'R-ALICE'));
    const created = await creating;
    await settled();
    assert.equal(created.state.signedIn, true);
    assert.equal(created.state.cart, null);
    const stored = await storage.read();
    assert.equal(stored.session?.accessToken, 'access-bob');
    assert.equal(stored.cart, null, "Bob does not hold Alice's cart");
    assert.equal(assignedWith(calls, 'alice-cart-token'), undefined);
  });

  for (const sealTokens of [true, false]) {
    it(`a page's own POST /cart made with the shopper's bearer is not kept after the logout (sealTokens ${sealTokens})`, async () => {
      const creation = deferred<Response>();
      const { worker, calls, storage, keepAlive, settled, through } = routedWorker({ preset: 'spree', sealTokens }, { cart: null, session: ALICE, backoff: null }, {
        [CREATE]: () => creation.promise,
        [REVOKE]: () => Response.json({}),
        'GET /api/v2/storefront/cart': () => Response.json({ data: { attributes: { number: 'R-GUEST' } } }),
      }, () => NOW);
      const creating = through(new Request(`${BASE}/api/v2/storefront/cart`, { method: 'POST' }));
      await tick();
      assert.equal(calls[0]?.request.headers.get('Authorization'), 'Bearer access-alice');
      await worker.actions.logout(keepAlive);
      creation.resolve(cartAnswer('alice-cart-token', 'R-ALICE'));
      const answer = await creating;
      await settled();
      assert.equal((await storage.read()).cart, null);
      // Sealed, the page never sees a token the worker does not hold; unsealed, the answer is the page's.
      if (sealTokens) assert.doesNotMatch((await answer?.text()) ?? '', /alice-cart-token/);
      // The next shopper at this browser, a guest, reads the cart:
      await through(new Request(`${BASE}/api/v2/storefront/cart`));
      assert.equal(calls.at(-1)?.request.headers.get('X-Spree-Order-Token'), null);
    });
  }

  it('createCart made as a guest that lands after a login is kept and assigned to the user', async () => {
    const creation = deferred<Response>();
    const { worker, calls, storage, keepAlive, settled, announced } = routedWorker({ preset: 'spree' }, { cart: null, session: null, backoff: null }, {
      [CREATE]: () => creation.promise,
      [GRANT]: () => grantAnswer('bob'),
      [ASSOCIATE]: () => Response.json({ data: { attributes: { number: 'R-GUEST' } } }),
    }, () => NOW);
    const creating = worker.actions.createCart(startActionBudget(), keepAlive);
    await tick();
    const login = await worker.actions.login('bob@example.com', 'pw', keepAlive, startActionBudget());
    assert.equal(login.state.signedIn, true);
    creation.resolve(cartAnswer('guest-cart-token', 'R-GUEST'));
    const created = await creating;
    await settled();
    await worker.actions.associated();
    assert.equal(calls.find((call) => call.route === CREATE)?.request.headers.get('Authorization'), null, 'created as a guest');
    assert.equal(created.state.signedIn, true);
    assert.deepEqual(created.state.cart, { number: 'R-GUEST' });
    assert.equal((await storage.read()).cart?.token, 'guest-cart-token');
    assert.equal(assignedWith(calls, 'guest-cart-token')?.request.headers.get('Authorization'), 'Bearer access-bob');
    assert.equal(announced.at(-1)?.warning, undefined, 'the assignment succeeded: no second change says otherwise');
  });

  it("a page's own guest POST /cart that lands after a login is kept and assigned to the user", async () => {
    const creation = deferred<Response>();
    const { worker, calls, storage, keepAlive, settled, through } = routedWorker({ preset: 'spree' }, { cart: null, session: null, backoff: null }, {
      [CREATE]: () => creation.promise,
      [GRANT]: () => grantAnswer('bob'),
      [ASSOCIATE]: () => Response.json({ data: { attributes: { number: 'R-GUEST' } } }),
    }, () => NOW);
    const creating = through(new Request(`${BASE}/api/v2/storefront/cart`, { method: 'POST' }));
    await tick();
    await worker.actions.login('bob@example.com', 'pw', keepAlive, startActionBudget());
    creation.resolve(cartAnswer('guest-cart-token', 'R-GUEST'));
    await creating;
    await settled();
    assert.equal((await storage.read()).cart?.token, 'guest-cart-token');
    assert.equal(assignedWith(calls, 'guest-cart-token')?.request.headers.get('Authorization'), 'Bearer access-bob');
  });

  it("a page's own POST /cart sent as a guest because the refresh before it was refused is the guest's cart, kept", async () => {
    const due: Session = { ...ALICE, expiresAt: NOW + 10_000 };
    const { calls, storage, settled, through } = routedWorker({ preset: 'spree' }, { cart: null, session: due, backoff: null }, {
      [GRANT]: () => Response.json({ error: 'invalid_grant' }, { status: 400 }),
      [CREATE]: () => cartAnswer('guest-cart-token', 'R-GUEST'),
    }, () => NOW);
    await through(new Request(`${BASE}/api/v2/storefront/cart`, { method: 'POST' }));
    await settled();
    assert.equal(calls.find((call) => call.route === CREATE)?.request.headers.get('Authorization'), null, 'sent as a guest');
    const stored = await storage.read();
    assert.equal(stored.session, null);
    assert.equal(stored.cart?.token, 'guest-cart-token');
  });

  for (const via of ['createCart', "a page's own POST /cart"] as const) {
    it(`${via} made with the bearer of a login that landed during the due refresh before it is the new shopper's, and kept`, async () => {
      const due: Session = { ...ALICE, expiresAt: NOW + 10_000 };
      const refresh = deferred<Response>();
      const { worker, calls, storage, keepAlive, settled, through } = routedWorker({ preset: 'spree' }, { cart: null, session: due, backoff: null, signInId: 'alice' }, {
        [GRANT]: async (call) => ((await call.body).includes('refresh_token') ? refresh.promise : grantAnswer('bob')),
        [REVOKE]: () => Response.json({}),
        [CREATE]: () => cartAnswer('bob-cart-token', 'R-BOB'),
      }, () => NOW);
      const creating = via === 'createCart' ? worker.actions.createCart(startActionBudget(), keepAlive) : through(new Request(`${BASE}/api/v2/storefront/cart`, { method: 'POST' }));
      await tick();
      assert.equal(calls.length, 1, "Alice's due refresh is on its way");
      await worker.actions.login('bob@example.com', 'pw', keepAlive, startActionBudget());
      refresh.resolve(grantAnswer('alice2'));
      await creating;
      await settled();
      assert.equal(calls.find((call) => call.route === CREATE)?.request.headers.get('Authorization'), 'Bearer access-bob', "made with Bob's bearer: Bob's cart");
      const stored = await storage.read();
      assert.equal(stored.session?.accessToken, 'access-bob');
      assert.equal(stored.cart?.token, 'bob-cart-token', 'held for Bob');
    });
  }
});
