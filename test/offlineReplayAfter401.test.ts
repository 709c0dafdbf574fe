// The replay of a queued write after a 401 (src/sw/requestPath.ts `sendQueued`, `#send`'s `replayAs`)
// goes only while the write still belongs to what is held: a new cart kept during the refresh, by
// another tab, left a write made on the old cart replayed anyway. (Its own time budget:
// test/offlineReplayBudget.test.ts.)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { memoryWrites } from '../src/sw/writeStore.js';
import { routedWorker } from './workerHarness.js';

const CART = { token: 'Zq+/order-token', number: 'R100' };
const HOUR = 3_600_000;
const OTHER_CART = { token: 'new/order-token', number: 'R200' };
const session = (n: number) => ({ accessToken: `a${n}+/access`, refreshToken: `r${n}/refresh`, expiresAt: Date.now() + HOUR, lifetimeMs: HOUR, confirmed: true });
const SIGNED_IN: Credentials = { cart: CART, session: session(1), backoff: null, signInId: 'sign-in-1' };
const SET = 'PATCH /api/v2/storefront/cart/set_quantity';
const CART_DOC = { data: { id: '1', type: 'cart', attributes: { number: 'R100', token: CART.token } } };

describe('the replay of a queued write after a 401', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => void ((globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined));
  after(() => void ((globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = channel));

  it('is dropped unsent when the worker holds another cart by then (a createCart in another tab)', async () => {
    const network = { online: true };
    let sets = 0;
    let heldAtReplay: string | undefined;
    const w = routedWorker({ offlineWrites: true }, SIGNED_IN, {
      [SET]: async () => {
        if (++sets > 1) {
          heldAtReplay = (await w.worker.actions.getState()).state.cart?.number;
          return Response.json(CART_DOC);
        }
        // While the replay is on its way, another tab creates a new cart for the same sign-in.
        await w.storage.update((stored) => ({ ...stored, cart: OTHER_CART }));
        return Response.json({ error: 'The access token expired' }, { status: 401 });
      },
      'POST /store_oauth/token': () => Response.json({ access_token: 'a2/fresh', refresh_token: 'r2/fresh', token_type: 'Bearer', expires_in: 3600 }),
    }, Date.now, { writes: memoryWrites(), online: () => network.online, requestSync: () => {} });
    network.online = false;
    const page = new Request(`https://shop.example/store/api/v2/storefront/cart/set_quantity`, { method: 'PATCH', headers: { 'Content-Type': 'application/vnd.api+json' }, body: '{"line_item_id":"1","quantity":3}' });
    const queued = await w.through(page);
    assert.equal(queued?.status, 202);
    const id = (await queued!.json()).id;
    network.online = true;
    w.worker.nudge(w.keepAlive, true);
    await w.settled();
    const settled = w.announced.filter((a) => a.type === 'writesettled').map((a) => a.write);
    assert.deepEqual(
      { sent: w.calls.map((c) => `${c.route} ${c.request.headers.get('Authorization')}`), settled, heldAtReplay },
      { sent: [`${SET} Bearer a1+/access`, 'POST /store_oauth/token null'], settled: [{ id, outcome: 'dropped' }], heldAtReplay: undefined },
    );
  });
});
