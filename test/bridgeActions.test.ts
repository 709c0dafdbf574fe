// The bridge's actions (docs/behaviour.md, "The page API" and "Bounds on every wait";
// docs/servers.md, "Doorkeeper, the token endpoint"), through the orchestrator with memory storage,
// a recording fetch routed by method and path, and a recording `toPages`:
// - a login resolves and announces without waiting for the cart association, and a failed
//   association is told in a second `change`;
// - a logout resolves at once and revokes under keepAlive; a pair whose access token has expired is
//   refreshed, its new bearer used once, and the new pair revoked (Doorkeeper 5.5 ignores an
//   expired pair), and so is a pair that refresh brings which the worker would refuse to keep;
// - the worker's own requests that meet a redirect fail with bad_response and change nothing;
// - an action has one time budget, from when its message arrived: a wait for the bearer (the
//   refresh lock, a refresh) that spends it fails the action before the cart is created, and the
//   creation, like a login's grant, gets only what is left. The tests hand in short budgets.
import assert from 'node:assert/strict';
import { after, before, describe, it, mock } from 'node:test';
import type { Announcement } from '../src/shared/protocol.js';
import { startActionBudget } from '../src/sw/actionBudget.js';
import { AuthWorker } from '../src/sw/authWorker.js';
import { memoryStorage, type Credentials } from '../src/sw/credentialStorage.js';
import { resolveOptions } from '../src/sw/options.js';
import type { PresetName } from '../src/sw/presets.js';
import type { KeepAlive } from '../src/sw/requestPath.js';
import type { Session } from '../src/sw/tokenResponse.js';
import { BASE, routedFetch, type Call, type Routes } from './workerHarness.js';
import { deferred, FakeLocks, installFakeLocks, opaqueRedirect, rejectsWith, removeFakeLocks, storeApiJwt } from './fakes.js';

const NOW = 1_700_000_000_000;
const HOUR = 3_600_000;
const CART = { token: 'order-token', number: 'R100' };
const PASSWORD = 'hunter2-SECRET';
/** The Store API's publishable key the spree-v3 worker is given. */
const PK = 'pk_test';

/** A pair named `name` whose access token expires `leftMs` after NOW. */
function session(name: string, leftMs: number): Session {
  return { accessToken: `access-${name}`, refreshToken: `refresh-${name}`, expiresAt: NOW + leftMs, lifetimeMs: HOUR, confirmed: true };
}

/** Doorkeeper's answer to a grant: a new pair (docs/servers.md, "Tokens"). */
function issued(name: string): Response {
  return Response.json({ access_token: `access-${name}`, token_type: 'Bearer', expires_in: 3600, refresh_token: `refresh-${name}`, created_at: NOW / 1000 });
}

function refused(): Response {
  return Response.json({ error: 'invalid_grant', error_description: 'The provided authorization grant is invalid.' }, { status: 400 });
}

/** An answer that never comes: the request fails only when its signal aborts, as fetch does. */
function untilAborted(call: Call): Promise<Response> {
  const { signal } = call.request;
  return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
}


/** `promise`'s value; fails the test if it is still pending after `ms` (it must not wait on a hung server). */
async function promptly<T>(promise: Promise<T>, what: string, ms = 1_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new assert.AssertionError({ message: `${what} is still pending after ${ms} ms` })), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A worker for `preset` holding `initial`, whose fetch answers by `routes` (an unrouted request is
 * recorded and answered 599, and the test checks there were none), whose pages are a recording, and
 * whose keepAlive keeps the promises it is handed.
 */
function setUp(preset: PresetName, initial: Credentials, routes: Routes, extra: { sealTokens?: boolean } = {}) {
  const calls: Call[] = [];
  const unrouted: string[] = [];
  const announced: Announcement[] = [];
  const kept: Promise<unknown>[] = [];
  const logs: string[] = [];
  const options = resolveOptions({ baseUrl: BASE, preset, ...extra, ...(preset === 'spree-v3' ? { publishableKey: PK } : {}) }, 'https://shop.example/storefront-auth-sw.js');
  const storage = memoryStorage(initial);
  const worker = new AuthWorker(options, {
    fetch: routedFetch(routes, calls, unrouted),
    now: () => NOW,
    storage,
    toPages: (announcement) => announced.push(announcement),
    log: (message) => logs.push(message),
  });
  const keepAlive: KeepAlive = (work) => void kept.push(work);
  /** Waits for everything handed to keepAlive, including what that work handed on. */
  const settled = async (): Promise<void> => {
    for (let seen = 0; seen < kept.length; seen = kept.length) await Promise.allSettled(kept);
    assert.deepEqual(unrouted, [], 'every request the worker sent was expected');
  };
  return { worker, calls, announced, kept, keepAlive, settled, storage, logs };
}


/** The tokens a set of revocation calls named. */
async function revoked(calls: Call[]): Promise<string[]> {
  const bodies = await Promise.all(calls.filter((call) => call.route === 'POST /spree_oauth/revoke').map((call) => call.body));
  return bodies.map((body) => new URLSearchParams(body).get('token') ?? '').sort();
}

