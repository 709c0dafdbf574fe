// The first use of a bearer a due refresh brought (docs/behaviour.md, "Refresh"), through the worker:
// - refused (401) while still valid, that refresh counts as failed: the page receives the 401, and no
//   further refresh goes out before the back-off allows one, however many requests are refused;
// - a request that went out with the old bearer before the refresh landed, and is refused once the
//   server revoked that bearer, is replayed with the new one, and charges nothing to it;
// - once the server has accepted the new bearer, a later 401 to it is refreshed at once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { deferred } from './fakes.js';
import { BASE, routedWorker, type Call } from './workerHarness.js';

const NOW = 1_700_000_000_000;
const HOUR = 3_600_000;
const ACCOUNT = 'GET /api/v2/storefront/account';
const TOKEN = 'POST /spree_oauth/token';

/** Signed in with `access-0`, which expires `leftMs` after NOW. */
function signedIn(leftMs: number): Credentials {
  return { cart: null, session: { accessToken: 'access-0', refreshToken: 'refresh-0', expiresAt: NOW + leftMs, lifetimeMs: HOUR, confirmed: true }, backoff: null };
}

/** The token endpoint: a new pair on each grant, `access-1`, `access-2`, … */
function rotating(): { grants: () => number; answer: () => Response } {
  let grants = 0;
  return {
    grants: () => grants,
    answer: () => (grants++, Response.json({ access_token: `access-${grants}`, token_type: 'Bearer', expires_in: 3600, refresh_token: `refresh-${grants}`, created_at: NOW / 1000 })),
  };
}

const account = (): Request => new Request(`${BASE}/api/v2/storefront/account`);
const bearer = (call: Call): string => call.request.headers.get('Authorization') ?? '';
const sent = (calls: Call[]): string[] => calls.map((call) => `${call.route} ${bearer(call)}`.trim());

describe('the first use of a bearer a due refresh brought', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  });
  after(() => {
    globalThis.BroadcastChannel = channel;
  });

  it('refused while valid, counts as a failed refresh: the page gets that 401, and no second refresh goes out within the back-off', async () => {
    let clock = NOW;
    const token = rotating();
    // A server that refuses every bearer.
    const { calls, through, settled, storage } = routedWorker({ preset: 'spree' }, signedIn(10_000), { [TOKEN]: token.answer, [ACCOUNT]: () => new Response(null, { status: 401 }) }, () => clock);

    assert.equal((await through(account()))?.status, 401);
    await settled();
    assert.deepEqual(sent(calls), [TOKEN, `${ACCOUNT} Bearer access-1`]);
    assert.deepEqual((await storage.read()).backoff, { attempts: 1, until: NOW + 5_000 });

    // More requests within the back-off: each gets its 401, none refreshes.
    for (const at of [1_000, 4_999]) {
      clock = NOW + at;
      assert.equal((await through(account()))?.status, 401);
    }
    await settled();
    assert.equal(token.grants(), 1, 'refresh grants sent within the back-off');
  });

  it('a request that went out with the old bearer and is refused after the refresh landed is replayed with the new bearer, charging nothing', async () => {
    let clock = NOW;
    const token = rotating();
    const oldAnswer = deferred<Response>();
    const firstNewAnswer = deferred<Response>();
    let newUses = 0;
    const { calls, through, settled, storage } = routedWorker(
      { preset: 'spree' },
      signedIn(60_000),
      {
        [TOKEN]: token.answer,
        [ACCOUNT]: (call) => (bearer(call) === 'Bearer access-0' ? oldAnswer.promise : ++newUses === 1 ? firstNewAnswer.promise : Response.json({ data: {} })),
      },
      () => clock,
    );
    // Sent while its bearer is not yet due; its answer is slow.
    const early = through(account());
    await new Promise((resolve) => setImmediate(resolve));
    // The bearer is due now: the next request refreshes first, and its answer is slow too.
    clock = NOW + 40_000;
    const late = through(account());
    while (calls.length < 3) await new Promise((resolve) => setImmediate(resolve));
    // The server revoked the old bearer on the new one's first use: the early request is refused,
    // before the server has answered anything sent with the new bearer.
    oldAnswer.resolve(new Response(null, { status: 401 }));
    assert.equal((await early)?.status, 200);
    firstNewAnswer.resolve(Response.json({ data: {} }));
    assert.equal((await late)?.status, 200);
    await settled();

    assert.deepEqual(sent(calls), [`${ACCOUNT} Bearer access-0`, TOKEN, `${ACCOUNT} Bearer access-1`, `${ACCOUNT} Bearer access-1`]);
    const stored = await storage.read();
    assert.equal(stored.backoff, null, 'the old bearer’s 401 was charged to the new one');
    assert.equal(stored.session?.confirmed, true);
  });

  it('once accepted, a later 401 to it is refreshed at once (an early expiry or a revocation)', async () => {
    let clock = NOW;
    const token = rotating();
    let revoked = false;
    const { calls, through, settled } = routedWorker(
      { preset: 'spree' },
      signedIn(10_000),
      { [TOKEN]: token.answer, [ACCOUNT]: (call) => (revoked && bearer(call) === 'Bearer access-1' ? new Response(null, { status: 401 }) : Response.json({ data: {} })) },
      () => clock,
    );
    assert.equal((await through(account()))?.status, 200);
    await settled();
    clock = NOW + 1_000;
    revoked = true;
    assert.equal((await through(account()))?.status, 200);
    await settled();
    assert.deepEqual(sent(calls), [TOKEN, `${ACCOUNT} Bearer access-1`, `${ACCOUNT} Bearer access-1`, TOKEN, `${ACCOUNT} Bearer access-2`]);
  });
});
