// Announcements made while the worker re-reads storage (another worker of the origin posted on the
// base URL's channel, or the browser closed the database: src/sw/heldCredentials.ts, `invalidate`).
// The memory copy is unknown until the re-read lands; an announcement made then waits for it
// (`announced`) and carries the state the worker holds, never a stand-in: "nothing held", or the
// state a login stored before another worker's logout. Every page takes an announcement's state as
// its own, and nothing corrects it afterwards (docs/behaviour.md, "Bounds on every wait").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { channelName, MESSAGE_TAG, PROTOCOL_VERSION } from '../src/shared/protocol.js';
import { startActionBudget } from '../src/sw/actionBudget.js';
import { NO_CREDENTIALS, type Credentials } from '../src/sw/credentialStorage.js';
import { memoryWrites, type WriteStorage } from '../src/sw/writeStore.js';
import { deferred, heldReads, unrefChannels } from './fakes.js';
import { BASE, routedWorker } from './workerHarness.js';

const CART = { token: 'order-token', number: 'R100' };
const SIGNED_IN: Credentials = { cart: CART, session: { accessToken: 'a1', refreshToken: 'r1', expiresAt: Date.now() + 3_600_000, lifetimeMs: 3_600_000, confirmed: true }, backoff: null, signInId: 'sign-in-1' };

unrefChannels();

/** Lets the worker's channel messages, timers and storage calls run. */
const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20));

/** Another worker of the origin says it changed storage, as any same-origin context may; close the channel when done. */
function otherWorkerPosts(): BroadcastChannel {
  const other = new BroadcastChannel(channelName(BASE));
  other.postMessage({ tag: MESSAGE_TAG, v: PROTOCOL_VERSION, type: 'change', baseUrl: BASE, id: 'other', state: {} });
  return other;
}

describe('announcements made while the worker re-reads storage', () => {
  for (const [why, reread] of [
    ['another worker posted on the channel', () => otherWorkerPosts()],
    ['the browser closed the database', (w: ReturnType<typeof routedWorker>) => void w.worker.forgetMemoryCopy('closed')],
  ] as const) {
    it(`a write queued while ${why} tells the sign-in and cart the worker still holds, not signed out with no cart`, async () => {
      const credentials = heldReads(SIGNED_IN);
      const adding = deferred<void>();
      const queue = memoryWrites();
      const writes: WriteStorage = { ...queue, add: async (write, max) => (await adding.promise, queue.add(write, max)) };
      const w = routedWorker({ offlineWrites: true }, SIGNED_IN, {}, Date.now, { storage: credentials.storage, writes, online: () => false, requestSync: () => {} });
      assert.equal((await w.worker.actions.getState()).state.signedIn, true);
      const answer = w.through(new Request(`${BASE}/api/v2/storefront/cart/set_quantity`, { method: 'PATCH', body: '{"line_item_id":"1","quantity":2}' }));
      await tick();
      credentials.hold();
      // Storage did not change at all: the re-read brings back what was held.
      const other = reread(w);
      await tick();
      adding.resolve();
      assert.equal((await answer)?.status, 202);
      credentials.release();
      await tick();
      other?.close();
      const queued = w.announced.find((announcement) => announcement.type === 'writequeued');
      assert.deepEqual([queued?.state.signedIn, queued?.state.cart], [true, { number: 'R100' }]);
      assert.equal(queued?.state.pendingWrites, 1);
    });
  }

  it("a cart assignment failing after another worker's logout tells signed out, not the state the login stored", async () => {
    const credentials = heldReads({ cart: CART, session: null, backoff: null });
    const association = deferred<Response>();
    const w = routedWorker(
      {},
      NO_CREDENTIALS,
      {
        'POST /store_oauth/token': () => Response.json({ access_token: 'a1', token_type: 'Bearer', expires_in: 3600, refresh_token: 'r1' }),
        'PATCH /api/v2/storefront/cart/associate': () => association.promise,
      },
      Date.now,
      { storage: credentials.storage },
    );
    await w.worker.actions.login('shopper@example.com', 'secret', w.keepAlive, startActionBudget());
    await credentials.stored.update(() => NO_CREDENTIALS);
    credentials.hold();
    const other = otherWorkerPosts();
    await tick();
    association.resolve(new Response('{}', { status: 500 }));
    await tick();
    credentials.release();
    await w.settled();
    other.close();
    assert.equal((await w.worker.actions.getState()).state.signedIn, false, 'the worker holds nothing');
    const last = w.announced.at(-1);
    assert.equal(last?.warning?.code, 'bad_response', 'the failure is still told');
    assert.deepEqual([last?.state.signedIn, last?.state.cart], [false, null]);
  });
});
