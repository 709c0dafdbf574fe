// A refresh whose write outlasted its wait during a re-read leaves the memory copy at
// the stand-in ("nothing held") until the write lands; a logout in that window judges what it forgets
// by that copy, and the pair the refresh stored (and the logout then forgot) is never revoked.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AuthState } from '../src/shared/state.js';
import type { Announcer } from '../src/sw/announcer.js';
import { BridgeActions } from '../src/sw/bridgeActions.js';
import { HeldCredentials } from '../src/sw/heldCredentials.js';
import { resolveOptions } from '../src/sw/options.js';
import { sendOwn } from '../src/sw/outbound.js';
import { SessionRefresher } from '../src/sw/sessionRefresher.js';
import { stallingStorage } from './fakes.js';

const BASE_URL = 'https://shop.example/store';
const NOW = 1_700_000_000_000;
const HOUR = 3_600_000;
const OLD = { accessToken: 'oA/1+"x\\y', refreshToken: 'oR/1+"z\\w', expiresAt: NOW + 10_000, lifetimeMs: HOUR, confirmed: true };
const NEW_ACCESS = 'nA\\2+Q/"k';
const NEW_REFRESH = '+nR/2"\\Wq';

describe('a logout right after a refresh whose write outlasted its wait during a re-read', () => {
  it('revokes the pair the refresh stored and the logout forgot', async () => {
    const { stored: inner, storage, stall, resume } = stallingStorage({ cart: null, session: OLD, backoff: null });
    const revoked: string[] = [];
    let held!: HeldCredentials;
    const fetchFn: typeof fetch = async (input, init) => {
      const url = String(input);
      const body = new URLSearchParams(init?.body as URLSearchParams);
      if (url.endsWith('/spree_oauth/revoke')) {
        revoked.push(body.get('token') ?? '');
        return Response.json({});
      }
      assert.equal(body.get('grant_type'), 'refresh_token');
      // While the grant is on its way, another context announces a change (the memory copy is
      // re-read), and the disk stalls.
      stall();
      held.invalidate();
      return Response.json({ access_token: NEW_ACCESS, token_type: 'Bearer', expires_in: 3600, refresh_token: NEW_REFRESH, created_at: NOW / 1000 });
    };
    const announcer = { announce: (_type: string, _state: AuthState) => 'id' } as unknown as Announcer;
    held = new HeldCredentials(storage, { failed: () => {}, superseded: () => {} }, 50);
    await held.load();
    const options = resolveOptions({ baseUrl: BASE_URL, preset: 'spree' }, 'https://shop.example/sw.js');
    const send = (request: Parameters<typeof sendOwn>[2], limits?: Parameters<typeof sendOwn>[4]) => sendOwn(fetchFn, BASE_URL, request, () => NOW, limits);
    const refresher = new SessionRefresher({ held, announcer, options, send, now: () => NOW, log: undefined }, 'stand-in-lock');
    const actions = new BridgeActions({ options, held, announcer, fetch: fetchFn, send, now: () => NOW, log: undefined, writes: null, refresher });

    const outcome = await refresher.refresh(OLD);
    assert.equal(outcome.kind, 'fresh');
    // The shopper logs out while the disk is still stalled.
    const kept: Promise<unknown>[] = [];
    await actions.logout((work) => void kept.push(work));
    resume();
    await new Promise((resolve) => setTimeout(resolve, 30));
    for (let seen = 0; seen < kept.length; seen = kept.length) await Promise.allSettled(kept);
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.equal((await inner.read()).session, null, 'storage forgot the pair');
    assert.ok(revoked.includes(NEW_REFRESH), `the refresh token storage held and the logout forgot is revoked (revoked: ${JSON.stringify(revoked)})`);
  });

  it('never revokes the pair it stored after another write of this worker outlasted its wait (a cart kept meanwhile)', async () => {
    const { stored: inner, storage, stall, resume } = stallingStorage({ cart: null, session: OLD, backoff: null });
    const revoked: string[] = [];
    let held!: HeldCredentials;
    let actions!: BridgeActions;
    const kept: Promise<unknown>[] = [];
    const fetchFn: typeof fetch = async (input, init) => {
      const url = String(input);
      const body = new URLSearchParams(init?.body as URLSearchParams);
      if (url.endsWith('/spree_oauth/revoke')) {
        revoked.push(body.get('token') ?? '');
        return Response.json({});
      }
      assert.equal(body.get('grant_type'), 'refresh_token');
      // While the grant is on its way: the memory copy is re-read, the disk stalls, and a page's
      // response brings a cart, whose write outlasts its wait as well.
      stall();
      held.invalidate();
      await actions.keepCart({ token: 'c\\9/+"t', number: 'R77' }, null, (work) => void kept.push(work));
      return Response.json({ access_token: NEW_ACCESS, token_type: 'Bearer', expires_in: 3600, refresh_token: NEW_REFRESH, created_at: NOW / 1000 });
    };
    const announcer = { announce: (_type: string, _state: AuthState) => 'id' } as unknown as Announcer;
    held = new HeldCredentials(storage, { failed: () => {}, superseded: () => {} }, 50);
    await held.load();
    const options = resolveOptions({ baseUrl: BASE_URL, preset: 'spree' }, 'https://shop.example/sw.js');
    const send = (request: Parameters<typeof sendOwn>[2], limits?: Parameters<typeof sendOwn>[4]) => sendOwn(fetchFn, BASE_URL, request, () => NOW, limits);
    const refresher = new SessionRefresher({ held, announcer, options, send, now: () => NOW, log: undefined }, 'stand-in-lock-2');
    actions = new BridgeActions({ options, held, announcer, fetch: fetchFn, send, now: () => NOW, log: undefined, writes: null, refresher });

    const outcome = await refresher.refresh(OLD);
    resume();
    await new Promise((resolve) => setTimeout(resolve, 30));
    for (let seen = 0; seen < kept.length; seen = kept.length) await Promise.allSettled(kept);
    const stored = await inner.read();
    assert.equal(stored.session?.refreshToken, NEW_REFRESH, 'storage keeps the new pair');
    assert.deepEqual(revoked, [], `the pair storage keeps is not revoked (outcome ${outcome.kind})`);
  });
});
