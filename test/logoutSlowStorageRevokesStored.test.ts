// A logout whose storage write outlasts its 2 s wait while this worker's memory
// copy still holds the pair that another worker's login has since replaced in storage (that
// worker's announcement not heard yet: no BroadcastChannel here). The write lands and forgets the
// pair storage holds. docs/behaviour.md: "the aim is that neither token works at the server
// afterwards", and "a pair the server issued is never abandoned live".
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { stallingStorage } from './fakes.js';
import { routedWorker, type Call } from './workerHarness.js';

const HOUR = 3_600_000;
const FIRST = { accessToken: 'f1/Ac+ce"ss\\q', refreshToken: 'f1+Re/fr"esh\\w', expiresAt: Date.now() + HOUR, lifetimeMs: HOUR, confirmed: true };
const SECOND = { access_token: 's2+Ac/ce\\ss"e', refresh_token: 's2/Re"fr+esh\\r' };
const HELD: Credentials = { cart: null, session: FIRST, backoff: null };

describe('a logout whose write outlasts its wait, with another worker\'s login in storage', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  });
  after(() => {
    globalThis.BroadcastChannel = channel;
  });

  it('revokes the pair storage held and forgot, not only the one in memory', { timeout: 20_000 }, async () => {
    const shared = stallingStorage(HELD);
    const revoked: string[] = [];
    const routes = {
      'POST /spree_oauth/token': () => Response.json({ ...SECOND, token_type: 'Bearer', expires_in: 7200, created_at: Math.floor(Date.now() / 1000) }),
      'POST /spree_oauth/revoke': async (call: Call) => {
        revoked.push(new URLSearchParams(await call.body).get('token') ?? (JSON.parse(await call.body) as { token: string }).token);
        return Response.json({});
      },
    };
    const a = routedWorker({ preset: 'spree' }, HELD, routes, Date.now, { storage: shared.storage });
    const b = routedWorker({ preset: 'spree' }, HELD, routes, Date.now, { storage: shared.storage });
    assert.equal((await a.worker.actions.getState()).state.signedIn, true);
    assert.equal((await b.worker.actions.getState()).state.signedIn, true);
    // Another tab's worker signs in anew: its pair is stored (and the first one revoked as replaced).
    await b.worker.actions.login('second@example.com', 'p/w+"2\\', b.keepAlive, AbortSignal.timeout(8_000));
    assert.equal((await shared.stored.read()).session?.accessToken, SECOND.access_token);
    // Storage turns slow; this worker, not yet told, logs out.
    shared.stall();
    const { state } = await a.worker.actions.logout(a.keepAlive);
    assert.equal(state.signedIn, false);
    shared.resume();
    await a.settled();
    await b.settled();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await a.settled();
    assert.equal((await shared.stored.read()).session, null, 'the logout forgot the pair storage held');
    assert.ok(
      revoked.includes(SECOND.refresh_token) || revoked.includes(SECOND.access_token),
      `the second pair, forgotten by the logout, is revoked; revoked: ${JSON.stringify(revoked)}`,
    );
  });
});
