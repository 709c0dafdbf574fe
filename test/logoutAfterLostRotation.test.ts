// A spree-v3 logout while a refresh's answer was lost (its Idempotency-Key still stored with the
// refresh token it spent). Spree rotates strictly: the refresh token held is dead at the server, and
// the live one is in the answer that was lost, which the server replays under the stored key. Neither
// may work after a logout (docs/behaviour.md, "The page API": a pair the server issued is never
// abandoned live).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { storeApiJwt } from './fakes.js';
import { routedWorker } from './workerHarness.js';

const HOUR = 3_600_000;
const NOW = Date.now();
const SPENT = 'rT/9+x"q\\Lm2';
const ROTATED = 'Zk+8/w"9\\ab';
const KEY = 'b3f1c2d4-0000-4000-8000-00000000abcd';

describe('a spree-v3 logout with a lost rotation pending', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  });
  after(() => {
    globalThis.BroadcastChannel = channel;
  });

  it('revokes the refresh token the lost rotation issued, not only the spent one', async () => {
    const session = { accessToken: storeApiJwt(Math.floor((NOW + HOUR) / 1000)), refreshToken: SPENT, expiresAt: NOW + HOUR, lifetimeMs: HOUR, confirmed: true };
    const held: Credentials = { cart: null, session, backoff: { attempts: 1, until: NOW + 5_000 }, refreshKey: { refreshToken: SPENT, key: KEY } };
    // The server: the spent refresh token's rotation is replayed under its key; logout answers 204.
    const logouts: string[] = [];
    const { worker, settled, keepAlive } = routedWorker({ preset: 'spree-v3', publishableKey: 'pk_test_1' }, held, {
      'POST /api/v3/store/auth/refresh': async (call) => {
        const body = JSON.parse(await call.body) as { refresh_token: string };
        if (body.refresh_token === SPENT && call.request.headers.get('Idempotency-Key') === KEY) {
          return Response.json({ token: storeApiJwt(Math.floor((NOW + HOUR) / 1000)), refresh_token: ROTATED, user: { id: 'cus_1' } }, { headers: { 'Idempotent-Replayed': 'true' } });
        }
        return Response.json({ error: { code: 'invalid_refresh_token', message: 'Invalid or expired refresh token' } }, { status: 401 });
      },
      'POST /api/v3/store/auth/logout': async (call) => {
        logouts.push((JSON.parse(await call.body) as { refresh_token: string }).refresh_token);
        return new Response(null, { status: 204 });
      },
    }, () => NOW);
    await new Promise((resolve) => setTimeout(resolve, 0));
    await worker.actions.logout(keepAlive);
    await settled();
    assert.ok(logouts.includes(ROTATED), `the live refresh token the lost rotation issued is revoked; logouts sent: ${JSON.stringify(logouts)}`);
  });
});