describe('BridgeActions', () => {
  // The real announcer opens a BroadcastChannel, which would keep Node's event loop alive; pages
  // hear announcements through `toPages`, which is what these tests record.
  const channel = globalThis.BroadcastChannel;
  before(() => {
    (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  });
  after(() => {
    globalThis.BroadcastChannel = channel;
  });

  describe('login', () => {
    /** A guest holding CART logs in while the association hangs until the test answers it. */
    async function loginWithHangingAssociation() {
      const association = deferred<Response>();
      const setup = setUp('store', { cart: CART, session: null, backoff: null }, {
        'POST /store_oauth/token': () => issued('1'),
        'PATCH /api/v2/storefront/cart/associate': () => association.promise,
      });
      const result = await promptly(setup.worker.actions.login('shopper@example.com', PASSWORD, setup.keepAlive, startActionBudget()), 'login while the association hangs');
      return { ...setup, result, association };
    }

    it('resolves and announces before a hanging association finishes, which goes to keepAlive', { timeout: 5_000 }, async () => {
      const { result, announced, kept, calls, association, settled } = await loginWithHangingAssociation();
      const state = { signedIn: true, accessTokenExpiresAt: NOW + HOUR, cart: { number: 'R100' }, pendingWrites: 0 };
      assert.deepEqual(result.state, state);
      assert.equal(result.warning, undefined);
      assert.equal(announced.length, 1);
      assert.equal(announced[0]?.type, 'change');
      assert.deepEqual(announced[0]?.state, state);
      assert.equal(result.changeId, announced[0]?.id, "the reply names the announcement, so the page dispatches it once");
      assert.equal(kept.length, 1, 'the association is kept alive, not awaited');

      assert.deepEqual(calls.map((call) => call.route), ['POST /store_oauth/token', 'PATCH /api/v2/storefront/cart/associate']);
      const grant = calls[0]!;
      assert.equal(grant.request.redirect, 'manual');
      assert.deepEqual(Object.fromEntries(new URLSearchParams(await grant.body)), { grant_type: 'password', username: 'shopper@example.com', password: PASSWORD });
      const associate = calls[1]!;
      assert.equal(new URL(associate.request.url).searchParams.get('guest_order_token'), CART.token);
      assert.equal(associate.request.headers.get('Authorization'), 'Bearer access-1', 'the association carries the new bearer');
      assert.equal(associate.request.redirect, 'manual');

      association.resolve(Response.json({ data: { attributes: { number: 'R100' } } }));
      await settled();
      assert.equal(announced.length, 1, 'a successful association announces nothing more');
    });

    it('a 422 from the association is told in a second change, and the login stands', { timeout: 5_000 }, async () => {
      const { announced, association, settled, worker } = await loginWithHangingAssociation();
      association.resolve(Response.json({ error: 'Cart belongs to another user' }, { status: 422 }));
      await settled();
      assert.equal(announced.length, 2);
      const second = announced[1]!;
      assert.equal(second.type, 'change');
      assert.notEqual(second.id, announced[0]?.id);
      assert.equal(second.warning?.code, 'bad_response');
      assert.equal(second.warning?.status, 422);
      assert.match(second.warning?.message ?? '', /R100/);
      assert.ok(!second.warning?.message.includes(CART.token), 'the guest token in the query is never echoed');
      assert.deepEqual(second.state, { signedIn: true, accessTokenExpiresAt: NOW + HOUR, cart: { number: 'R100' }, pendingWrites: 0 });
      assert.deepEqual((await worker.actions.getState()).state, second.state);
    });

    it('an association that meets a network error is told in a second change', { timeout: 5_000 }, async () => {
      const { announced, association, settled } = await loginWithHangingAssociation();
      association.reject(new TypeError('Failed to fetch'));
      await settled();
      assert.equal(announced.length, 2);
      assert.equal(announced[1]?.type, 'change');
      assert.equal(announced[1]?.warning?.code, 'network_error');
      assert.ok(!announced[1]?.warning?.message.includes(CART.token));
      assert.equal(announced[1]?.state.signedIn, true);
    });

    it('a cart held while already signed in is not associated again', async () => {
      const { worker, calls, kept, settled } = setUp('store', { cart: CART, session: session('0', HOUR), backoff: null }, {
        'POST /store_oauth/token': () => issued('1'),
      });
      await worker.actions.login('shopper@example.com', PASSWORD, () => {}, startActionBudget());
      await settled();
      assert.deepEqual(calls.map((call) => call.route), ['POST /store_oauth/token']);
      assert.equal(kept.length, 0);
    });

    it('a login while signed in revokes the pair it replaces, under keepAlive; unsealed, where a page may still use it, it does not', async () => {
      for (const sealTokens of [true, false]) {
        const { worker, calls, keepAlive, settled } = setUp('spree', { cart: null, session: session('0', HOUR), backoff: null }, {
          'POST /spree_oauth/token': () => issued('1'),
          'POST /spree_oauth/revoke': () => Response.json({}),
        }, { sealTokens });
        const { state } = await worker.actions.login('shopper@example.com', PASSWORD, keepAlive, startActionBudget());
        assert.equal(state.signedIn, true);
        await settled();
        assert.deepEqual(await revoked(calls), sealTokens ? ['access-0', 'refresh-0'] : [], `sealTokens ${sealTokens}`);
        assert.equal((await worker.actions.getState()).state.signedIn, true, 'the new pair is kept');
      }
    });

    it('two logins racing: the pair the second replaces is revoked, so none is left live', async () => {
      const first = deferred<Response>();
      let grants = 0;
      const { worker, calls, keepAlive, settled } = setUp('spree', { cart: null, session: null, backoff: null }, {
        'POST /spree_oauth/token': () => (++grants === 1 ? first.promise : issued('2')),
        'POST /spree_oauth/revoke': () => Response.json({}),
      });
      const one = worker.actions.login('shopper@example.com', PASSWORD, keepAlive, startActionBudget());
      await worker.actions.login('other@example.com', PASSWORD, keepAlive, startActionBudget());
      first.resolve(issued('1'));
      await one;
      await settled();
      assert.deepEqual(await revoked(calls), ['access-2', 'refresh-2'], 'the pair the later-landing login replaced');
    });

    it("a grant that hangs fails when the action's budget is spent, not 8 s after it was sent", async () => {
      const { worker, announced, keepAlive, settled } = setUp('store', { cart: CART, session: null, backoff: null }, { 'POST /store_oauth/token': untilAborted });
      await promptly(rejectsWith(worker.actions.login('shopper@example.com', PASSWORD, keepAlive, AbortSignal.timeout(100)), 'network_error'), 'a login past its budget');
      await settled();
      assert.deepEqual(announced, []);
      assert.equal((await worker.actions.getState()).state.signedIn, false);
    });

    it('spree, answered with an access token and no refresh_token (RFC 6749 makes it optional): rejects bad_response and revokes the access token it refused', async () => {
      const { worker, calls, keepAlive, settled } = setUp('spree', { cart: null, session: null, backoff: null }, {
        'POST /spree_oauth/token': () => Response.json({ access_token: 'access-lone', token_type: 'Bearer', expires_in: 2_629_746, created_at: NOW / 1000 }),
        'POST /spree_oauth/revoke': () => Response.json({}),
      });
      await rejectsWith(worker.actions.login('shopper@example.com', PASSWORD, keepAlive, startActionBudget()), 'bad_response');
      await settled();
      assert.deepEqual(await revoked(calls), ['access-lone']);
    });

    it("a grant answered with a redirect rejects bad_response and changes nothing", async () => {
      for (const answer of [opaqueRedirect, () => new Response(null, { status: 302, headers: { Location: 'https://evil.example/' } })]) {
        const initial = { cart: CART, session: null, backoff: null };
        const { worker, calls, announced, kept, keepAlive, settled } = setUp('store', initial, { 'POST /store_oauth/token': answer });
        const error = await rejectsWith(worker.actions.login('shopper@example.com', PASSWORD, keepAlive, startActionBudget()), 'bad_response');
        assert.ok(!error.message.includes(PASSWORD), error.message);
        await settled();
        assert.equal(calls.length, 1, 'the grant is not followed');
        assert.deepEqual(announced, []);
        assert.equal(kept.length, 0);
        assert.deepEqual((await worker.actions.getState()).state, { signedIn: false, accessTokenExpiresAt: null, cart: { number: 'R100' }, pendingWrites: 0 });
      }
    });
  });

  describe('logout', () => {
    it('with spree and a valid access token revokes both tokens under keepAlive, and resolves before that finishes', { timeout: 5_000 }, async () => {
      const revocation = deferred<Response>();
      const { worker, calls, announced, kept, keepAlive, settled } = setUp('spree', { cart: CART, session: session('1', HOUR), backoff: null }, {
        'POST /spree_oauth/revoke': () => revocation.promise,
      });
      const result = await promptly(worker.actions.logout(keepAlive), 'logout while the revocation hangs');
      const guest = { signedIn: false, accessTokenExpiresAt: null, cart: null, pendingWrites: 0 };
      assert.deepEqual(result.state, guest);
      assert.equal(announced.length, 1);
      assert.equal(announced[0]?.type, 'change');
      assert.equal(result.changeId, announced[0]?.id);
      assert.deepEqual((await worker.actions.getState()).state, guest, 'forgotten before the revocation');
      assert.equal(kept.length, 1, 'the revocation is kept alive, not awaited');
      assert.deepEqual(calls.map((call) => call.route), ['POST /spree_oauth/revoke', 'POST /spree_oauth/revoke'], 'already under way');

      revocation.resolve(Response.json({}));
      await settled();
      assert.deepEqual(await revoked(calls), ['access-1', 'refresh-1']);
      for (const call of calls) {
        assert.equal(call.request.redirect, 'manual');
        assert.equal(call.request.credentials, 'omit');
        assert.equal(call.request.headers.get('Authorization'), null);
      }
      assert.equal(announced.length, 1, 'the revocation announces nothing');
    });

    it('a revocation that fails or meets a redirect changes nothing for the logout', async () => {
      for (const answer of [() => Promise.reject(new TypeError('Failed to fetch')), opaqueRedirect, () => new Response(null, { status: 500 })]) {
        const { worker, kept, keepAlive, settled } = setUp('spree', { cart: null, session: session('1', HOUR), backoff: null }, {
          'POST /spree_oauth/revoke': answer,
        });
        assert.equal((await worker.actions.logout(keepAlive)).state.signedIn, false);
        await settled();
        for (const work of kept) await work; // none rejects: nothing unhandled
      }
    });

    it('with spree and an EXPIRED access token refreshes, uses the new bearer once, then revokes the new pair', async () => {
      const { worker, calls, announced, keepAlive, settled } = setUp('spree', { cart: null, session: session('1', -1_000), backoff: null }, {
        'POST /spree_oauth/token': () => issued('2'),
        'GET /api/v2/storefront/account': () => Response.json({ data: { id: '1' } }),
        'POST /spree_oauth/revoke': () => Response.json({}),
      });
      await worker.actions.logout(keepAlive);
      await settled();

      assert.deepEqual(calls.map((call) => call.route), [
        'POST /spree_oauth/token',
        'GET /api/v2/storefront/account',
        'POST /spree_oauth/revoke',
        'POST /spree_oauth/revoke',
      ]);
      assert.deepEqual(Object.fromEntries(new URLSearchParams(await calls[0]!.body)), { grant_type: 'refresh_token', refresh_token: 'refresh-1' });
      assert.equal(calls[1]!.request.headers.get('Authorization'), 'Bearer access-2', 'the NEW bearer, which makes Doorkeeper revoke the old pair');
      assert.deepEqual(await revoked(calls), ['access-2', 'refresh-2']);
      for (const call of calls) assert.equal(call.request.redirect, 'manual');
      assert.deepEqual((await worker.actions.getState()).state, { signedIn: false, accessTokenExpiresAt: null, cart: null, pendingWrites: 0 }, 'the refresh does not sign the shopper back in');
      assert.equal(announced.length, 1);
    });

    const pair2 = { access_token: 'access-2', refresh_token: 'refresh-2', created_at: NOW / 1000 };
    for (const [what, body] of [
      ['no expires_in', { ...pair2, token_type: 'Bearer' }],
      ['expires_in 0', { ...pair2, token_type: 'Bearer', expires_in: 0 }],
      ['token_type mac', { ...pair2, token_type: 'mac', expires_in: 3600 }],
    ] as const) {
      it(`with an EXPIRED access token whose refresh succeeds with ${what}, which the worker would not keep, still ends the pair it issued`, async () => {
        // A pair the server issued is never abandoned live: refused as a session, it is used once
        // and revoked as a kept one would be.
        const { worker, calls, keepAlive, settled } = setUp('spree', { cart: null, session: session('1', -1_000), backoff: null }, {
          'POST /spree_oauth/token': () => Response.json(body),
          'GET /api/v2/storefront/account': () => Response.json({ data: { id: '1' } }),
          'POST /spree_oauth/revoke': () => Response.json({}),
        });
        await worker.actions.logout(keepAlive);
        await settled();
        assert.deepEqual(calls.map((call) => call.route), ['POST /spree_oauth/token', 'GET /api/v2/storefront/account', 'POST /spree_oauth/revoke', 'POST /spree_oauth/revoke']);
        assert.equal(calls[1]!.request.headers.get('Authorization'), 'Bearer access-2');
        assert.deepEqual(await revoked(calls), ['access-2', 'refresh-2']);
      });
    }

    it('with an EXPIRED access token whose refresh succeeds with a refresh token alone, sends no empty bearer and revokes both pairs', async () => {
      // No access token to use once: the account touch would go out as `Bearer ` and end nothing.
      // The new refresh token is revoked, and the old pair as well, for a server that takes its
      // revocation (Doorkeeper 5.5 ignores it only because the access token expired).
      const { worker, calls, keepAlive, settled } = setUp('spree', { cart: null, session: session('1', -1_000), backoff: null }, {
        'POST /spree_oauth/token': () => Response.json({ refresh_token: 'r/+2"x', token_type: 'Bearer', expires_in: 3600 }),
        'GET /api/v2/storefront/account': () => Response.json({ data: { id: '1' } }),
        'POST /spree_oauth/revoke': () => Response.json({}),
      });
      await worker.actions.logout(keepAlive);
      await settled();
      assert.ok(!calls.some((call) => call.route === 'GET /api/v2/storefront/account'), `no touch: ${calls.map((call) => call.route).join(', ')}`);
      assert.deepEqual((await revoked(calls)).sort(), ['access-1', 'r/+2"x', 'refresh-1'].sort());
    });

    it('with an expired access token whose refresh is refused still revokes the old tokens', async () => {
      const { worker, calls, keepAlive, settled } = setUp('spree', { cart: null, session: session('1', -1_000), backoff: null }, {
        'POST /spree_oauth/token': () => refused(),
        'POST /spree_oauth/revoke': () => Response.json({}),
      });
      await worker.actions.logout(keepAlive);
      await settled();
      assert.deepEqual(calls.map((call) => call.route), ['POST /spree_oauth/token', 'POST /spree_oauth/revoke', 'POST /spree_oauth/revoke']);
      assert.deepEqual(await revoked(calls), ['access-1', 'refresh-1']);
    });

    it('with an expired access token whose new bearer could not be used still revokes the new pair', async () => {
      // The refresh made a valid new pair that nobody holds; revoking only the expired old pair,
      // which Doorkeeper 5.5 ignores, would leave it working (docs/behaviour.md, "The page API").
      const { worker, calls, keepAlive, settled } = setUp('spree', { cart: null, session: session('1', -1_000), backoff: null }, {
        'POST /spree_oauth/token': () => issued('2'),
        'GET /api/v2/storefront/account': () => Promise.reject(new TypeError('Failed to fetch')),
        'POST /spree_oauth/revoke': () => Response.json({}),
      });
      await worker.actions.logout(keepAlive);
      await settled();
      const tokens = await revoked(calls);
      assert.ok(tokens.includes('access-2') && tokens.includes('refresh-2'), `revoked ${tokens.join(', ')}`);
    });

    it('with preset store revokes nothing, whether the access token is valid or expired', async () => {
      for (const held of [session('1', HOUR), session('1', -1_000)]) {
        const { worker, calls, announced, keepAlive, settled } = setUp('store', { cart: CART, session: held, backoff: null }, {});
        assert.equal((await worker.actions.logout(keepAlive)).state.signedIn, false);
        await settled();
        assert.deepEqual(calls, []);
        assert.equal(announced.length, 1);
      }
    });

    it('of a guest revokes nothing, and forgets the cart', async () => {
      const { worker, calls, keepAlive, settled } = setUp('spree', { cart: CART, session: null, backoff: null }, {});
      assert.deepEqual((await worker.actions.logout(keepAlive)).state, { signedIn: false, accessTokenExpiresAt: null, cart: null, pendingWrites: 0 });
      await settled();
      assert.deepEqual(calls, []);
    });
  });

  describe('createCart', () => {
    const CREATE = 'POST /api/v2/storefront/cart';

    it('keeps the new cart within what the action’s budget left: a stuck disk never holds the reply past it', async () => {
      const { worker, storage } = setUp('store', { cart: null, session: null, backoff: null }, {
        [CREATE]: () => Response.json({ data: { id: '2', type: 'cart', attributes: { number: 'R200', token: '/order-2' } } }, { status: 201 }),
      });
      await worker.actions.getState();
      // The disk stops answering (an upgrade blocked by another connection).
      storage.update = () => new Promise(() => {});
      const budget = startActionBudget();
      // The request answered when 7.9 s of the 8 s had gone: the bridge gives up at 10 s.
      const now = performance.now.bind(performance);
      mock.method(performance, 'now', () => now() + 7_900);
      const started = Date.now();
      try {
        const result = await worker.actions.createCart(budget);
        assert.deepEqual(result.state.cart, { number: 'R200' }, 'kept in memory; the write lands when the disk answers');
        assert.ok(Date.now() - started < 1_000, `replied after ${Date.now() - started} ms`);
      } finally {
        mock.restoreAll();
      }
    });

    it('keeps the new cart, asked for its number and token, without following redirects', async () => {
      const { worker, calls, announced } = setUp('store', { cart: CART, session: null, backoff: null }, {
        [CREATE]: () => Response.json({ data: { id: '2', type: 'cart', attributes: { number: 'R200', token: 'order-2' } } }, { status: 201 }),
      });
      const result = await worker.actions.createCart(startActionBudget());
      assert.deepEqual(result.state.cart, { number: 'R200' });
      assert.equal(announced.length, 1);
      assert.equal(new URL(calls[0]!.request.url).searchParams.get('fields[cart]'), 'number,token');
      assert.equal(calls[0]!.request.redirect, 'manual');
      assert.equal(calls[0]!.request.headers.get('Authorization'), null, "a guest's cart carries no bearer");
    });

    it('answered with a token and no number, which it asked for, rejects bad_response and keeps the previous cart', async () => {
      const { worker, announced } = setUp('store', { cart: CART, session: null, backoff: null }, {
        [CREATE]: () => Response.json({ data: { id: '2', type: 'cart', attributes: { token: 'order-2' } } }, { status: 201 }),
      });
      await rejectsWith(worker.actions.createCart(startActionBudget()), 'bad_response');
      assert.deepEqual(announced, []);
      assert.deepEqual((await worker.actions.getState()).state.cart, { number: 'R100' });
    });

    it('through a redirect rejects bad_response and keeps the previous cart', async () => {
      for (const answer of [opaqueRedirect, () => new Response(null, { status: 303, headers: { Location: 'https://evil.example/' } })]) {
        const { worker, calls, announced } = setUp('store', { cart: CART, session: session('1', HOUR), backoff: null }, { [CREATE]: answer });
        const error = await rejectsWith(worker.actions.createCart(startActionBudget()), 'bad_response');
        assert.ok(!error.message.includes('access-1'), error.message);
        assert.equal(calls.length, 1, 'not followed');
        assert.equal(calls[0]!.request.headers.get('Authorization'), 'Bearer access-1');
        assert.deepEqual(announced, []);
        assert.deepEqual((await worker.actions.getState()).state.cart, { number: 'R100' });
      }
    });

    const created = (): Response => Response.json({ data: { id: '2', type: 'cart', attributes: { number: 'R200', token: 'order-2' } } }, { status: 201 });
    /** Signed in with a bearer that is due (it expires in 10 s, within the 30 s margin): a refresh comes first. */
    const dueSession = (): Credentials => ({ cart: CART, session: session('1', 10_000), backoff: null });

    it('signed in with a due bearer, refreshes first and creates the cart with the new bearer', async () => {
      const { worker, calls } = setUp('store', dueSession(), { 'POST /store_oauth/token': () => issued('2'), [CREATE]: created });
      const result = await worker.actions.createCart(startActionBudget());
      assert.deepEqual(result.state, { signedIn: true, accessTokenExpiresAt: NOW + HOUR, cart: { number: 'R200' }, pendingWrites: 0 });
      assert.deepEqual(calls.map((call) => call.route), ['POST /store_oauth/token', CREATE]);
      assert.equal(calls[1]!.request.headers.get('Authorization'), 'Bearer access-2');
    });

    describe('when the wait for the bearer outlasts the budget', () => {
      let locks: FakeLocks;
      before(() => (locks = installFakeLocks()));
      after(removeFakeLocks);

      it('for the refresh lock, held elsewhere: fails in time and never creates the cart, also once the refresh lands', { timeout: 5_000 }, async () => {
        const holder = locks.holdElsewhere(`storefront-auth:refresh:${BASE}`);
        await holder.taken;
        const { worker, calls, announced } = setUp('store', dueSession(), { 'POST /store_oauth/token': () => issued('2'), [CREATE]: created });
        const error = await promptly(rejectsWith(worker.actions.createCart(AbortSignal.timeout(100)), 'network_error'), 'a creation past its budget');
        assert.match(error.message, /refresh/);
        assert.match(error.message, /not created/);

        // The refresh waited on; once the lock is free it runs, for whoever needs the bearer next.
        holder.release();
        await worker.settleWrites();
        assert.deepEqual(calls.map((call) => call.route), ['POST /store_oauth/token'], 'no cart created after the action failed');
        assert.deepEqual((await worker.actions.getState()).state, { signedIn: true, accessTokenExpiresAt: NOW + HOUR, cart: { number: 'R100' }, pendingWrites: 0 });
        assert.deepEqual(announced.map((a) => a.type), ['change'], "the refresh's change only");
      });

      it('for a refresh grant that fails after the budget: fails in time, the late failure is handled, and nothing is created', { timeout: 5_000 }, async () => {
        const grant = deferred<Response>();
        const expired = { cart: CART, session: session('1', -1_000), backoff: null };
        const { worker, calls, announced } = setUp('store', expired, { 'POST /store_oauth/token': () => grant.promise, [CREATE]: created });
        await promptly(rejectsWith(worker.actions.createCart(AbortSignal.timeout(100)), 'network_error'), 'a creation past its budget');
        // With the bearer expired, the failed refresh leaves nothing to send: `#bearer` rejects late.
        grant.reject(new TypeError('Failed to fetch'));
        await worker.settleWrites();
        await new Promise((resolve) => setImmediate(resolve));
        assert.deepEqual(calls.map((call) => call.route), ['POST /store_oauth/token']);
        assert.deepEqual(announced, []);
        assert.equal((await worker.actions.getState()).state.signedIn, true, 'a failed refresh keeps the pair');
      });
    });

    it('after a refresh that took part of the budget, the creation gets only what is left', { timeout: 5_000 }, async () => {
      const { worker, calls } = setUp('store', dueSession(), {
        'POST /store_oauth/token': () => new Promise((resolve) => setTimeout(() => resolve(issued('2')), 250)),
        [CREATE]: untilAborted,
      });
      const started = performance.now();
      const error = await promptly(rejectsWith(worker.actions.createCart(AbortSignal.timeout(400)), 'network_error'), 'a creation past its budget');
      const elapsed = performance.now() - started;
      assert.ok(elapsed < 700, `the creation was cut off ${Math.round(elapsed)} ms after the action began, not 400 ms`);
      assert.deepEqual(calls.map((call) => call.route), ['POST /store_oauth/token', CREATE], 'the creation was sent, within the budget');
      assert.ok(calls[1]!.request.signal.aborted, "the creation's own request was aborted");
      assert.match(error.message, /\/api\/v2\/storefront\/cart/);
      assert.deepEqual((await worker.actions.getState()).state.cart, { number: 'R100' }, 'the previous cart is kept');
    });
  });
  describe('spree-v3', () => {
    const LOGIN = 'POST /api/v3/store/auth/login';
    const JWT = storeApiJwt(NOW / 1000 + 3600);
    const USER = { id: 'cus_1', email: 'shopper@example.com' };
    const V3_CART = { id: 'cart_1', token: 'cart-token-0123456789abcdefghijklmno', number: 'R100' };
    const GUEST: Credentials = { cart: null, session: null, backoff: null };

    /** The headers every one of the worker's own Store API requests carries. */
    function assertJsonWithKey(call: Call): void {
      assert.equal(call.request.headers.get('X-Spree-Api-Key'), PK, call.route);
      assert.equal(call.request.headers.get('Content-Type'), 'application/json', call.route);
      assert.equal(call.request.redirect, 'manual', call.route);
    }

    it('login sends the JSON grant with the key and keeps the pair, expiring at the JWT’s exp', async () => {
      const { worker, calls, announced, storage, settled } = setUp('spree-v3', GUEST, { [LOGIN]: () => Response.json({ token: JWT, refresh_token: 'refresh-1', user: USER }) });
      const result = await worker.actions.login('shopper@example.com', PASSWORD, () => {}, startActionBudget());
      await settled();
      assert.deepEqual(result.state, { signedIn: true, accessTokenExpiresAt: NOW + HOUR, cart: null, pendingWrites: 0 });
      assert.deepEqual(calls.map((call) => call.route), [LOGIN]);
      assertJsonWithKey(calls[0]!);
      assert.deepEqual(JSON.parse(await calls[0]!.body), { email: 'shopper@example.com', password: PASSWORD });
      assert.deepEqual((await storage.read()).session, { accessToken: JWT, refreshToken: 'refresh-1', expiresAt: NOW + HOUR, lifetimeMs: HOUR, confirmed: true, user: USER });
      assert.equal(announced.length, 1);
    });

    for (const [what, body, revokes] of [
      ['without refresh_token', { token: JWT, user: USER }, false],
      ['with a token that is no JWT', { token: 'opaque-access', refresh_token: 'refresh-1', user: USER }, true],
      ['with a JWT already expired', { token: storeApiJwt(NOW / 1000 - 1), refresh_token: 'refresh-1', user: USER }, true],
    ] as const) {
      it(`a login answered ${what} rejects bad_response, keeps nothing, and ${revokes ? 'revokes the pair the server issued' : 'has no pair to revoke'}`, async () => {
        const { worker, announced, storage, calls, keepAlive, settled } = setUp('spree-v3', GUEST, {
          [LOGIN]: () => Response.json(body),
          'POST /api/v3/store/auth/logout': () => new Response(null, { status: 204 }),
        });
        await rejectsWith(worker.actions.login('shopper@example.com', PASSWORD, keepAlive, startActionBudget()), 'bad_response');
        await settled();
        assert.deepEqual(await storage.read(), GUEST);
        assert.deepEqual(announced, []);
        const logouts = calls.filter((call) => call.route === 'POST /api/v3/store/auth/logout');
        assert.deepEqual(await Promise.all(logouts.map(async (call) => JSON.parse(await call.body))), revokes ? [{ refresh_token: 'refresh-1' }] : []);
      });
    }

    it("a login whose answer's Date is 65 minutes behind the device's clock signs in, the JWT's hour counted from that Date", async () => {
      // The server's clock reads NOW - 65 min: it writes Date and exp by it; the device reads NOW.
      const serverNow = NOW - 65 * 60_000;
      const answer = () => Response.json({ token: storeApiJwt(serverNow / 1000 + 3600), refresh_token: 'refresh-1', user: USER }, { headers: { Date: new Date(serverNow).toUTCString() } });
      const { worker, calls, storage, keepAlive, settled } = setUp('spree-v3', GUEST, { [LOGIN]: answer });
      const result = await worker.actions.login('shopper@example.com', PASSWORD, keepAlive, startActionBudget());
      await settled();
      // An hour less the second Date names, on the device's clock.
      assert.deepEqual(result.state, { signedIn: true, accessTokenExpiresAt: NOW + HOUR - 1_000, cart: null, pendingWrites: 0 });
      assert.equal((await storage.read()).session?.lifetimeMs, HOUR - 1_000);
      assert.deepEqual(calls.map((call) => call.route), [LOGIN], 'nothing revoked');
    });

    it('a wrong password (401 authentication_failed) rejects invalid_grant with status 401', async () => {
      const { worker, storage } = setUp('spree-v3', GUEST, { [LOGIN]: () => Response.json({ error: { code: 'authentication_failed', message: 'Invalid email or password' } }, { status: 401 }) });
      const error = await rejectsWith(worker.actions.login('shopper@example.com', PASSWORD, () => {}, startActionBudget()), 'invalid_grant');
      assert.equal(error.status, 401);
      assert.deepEqual(await storage.read(), GUEST);
    });

    it('createCart sends POST /carts with the key and keeps the cart with its id', async () => {
      const { worker, calls, storage } = setUp('spree-v3', GUEST, { 'POST /api/v3/store/carts': () => Response.json({ ...V3_CART, item_count: 0 }, { status: 201 }) });
      const result = await worker.actions.createCart(startActionBudget());
      assert.deepEqual(result.state.cart, { number: 'R100', id: 'cart_1' });
      assertJsonWithKey(calls[0]!);
      assert.equal(calls[0]!.request.headers.get('Authorization'), null);
      assert.deepEqual((await storage.read()).cart, V3_CART);
    });

    it('createCart answered without an id rejects bad_response and keeps the previous cart', async () => {
      const held: Credentials = { cart: V3_CART, session: null, backoff: null };
      const { worker, announced, storage } = setUp('spree-v3', held, { 'POST /api/v3/store/carts': () => Response.json({ number: 'R200', token: 'cart-token-2' }, { status: 201 }) });
      const error = await rejectsWith(worker.actions.createCart(startActionBudget()), 'bad_response');
      assert.equal(error.status, 201);
      assert.deepEqual(await storage.read(), held);
      assert.deepEqual(announced, []);
    });

    it('a login with a guest cart held assigns it: PATCH /carts/{id}/associate with the new bearer, x-spree-token and the key, no body', async () => {
      const { worker, calls, announced, keepAlive, settled, storage } = setUp('spree-v3', { cart: V3_CART, session: null, backoff: null }, {
        [LOGIN]: () => Response.json({ token: JWT, refresh_token: 'refresh-1', user: USER }),
        'PATCH /api/v3/store/carts/cart_1/associate': () => Response.json({ ...V3_CART, email: USER.email }),
      });
      const result = await worker.actions.login('shopper@example.com', PASSWORD, keepAlive, startActionBudget());
      await settled();
      assert.deepEqual(result.state.cart, { number: 'R100', id: 'cart_1' });
      assert.deepEqual(calls.map((call) => call.route), [LOGIN, 'PATCH /api/v3/store/carts/cart_1/associate']);
      const associate = calls[1]!;
      assertJsonWithKey(associate);
      assert.equal(associate.request.headers.get('Authorization'), `Bearer ${JWT}`);
      assert.equal(associate.request.headers.get('x-spree-token'), V3_CART.token);
      assert.equal(await associate.body, '');
      assert.equal(announced.length, 1, 'a successful association announces nothing more');
      assert.deepEqual((await storage.read()).cart, V3_CART);
    });

    it('a guest cart held without an id (kept before the preset changed) is not assigned, and a second change says why', async () => {
      const { worker, calls, announced, keepAlive, settled } = setUp('spree-v3', { cart: CART, session: null, backoff: null }, { [LOGIN]: () => Response.json({ token: JWT, refresh_token: 'refresh-1', user: USER }) });
      await worker.actions.login('shopper@example.com', PASSWORD, keepAlive, startActionBudget());
      await settled();
      assert.deepEqual(calls.map((call) => call.route), [LOGIN]);
      assert.equal(announced.length, 2);
      assert.equal(announced[1]?.warning?.code, 'bad_response');
    });

    for (const [what, leftMs] of [
      ['a valid JWT', HOUR],
      ['an expired JWT (no expired-pair dance: Spree revokes the refresh token whatever the JWT)', -HOUR],
    ] as const) {
      it(`logout with ${what}: one POST /auth/logout with the refresh token and the key`, async () => {
        const held: Credentials = { cart: V3_CART, session: { ...session('1', leftMs), accessToken: storeApiJwt((NOW + leftMs) / 1000) }, backoff: null };
        const { worker, calls, keepAlive, settled, storage } = setUp('spree-v3', held, { 'POST /api/v3/store/auth/logout': () => new Response(null, { status: 204 }) });
        const result = await worker.actions.logout(keepAlive);
        await settled();
        assert.deepEqual(result.state, { signedIn: false, accessTokenExpiresAt: null, cart: null, pendingWrites: 0 });
        assert.deepEqual(calls.map((call) => call.route), ['POST /api/v3/store/auth/logout']);
        assertJsonWithKey(calls[0]!);
        assert.equal(calls[0]!.request.headers.get('Authorization'), null);
        assert.deepEqual(JSON.parse(await calls[0]!.body), { refresh_token: 'refresh-1' });
        assert.deepEqual(await storage.read(), { cart: null, session: null, backoff: null });
      });
    }
  });
});

