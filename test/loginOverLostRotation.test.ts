// A spree-v3 logout replays a lost rotation under its kept key and revokes the pair
// it brings. A login over that sign-in revokes the pair it replaces "as a logout's is" (bridgeActions.ts
// signIn), but without the key: the live refresh token the lost rotation issued is left live.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { storeApiJwt } from './fakes.js';
import { routedWorker } from './workerHarness.js';

const HOUR = 3_600_000;
const NOW = Date.now();
const SPENT = 'sP/3+"k\\Q1';
const ROTATED = '+rT\\3/"m8';
const OTHER = 'oT/4"+\\n';
const KEY = 'c4a1d2e3-0000-4000-8000-00000000beef';

describe('a spree-v3 login over a sign-in with a lost rotation pending', () => {
  const channel = globalThis.BroadcastChannel;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  });
  after(() => {
    globalThis.BroadcastChannel = channel;
  });

  it('revokes the refresh token the lost rotation issued, as a logout does', async () => {
    const session = { accessToken: storeApiJwt(Math.floor((NOW + HOUR) / 1000)), refreshToken: SPENT, expiresAt: NOW + HOUR, lifetimeMs: HOUR, confirmed: true };
    const held: Credentials = { cart: null, session, backoff: { attempts: 1, until: NOW + 5_000 }, refreshKey: { refreshToken: SPENT, key: KEY } };
    const logouts: string[] = [];
    const { worker, settled, keepAlive } = routedWorker({ preset: 'spree-v3', publishableKey: 'pk_test_3' }, held, {
      'POST /api/v3/store/auth/refresh': async (call) => {
        const body = JSON.parse(await call.body) as { refresh_token: string };
        if (body.refresh_token === SPENT && call.request.headers.get('Idempotency-Key') === KEY) {
          return Response.json({ token: storeApiJwt(Math.floor((NOW + HOUR) / 1000)), refresh_token: ROTATED, user: { id: 'cus_3' } }, { headers: { 'Idempotent-Replayed': 'true' } });
        }
        return Response.json({ error: { code: 'invalid_refresh_token', message: 'Invalid or expired refresh token' } }, { status: 401 });
      },
      'POST /api/v3/store/auth/login': () => Response.json({ token: storeApiJwt(Math.floor((NOW + HOUR) / 1000), JSON.stringify({ user_id: 4, exp: Math.floor((NOW + HOUR) / 1000), jti: 'x4' })), refresh_token: OTHER, user: { id: 'cus_4' } }),
      'POST /api/v3/store/auth/logout': async (call) => {
        logouts.push((JSON.parse(await call.body) as { refresh_token: string }).refresh_token);
        return new Response(null, { status: 204 });
      },
    }, () => NOW);
    await new Promise((resolve) => setTimeout(resolve, 0));
    await worker.actions.login('b@example.com', 'pw', keepAlive, AbortSignal.timeout(10_000));
    await settled();
    assert.ok(logouts.includes(SPENT), `the replaced pair is revoked; logouts sent: ${JSON.stringify(logouts)}`);
    assert.ok(logouts.includes(ROTATED), `the live refresh token the lost rotation issued is revoked; logouts sent: ${JSON.stringify(logouts)}`);
  });
});
