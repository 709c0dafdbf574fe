// The refresh (CONTRACT.md, "Refresh"; SPEC.md 4.3, 5 rule 4) with memory storage, a fake token
// endpoint and a recording announcer handed in: one refresh per expiry, reuse of a pair another
// context rotated, and what a refused or failed refresh does to the stored pair.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isStorefrontAuthError } from '../src/shared/errors.js';
import type { AuthState } from '../src/shared/state.js';
import type { Announcer } from '../src/sw/announcer.js';
import { memoryStorage, type CredentialStorage, type Credentials } from '../src/sw/credentialStorage.js';
import { HeldCredentials } from '../src/sw/heldCredentials.js';
import { SessionRefresher } from '../src/sw/sessionRefresher.js';
import type { Session } from '../src/sw/tokenResponse.js';

const TOKEN_URL = 'https://shop.example/store/store_oauth/token';
const NOW = 1_700_000_000_000;
const HOUR = 3_600_000;
const CART = { token: 'order-token', number: 'R100' };

/** A session whose access token has `leftMs` left at NOW, out of a one-hour lifetime. */
function session(name: string, leftMs: number): Session {
  return { accessToken: `access-${name}`, refreshToken: `refresh-${name}`, expiresAt: NOW + leftMs, lifetimeMs: HOUR };
}

const STALE = session('1', 10_000);

interface Grant {
  url: string;
  method: string | undefined;
  fields: Record<string, string>;
}

/** The token endpoint: records each grant and answers with `answer`, which may wait or throw. */
function tokenEndpoint(answer: (grant: Grant, count: number) => Promise<Response> | Response) {
  const grants: Grant[] = [];
  const fetchFn: typeof fetch = async (input, init) => {
    const body = init?.body;
    assert.ok(body instanceof URLSearchParams, 'the grant is form-encoded');
    const grant: Grant = { url: String(input), method: init?.method, fields: Object.fromEntries(body) };
    grants.push(grant);
    return answer(grant, grants.length);
  };
  return { fetch: fetchFn, grants };
}

/** Doorkeeper's answer to a refresh grant: a new pair (STOREFRONT-FACTS.md). */
function issued(name: string, expiresIn = 3600): Response {
  return Response.json({ access_token: `access-${name}`, token_type: 'Bearer', expires_in: expiresIn, refresh_token: `refresh-${name}`, created_at: NOW / 1000 });
}

function refused(): Response {
  return Response.json({ error: 'invalid_grant', error_description: 'The provided authorization grant is invalid.' }, { status: 400 });
}

interface Announced {
  type: Parameters<Announcer['announce']>[0];
  state: AuthState;
}

/**
 * One worker's refresher over `storage`. The announcer is a recording stand-in: the real one opens a
 * BroadcastChannel, which would keep Node's event loop alive, and only `announce` is used here.
 */
function worker(storage: CredentialStorage, fetchFn: typeof fetch, now = (): number => NOW) {
  const announced: Announced[] = [];
  const recorder = {
    announce(type: Announced['type'], state: AuthState): string {
      announced.push({ type, state });
      return `change-${announced.length}`;
    },
  } satisfies Pick<Announcer, 'announce'>;
  const storageFailures: unknown[] = [];
  const held = new HeldCredentials(storage, (error) => storageFailures.push(error));
  const refresher = new SessionRefresher(
    { held, announcer: recorder as unknown as Announcer, tokenUrl: TOKEN_URL, fetch: fetchFn, now, log: () => {} },
    'storefront-auth:refresh:test',
  );
  return { refresher, held, announced, storageFailures };
}

/** A promise with its resolver, to hold the token endpoint's answer back. */
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

async function rejectsWith(promise: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(isStorefrontAuthError(error), String(error));
    assert.equal(error.code, code);
    assert.ok(!error.message.includes('refresh-1') && !error.message.includes('access-1'), error.message);
    return true;
  });
}

