// A write that outlasts its wait while the memory copy is a stand-in
// (`#guessed`) tells `unread` too. A login made then, over a guest cart a late write left in that
// stand-in, assigns the cart twice: once from the stand-in (`previous.session === null ? next.cart`),
// once from `unread` once the write lands. The association call goes out twice.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startActionBudget } from '../src/sw/actionBudget.js';
import { routedWorker } from './workerHarness.js';
import { stallingStorage } from './fakes.js';

describe('a login after a kept cart whose write outlasted its wait during a re-read', () => {
  it('assigns the guest cart to the user once', { timeout: 15_000 }, async () => {
    const { stored: inner, storage, stall, resume } = stallingStorage({ cart: null, session: null, backoff: null });
    let associations = 0;
    const channel = globalThis.BroadcastChannel;
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
    try {
      const { worker, keepAlive, settled } = routedWorker({ preset: 'spree' }, { cart: null, session: null, backoff: null }, {
        'POST /spree_oauth/token': () => Response.json({ access_token: 'qA/5+"a\\b', token_type: 'Bearer', expires_in: 3600, refresh_token: 'qR/5+"c\\d' }),
        'PATCH /api/v2/storefront/cart/associate': () => (associations++, Response.json({ data: { id: '1', type: 'cart', attributes: { token: 'cT/5+"e\\f', number: 'R555' } } })),
      }, Date.now, { storage });
      await worker.actions.getState();
      stall();
      worker.forgetMemoryCopy('closed');
      await worker.actions.keepCart({ token: 'cT/5+"e\\f', number: 'R555' }, null, keepAlive);
      await worker.actions.login('shopper@example.com', 'pw', keepAlive, startActionBudget());
      resume();
      await settled();
      await new Promise((resolve) => setTimeout(resolve, 50));
      await settled();
      const stored = await inner.read();
      assert.equal(stored.cart?.number, 'R555');
      assert.equal(stored.session?.refreshToken, 'qR/5+"c\\d');
      assert.equal(associations, 1, 'one association call');
    } finally {
      globalThis.BroadcastChannel = channel;
    }
  });
});
