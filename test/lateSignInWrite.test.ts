// A login while storage has not answered yet (an open held up past the 2 s wait as the worker
// starts), with a guest cart stored (docs/behaviour.md, "Bounds on every wait": the worker answers
// from its memory copy, nothing held when nothing was ever read, and the write lands when storage
// answers). The login's answer shows no cart; once the write lands with the stored cart kept, the
// worker's copy takes what storage holds, a `change` says so, and the guest cart is assigned to the
// user, as CONTRACT's login says of a guest cart held at that moment. With routed fetch and storage
// that hangs until the test releases it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startActionBudget } from '../src/sw/actionBudget.js';
import { NO_CREDENTIALS } from '../src/sw/credentialStorage.js';
import { stuckStorage } from './fakes.js';
import { routedWorker } from './workerHarness.js';

const CART = { token: 'guest-cart-token', number: 'R100' };
const GRANT = 'POST /spree_oauth/token';
const ASSOCIATE = 'PATCH /api/v2/storefront/cart/associate';
const grantAnswer = (): Response =>
  Response.json({ access_token: 'access-1', token_type: 'Bearer', expires_in: 3600, refresh_token: 'refresh-1', created_at: Math.floor(Date.now() / 1000) });

describe('a login whose write outlasts the wait before storage was ever read', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  });
  after(() => {
    globalThis.BroadcastChannel = channel;
  });

  it('shows, then assigns, the guest cart storage held once the write lands', { timeout: 10_000 }, async () => {
    const stuck = stuckStorage({ cart: CART, session: null, backoff: null });
    const { worker, calls, announced, keepAlive, settled } = routedWorker(
      { preset: 'spree' },
      NO_CREDENTIALS,
      { [GRANT]: grantAnswer, [ASSOCIATE]: () => Response.json({}) },
      Date.now,
      { storage: stuck.storage },
    );
    const { state } = await worker.actions.login('shopper@example.com', 'pw', keepAlive, startActionBudget());
    assert.equal(state.signedIn, true);
    assert.equal(state.cart, null, 'answered from memory, which knew nothing yet');
    const announcedAtLogin = announced.length;
    stuck.release();
    await new Promise((resolve) => setTimeout(resolve, 10));
    stuck.release();
    await settled();

    assert.deepEqual(stuck.stored().cart, CART, 'the write kept the stored cart');
    assert.deepEqual((await worker.actions.getState()).state.cart, { number: 'R100' }, 'the worker now says what storage holds');
    const told = announced.slice(announcedAtLogin);
    assert.deepEqual(
      told.map((announcement) => [announcement.type, announcement.state.cart]),
      [['change', { number: 'R100' }]],
      'a change says so',
    );
    const association = calls.find((call) => call.route === ASSOCIATE);
    assert.ok(association !== undefined, 'the guest cart held at login is assigned to the user');
    assert.equal(new URL(association.request.url).searchParams.get('guest_order_token'), CART.token);
    assert.equal(association.request.headers.get('Authorization'), 'Bearer access-1');
  });
});
