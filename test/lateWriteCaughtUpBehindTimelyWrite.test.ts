// A write that outlasts its wait (heldCredentials.ts `update`), followed by a write of this worker
// that lands in time (a bearer's first acceptance, `confirm`): the memory copy takes what storage
// holds, but when storage held otherwise than the stand-in the pages were told, nobody tells them.
// docs/behaviour.md: every change is announced; heldCredentials.ts `caughtUp`: "the memory copy ...
// now holds what storage does, which the pages were not told when it differs".
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { memoryStorage, type CredentialStorage } from '../src/sw/credentialStorage.js';
import { deferred } from './fakes.js';
import { BASE, routedWorker, type Call } from './workerHarness.js';

const HOUR = 3_600_000;

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

describe('a late refresh write over another worker\'s logout, then the rotated bearer confirmed in time', () => {
  it('tells the pages the shopper is signed out once the memory copy holds what storage does', { timeout: 20_000 }, async () => {
    const DUE = { accessToken: 'c1"Ac\\ce/ss+z', refreshToken: 'c1/Re+fr"esh\\y', expiresAt: Date.now() + 10_000, lifetimeMs: HOUR, confirmed: true };
    const HELD: Credentials = { cart: null, session: DUE, backoff: null, signInId: 'sid-c1' };
    const ROTATED = ['c2\\Ac+ce"ss/x', 'c2+Re/fr\\esh"w'] as const;
    const shared = oneByOneStorage(HELD);
    let refreshing!: () => void;
    const refreshAsked = new Promise<void>((resolve) => (refreshing = resolve));
    const answer = deferred<void>();
    const routes = {
      'POST /spree_oauth/token': async () => (refreshing(), await answer.promise, Response.json({ access_token: ROTATED[0], refresh_token: ROTATED[1], token_type: 'Bearer', expires_in: 7200, created_at: Math.floor(Date.now() / 1000) })),
      'POST /spree_oauth/revoke': (_call: Call) => Response.json({}),
      'GET /api/v2/storefront/account': () => Response.json({ data: { id: '1', type: 'user', attributes: {} } }),
    };
    const a = routedWorker({ preset: 'spree' }, HELD, routes, Date.now, { storage: shared.storage });
    const b = routedWorker({ preset: 'spree' }, HELD, routes, Date.now, { storage: shared.storage });
    for (const { worker } of [a, b]) assert.equal((await worker.actions.getState()).state.signedIn, true);
    // A's page asks for its account with a due bearer: the refresh goes out.
    const page = a.through(new Request(`${BASE}/api/v2/storefront/account`));
    await refreshAsked;
    // Another tab's worker logs out meanwhile; then storage turns slow and the refresh is answered.
    await b.worker.actions.logout(b.keepAlive);
    await b.settled();
    assert.equal((await shared.stored.read()).session, null);
    shared.stall();
    answer.resolve();
    // The refresh's write outlasts its wait; the page's call goes with the rotated bearer, and its
    // acceptance is written (`confirm`), behind the refresh's write.
    assert.equal((await page)?.status, 200);
    // Storage answers at once: the refresh's write lands late, the confirmation in time.
    await shared.resume();
    await a.settled();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await a.settled();
    assert.equal((await shared.stored.read()).session, null, 'the logout stands in storage');
    const { state } = await a.worker.actions.getState();
    assert.equal(state.signedIn, false, 'worker A holds nothing');
    const changes = a.announced.filter((announcement) => announcement.type === 'change' || announcement.type === 'sessionexpired');
    const last = changes.at(-1) as { state?: { signedIn: boolean } } | undefined;
    assert.equal(last?.state?.signedIn, false, `the pages were last told signed in; announced: ${JSON.stringify(changes.map((c) => [c.type, (c as { state?: { signedIn: boolean } }).state?.signedIn]))}`);
  });
});
