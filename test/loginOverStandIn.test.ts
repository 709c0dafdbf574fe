// A login whose write outlasts the storage wait while the memory copy is being
// re-read judges the pair it replaces by the stand-in ("nothing held"), as a logout did before
// fe408de: the signed-in shopper's pair, which storage held and the login overwrote, is never revoked
// (docs/behaviour.md: a login over a sign-in revokes the pair it replaces, as a logout does).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startActionBudget } from '../src/sw/actionBudget.js';
import { routedWorker } from './workerHarness.js';
import { stallingStorage } from './fakes.js';

const HOUR = 3_600_000;

describe('a login whose write outlasts the wait during a re-read', () => {
  it('still revokes the pair it replaces', { timeout: 10_000 }, async () => {
    const session = { accessToken: 'gA/7+"q\\r', refreshToken: 'gR/7+"s\\t', expiresAt: Date.now() + HOUR, lifetimeMs: HOUR, confirmed: true };
    const { stored: inner, storage, stall, resume } = stallingStorage({ cart: null, session, backoff: null });
    const revoked: string[] = [];
    const channel = globalThis.BroadcastChannel;
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
    try {
      const { worker, keepAlive, settled } = routedWorker({ preset: 'spree' }, { cart: null, session: null, backoff: null }, {
        'POST /spree_oauth/token': () => Response.json({ access_token: 'nA/8+"u\\v', token_type: 'Bearer', expires_in: 3600, refresh_token: 'nR/8+"w\\x' }),
        'POST /spree_oauth/revoke': async (call) => (revoked.push(new URLSearchParams(await call.body).get('token') ?? ''), Response.json({})),
      }, Date.now, { storage });
      await worker.actions.getState();
      stall();
      worker.forgetMemoryCopy('closed');
      await worker.actions.login('other@example.com', 'pw', keepAlive, startActionBudget());
      resume();
      await settled();
      await new Promise((resolve) => setTimeout(resolve, 50));
      await settled();
      assert.equal((await inner.read()).session?.refreshToken, 'nR/8+"w\\x', 'storage holds the new pair');
      assert.deepEqual(revoked.sort(), [session.accessToken, session.refreshToken].sort(), 'the replaced pair is revoked');
    } finally {
      globalThis.BroadcastChannel = channel;
    }
  });

  it('(control) revokes the pair it replaces when storage answers in time', { timeout: 10_000 }, async () => {
    const session = { accessToken: 'hA/7+"q\\r', refreshToken: 'hR/7+"s\\t', expiresAt: Date.now() + HOUR, lifetimeMs: HOUR, confirmed: true };
    const revoked: string[] = [];
    const channel = globalThis.BroadcastChannel;
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
    const { worker, keepAlive, settled } = routedWorker({ preset: 'spree' }, { cart: null, session, backoff: null }, {
      'POST /spree_oauth/token': () => Response.json({ access_token: 'mA/8+"u\\v', token_type: 'Bearer', expires_in: 3600, refresh_token: 'mR/8+"w\\x' }),
      'POST /spree_oauth/revoke': async (call) => (revoked.push(new URLSearchParams(await call.body).get('token') ?? ''), Response.json({})),
    });
    await worker.actions.getState();
    await worker.actions.login('other@example.com', 'pw', keepAlive, startActionBudget());
    await settled();
    globalThis.BroadcastChannel = channel;
    assert.deepEqual(revoked.sort(), [session.accessToken, session.refreshToken].sort());
  });
});