describe('SessionRefresher', () => {
  it('sends the refresh grant with the stored refresh token and keeps the new pair', async () => {
    const storage = memoryStorage({ cart: CART, session: STALE });
    const endpoint = tokenEndpoint(() => issued('2'));
    const { refresher, announced } = worker(storage, endpoint.fetch);

    const fresh = await refresher.refresh(STALE);

    assert.deepEqual(endpoint.grants, [{ url: TOKEN_URL, method: 'POST', fields: { grant_type: 'refresh_token', refresh_token: 'refresh-1' } }]);
    assert.deepEqual(fresh, { accessToken: 'access-2', refreshToken: 'refresh-2', expiresAt: NOW + HOUR, lifetimeMs: HOUR });
    assert.deepEqual(await storage.read(), { cart: CART, session: fresh });
    assert.deepEqual(announced, [{ type: 'change', state: { signedIn: true, accessTokenExpiresAt: NOW + HOUR, cart: { number: 'R100' } } }]);
    assert.ok(!JSON.stringify(announced).includes('access-') && !JSON.stringify(announced).includes('refresh-'), 'an announcement carries a token');
  });

  it('single flight: concurrent callers share one refresh', async () => {
    const storage = memoryStorage({ cart: null, session: STALE });
    const answer = deferred<Response>();
    const endpoint = tokenEndpoint(() => answer.promise);
    const { refresher, announced } = worker(storage, endpoint.fetch);

    const callers = Array.from({ length: 5 }, () => refresher.refresh(STALE));
    // Let every caller reach the endpoint if it were going to.
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(endpoint.grants.length, 1);
    answer.resolve(issued('2'));
    const results = await Promise.all(callers);

    assert.equal(endpoint.grants.length, 1);
    for (const result of results) assert.equal(result?.accessToken, 'access-2');
    assert.equal(announced.length, 1);
  });

  it('single flight: callers of one refused refresh all see the session end once', async () => {
    const storage = memoryStorage({ cart: null, session: STALE });
    const endpoint = tokenEndpoint(async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return refused();
    });
    const { refresher, announced } = worker(storage, endpoint.fetch);

    const results = await Promise.all([refresher.refresh(STALE), refresher.refresh(STALE), refresher.refresh(STALE)]);

    assert.deepEqual(results, [null, null, null]);
    assert.equal(endpoint.grants.length, 1);
    assert.deepEqual(announced.map((a) => a.type), ['sessionexpired']);
  });

  it('refreshes again for a later expiry once the first refresh settled', async () => {
    const storage = memoryStorage({ cart: null, session: STALE });
    const endpoint = tokenEndpoint((_grant, count) => issued(String(count + 1)));
    const { refresher } = worker(storage, endpoint.fetch);

    const second = await refresher.refresh(STALE);
    assert.ok(second !== null);
    const third = await refresher.refresh(second);

    assert.equal(third?.accessToken, 'access-3');
    assert.deepEqual(endpoint.grants.map((g) => g.fields['refresh_token']), ['refresh-1', 'refresh-2']);
  });

  it('uses the pair another context already rotated in storage, without a grant', async () => {
    const storage = memoryStorage({ cart: null, session: STALE });
    const endpoint = tokenEndpoint(() => assert.fail('no grant should be sent'));
    const { refresher, held, announced } = worker(storage, endpoint.fetch);
    await held.load();
    // Another tab's worker rotated the pair after this one read it.
    const rotated = session('2', HOUR);
    await storage.update((previous) => ({ ...previous, session: rotated }));

    assert.deepEqual(await refresher.refresh(STALE), rotated);
    assert.equal(endpoint.grants.length, 0);
    assert.deepEqual(announced, []);
    assert.deepEqual(held.current?.session, rotated);
  });

  it('two workers over one storage: the second uses the first one’s rotation', async () => {
    const storage = memoryStorage({ cart: null, session: STALE });
    const endpoint = tokenEndpoint((_grant, count) => issued(String(count + 1)));
    const first = worker(storage, endpoint.fetch);
    const second = worker(storage, endpoint.fetch);
    await second.held.load();

    const byFirst = await first.refresher.refresh(STALE);
    const bySecond = await second.refresher.refresh(STALE);

    assert.equal(endpoint.grants.length, 1);
    assert.deepEqual(bySecond, byFirst);
  });

  it('refreshes the stored pair, not the stale one, when the stored one is also due', async () => {
    const storage = memoryStorage({ cart: null, session: STALE });
    const endpoint = tokenEndpoint(() => issued('3'));
    const { refresher, held } = worker(storage, endpoint.fetch);
    await held.load();
    await storage.update((previous) => ({ ...previous, session: session('2', 5_000) }));

    const fresh = await refresher.refresh(STALE);

    assert.deepEqual(endpoint.grants.map((g) => g.fields['refresh_token']), ['refresh-2']);
    assert.equal(fresh?.accessToken, 'access-3');
  });

  it('refreshes a pair it was handed that is not yet due (a 401 says it is no good)', async () => {
    const current = session('1', HOUR);
    const storage = memoryStorage({ cart: null, session: current });
    const endpoint = tokenEndpoint(() => issued('2'));
    const { refresher } = worker(storage, endpoint.fetch);

    assert.equal((await refresher.refresh(current))?.accessToken, 'access-2');
    assert.equal(endpoint.grants.length, 1);
  });

  it('resolves null without a grant when signed out meanwhile', async () => {
    const storage = memoryStorage({ cart: CART, session: null });
    const endpoint = tokenEndpoint(() => assert.fail('no grant should be sent'));
    const { refresher, announced } = worker(storage, endpoint.fetch);

    assert.equal(await refresher.refresh(STALE), null);
    assert.deepEqual(announced, []);
  });

  it('invalid_grant forgets the pair, keeps the cart and announces sessionexpired', async () => {
    const storage = memoryStorage({ cart: CART, session: STALE });
    const endpoint = tokenEndpoint(() => refused());
    const { refresher, announced } = worker(storage, endpoint.fetch);

    assert.equal(await refresher.refresh(STALE), null);

    assert.deepEqual(await storage.read(), { cart: CART, session: null });
    assert.deepEqual(announced, [{ type: 'sessionexpired', state: { signedIn: false, accessTokenExpiresAt: null, cart: { number: 'R100' } } }]);
  });

  it('a network failure keeps the pair, rejects with network_error and announces nothing', async () => {
    const storage = memoryStorage({ cart: CART, session: STALE });
    const endpoint = tokenEndpoint(() => {
      throw new TypeError('Failed to fetch');
    });
    const { refresher, announced } = worker(storage, endpoint.fetch);

    await rejectsWith(refresher.refresh(STALE), 'network_error');

    assert.deepEqual(await storage.read(), { cart: CART, session: STALE });
    assert.deepEqual(announced, []);
  });

  it('after a network failure the lock is free: the next call tries again', async () => {
    const storage = memoryStorage({ cart: null, session: STALE });
    const endpoint = tokenEndpoint((_grant, count) => {
      if (count === 1) throw new TypeError('Failed to fetch');
      return issued('2');
    });
    const { refresher } = worker(storage, endpoint.fetch);

    await rejectsWith(refresher.refresh(STALE), 'network_error');
    assert.equal((await refresher.refresh(STALE))?.accessToken, 'access-2');
    assert.equal(endpoint.grants.length, 2);
  });

  for (const [what, answer] of [
    ['a 502 gateway page', () => new Response('<html>502 Bad Gateway</html>', { status: 502 })],
    ['a 200 that is not a token response', () => new Response('<html>shop</html>', { status: 200 })],
    ['401 invalid_client', () => Response.json({ error: 'invalid_client' }, { status: 401 })],
  ] as const) {
    it(`${what} keeps the pair and rejects with bad_response`, async () => {
      const storage = memoryStorage({ cart: null, session: STALE });
      const endpoint = tokenEndpoint(answer);
      const { refresher, announced } = worker(storage, endpoint.fetch);

      await rejectsWith(refresher.refresh(STALE), 'bad_response');

      assert.deepEqual(await storage.read(), { cart: null, session: STALE });
      assert.deepEqual(announced, []);
    });
  }

  it('a login during the refresh wins over the refreshed pair', async () => {
    const storage = memoryStorage({ cart: null, session: STALE });
    const loggedIn = session('login', HOUR);
    const endpoint = tokenEndpoint(async () => {
      // The shopper signs in again (in another tab) while the refresh is in flight.
      await storage.update((previous) => ({ ...previous, session: loggedIn }));
      return issued('2');
    });
    const { refresher, announced } = worker(storage, endpoint.fetch);

    assert.deepEqual(await refresher.refresh(STALE), loggedIn);
    assert.deepEqual((await storage.read()).session, loggedIn);
    assert.deepEqual(announced, []);
  });

  it('a logout during a successful refresh stays a logout', async () => {
    const storage = memoryStorage({ cart: CART, session: STALE });
    const endpoint = tokenEndpoint(async () => {
      await storage.update((): Credentials => ({ cart: null, session: null }));
      return issued('2');
    });
    const { refresher, announced } = worker(storage, endpoint.fetch);

    assert.equal(await refresher.refresh(STALE), null);
    assert.deepEqual(await storage.read(), { cart: null, session: null });
    assert.deepEqual(announced, []);
  });

  it('a login during a refused refresh stands, with no sessionexpired', async () => {
    const storage = memoryStorage({ cart: null, session: STALE });
    const loggedIn = session('login', HOUR);
    const endpoint = tokenEndpoint(async () => {
      await storage.update((previous) => ({ ...previous, session: loggedIn }));
      return refused();
    });
    const { refresher, announced } = worker(storage, endpoint.fetch);

    assert.deepEqual(await refresher.refresh(STALE), loggedIn);
    assert.deepEqual(announced, []);
  });

  // BUG (src/sw/sessionRefresher.ts): after the update, `next.session === fresh` is meant to say
  // "our write took effect", but when the refresh was refused `fresh` is null, and a logout that
  // happened meanwhile also leaves null, so the logout is followed by a `sessionexpired` (with the
  // spree preset the logout's own revoke can make an in-flight refresh fail this way). Deciding
  // inside the update whether the spent pair was still stored would tell the two apart.
  it('a logout during a refused refresh stays a logout, with no sessionexpired', async () => {
    const storage = memoryStorage({ cart: CART, session: STALE });
    const endpoint = tokenEndpoint(async () => {
      await storage.update((): Credentials => ({ cart: null, session: null }));
      return refused();
    });
    const { refresher, announced } = worker(storage, endpoint.fetch);

    assert.equal(await refresher.refresh(STALE), null);
    assert.deepEqual(await storage.read(), { cart: null, session: null });
    assert.deepEqual(announced, []);
  });

  it('counts the new expiry from when the answer arrived', async () => {
    let clock = NOW;
    const storage = memoryStorage({ cart: null, session: STALE });
    const endpoint = tokenEndpoint(() => {
      clock = NOW + 2_000;
      return issued('2', 60);
    });
    const { refresher } = worker(storage, endpoint.fetch, () => clock);

    const fresh = await refresher.refresh(STALE);
    assert.equal(fresh?.expiresAt, NOW + 2_000 + 60_000);
    assert.equal(fresh?.lifetimeMs, 60_000);
  });
  it('retired for a newer release: lets the refresh in flight land in storage first, then never refreshes', async () => {
    const storage = memoryStorage({ cart: null, session: STALE });
    const answer = deferred<Response>();
    const endpoint = tokenEndpoint(() => answer.promise);
    const { refresher } = worker(storage, endpoint.fetch);

    const inFlight = refresher.refresh(STALE);
    await new Promise((resolve) => setImmediate(resolve));
    let retired = false;
    const retiring = refresher.retire().then(() => (retired = true));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(retired, false, 'retired before the rotated pair was stored');
    answer.resolve(issued('2'));
    await retiring;
    assert.equal((await storage.read()).session?.refreshToken, 'refresh-2', 'the rotated pair is stored when retire resolves');
    assert.equal((await inFlight)?.accessToken, 'access-2');

    // Expired or after a 401 alike: no grant goes out, and the caller keeps the session it had.
    const rotated = (await storage.read()).session;
    assert.ok(rotated !== null);
    assert.equal(await refresher.refresh(rotated), rotated);
    assert.equal(endpoint.grants.length, 1);
  });

  it('retired with no refresh in flight: resolves at once, even after a failed refresh', async () => {
    const storage = memoryStorage({ cart: null, session: STALE });
    const endpoint = tokenEndpoint(() => Promise.reject(new TypeError('Failed to fetch')));
    const { refresher } = worker(storage, endpoint.fetch);
    await rejectsWith(refresher.refresh(STALE), 'network_error');
    await refresher.retire();
    assert.equal(await refresher.refresh(STALE), STALE);
    assert.equal(endpoint.grants.length, 1);
  });
});
