// A refresh whose write outlasted its wait during a re-read revokes the pair it brought once the
// write lands, when a logout elsewhere came first. The page's answer went out long before, so the
// request that waited on the refresh keeps that revocation alive, as every other revocation is kept,
// or a worker the browser stops never sends it (docs/behaviour.md, "Bounds on every wait").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BASE, routedWorker } from './workerHarness.js';
import { stallingStorage } from './fakes.js';

const HOUR = 3_600_000;
const NEW_ACCESS = 'kA/5+"q\\z';
const NEW_REFRESH = '\\kR/5+"w';

describe('the revocation a late refresh write decides', () => {
  it('is kept alive with the request that started the refresh', { timeout: 20_000 }, async () => {
    const session = { accessToken: 'dA/4+"a\\b', refreshToken: 'dR/4"+c\\d', expiresAt: Date.now() + 10_000, lifetimeMs: HOUR, confirmed: true };
    const { stored: inner, storage, stall, resume } = stallingStorage({ cart: null, session, backoff: null });
    const revoked: string[] = [];
    const channel = globalThis.BroadcastChannel;
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
    try {
      const { worker, through, settled } = routedWorker({ preset: 'spree' }, { cart: null, session: null, backoff: null }, {
        'POST /spree_oauth/token': async () => {
          // While the grant is on its way: a logout in another worker, then the disk stalls and the
          // memory copy is re-read.
          await inner.update(() => ({ cart: null, session: null, backoff: null }));
          stall();
          worker.forgetMemoryCopy('closed');
          return Response.json({ access_token: NEW_ACCESS, token_type: 'Bearer', expires_in: 3600, refresh_token: NEW_REFRESH, created_at: Math.floor(Date.now() / 1000) });
        },
        'GET /api/v2/storefront/account': () => Response.json({ data: { id: '1', type: 'user', attributes: {} } }),
        'POST /spree_oauth/revoke': async (call) => {
          const token = new URLSearchParams(await call.body).get('token') ?? '';
          await new Promise((resolve) => setTimeout(resolve, 50));
          revoked.push(token);
          return Response.json({});
        },
      }, Date.now, { storage });
      await worker.actions.getState();
      const response = await through(new Request(`${BASE}/api/v2/storefront/account`));
      await response?.text();
      resume();
      // Everything handed to keepAlive has settled: a revocation the worker still owes is among it.
      await settled();
      assert.equal((await inner.read()).session, null, 'the logout stands');
      assert.deepEqual(revoked.sort(), [NEW_ACCESS, NEW_REFRESH].sort(), 'the pair nobody holds is revoked under keepAlive');
    } finally {
      globalThis.BroadcastChannel = channel;
    }
  });
});
