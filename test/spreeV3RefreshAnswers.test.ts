// Legal Store API answers to the worker's own refresh that it must keep, against a small Spree 5.6
// (strict rotation, logout destroying the token, the Idempotent concern replaying an answer below 500
// under its key: docs/servers.md, "Spree 5's Store API"). A rotation's answer replayed after its JWT's
// lifetime (a browser that quit while the answer was on its way, reopened hours later inside Spree's
// 24 h) holds an expired JWT and the only live refresh token: kept, and refreshed at once with a new
// key, never revoked. A customer with hundreds of saved addresses makes an answer far over 64 KiB
// (the whole `user` comes with it): kept too, up to 1 MiB; past that the answer is refused, but the
// key is kept, as after a lost answer, since the rotation happened.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Announcer } from '../src/sw/announcer.js';
import { memoryStorage } from '../src/sw/credentialStorage.js';
import { spreeV3 } from '../src/sw/dialects/spreeV3.js';
import { HeldCredentials } from '../src/sw/heldCredentials.js';
import { sendOwn } from '../src/sw/outbound.js';
import { SessionRefresher } from '../src/sw/sessionRefresher.js';
import type { Session } from '../src/sw/tokenResponse.js';
import { storeApiJwt } from './fakes.js';

const BASE_URL = 'https://shop.example';
const NOW = 1_700_000_000_000;
const HOUR = 3_600_000;
const STALE: Session = { accessToken: storeApiJwt(NOW / 1000 + 10), refreshToken: 'refresh-1', expiresAt: NOW + 10_000, lifetimeMs: HOUR, confirmed: true };

interface SpreeOptions {
  /** The JWT's lifetime in seconds from the server's clock (Spree's `jwt_expiration`). */
  jwtSeconds?: number;
  /** The `user` of a token answer. */
  user?: Record<string, unknown>;
}

/** Spree 5.6.1's auth endpoints on `clock`: refresh-1 live, answers cached per Idempotency-Key. */
function spree(clock: { now: number }, options: SpreeOptions = {}) {
  const live = new Set(['refresh-1']);
  const cache = new Map<string, { fingerprint: string; status: number; text: string }>();
  const grants: Array<{ key: string | null; refreshToken: unknown; replayed: boolean }> = [];
  const logouts: unknown[] = [];
  let issued = 1;
  let loseNext = 0;
  const fetchFn: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const path = new URL(request.url).pathname;
    const raw = await request.text();
    const body = JSON.parse(raw || '{}') as { refresh_token?: string };
    const headers = { 'Content-Type': 'application/json', Date: new Date(clock.now).toUTCString() };
    if (path === '/api/v3/store/auth/logout') {
      logouts.push(body.refresh_token);
      if (body.refresh_token !== undefined) live.delete(body.refresh_token);
      return new Response(null, { status: 204, headers });
    }
    assert.equal(path, '/api/v3/store/auth/refresh');
    const key = request.headers.get('Idempotency-Key');
    const hit = key === null ? undefined : cache.get(key);
    grants.push({ key, refreshToken: body.refresh_token, replayed: hit !== undefined });
    if (hit !== undefined) {
      assert.equal(hit.fingerprint, raw, 'the same key with another body is 422 idempotency_key_reused');
      return new Response(hit.text, { status: hit.status, headers: { ...headers, 'Idempotent-Replayed': 'true' } });
    }
    let status = 401;
    let text = JSON.stringify({ error: { code: 'invalid_refresh_token', message: 'Invalid or expired refresh token' } });
    if (body.refresh_token !== undefined && live.delete(body.refresh_token)) {
      const fresh = `refresh-${++issued}`;
      live.add(fresh);
      status = 200;
      text = JSON.stringify({ token: storeApiJwt(Math.floor(clock.now / 1000) + (options.jwtSeconds ?? 3600)), refresh_token: fresh, user: options.user ?? { id: 'cus_1' } });
    }
    if (key !== null) cache.set(key, { fingerprint: raw, status, text });
    if (loseNext > 0) {
      loseNext--;
      throw new TypeError('Failed to fetch');
    }
    return new Response(text, { status, headers });
  };
  return { fetchFn, live, grants, logouts, loseNextAnswer: () => void loseNext++ };
}

/** A spree-v3 refresher over storage holding `STALE`, with keys key-1, key-2, … */
function worker(server: ReturnType<typeof spree>, clock: { now: number }) {
  const storage = memoryStorage({ cart: null, session: STALE, backoff: null });
  const held = new HeldCredentials(storage, { failed: () => {}, superseded: () => {} });
  const announced: string[] = [];
  const announcer = { announce: (type: string) => (announced.push(type), 'id') } as unknown as Announcer;
  let keys = 0;
  const refresher = new SessionRefresher(
    {
      held,
      announcer,
      options: { dialect: spreeV3('pk_test') },
      newKey: () => `key-${++keys}`,
      send: (request, limits) => sendOwn(server.fetchFn, BASE_URL, request, () => clock.now, limits),
      now: () => clock.now,
      log: () => {},
    },
    'storefront-auth:refresh:v3-answers',
  );
  return { refresher, storage, announced };
}

describe('spree-v3: a rotation replayed after its JWT has expired', () => {
  it('keeps the live refresh token the replay carries and refreshes it at once with a new key', async () => {
    const clock = { now: NOW };
    const server = spree(clock);
    const { refresher, storage, announced } = worker(server, clock);

    server.loseNextAnswer();
    assert.equal((await refresher.refresh(STALE)).kind, 'failed');
    assert.deepEqual((await storage.read()).refreshKey, { refreshToken: 'refresh-1', key: 'key-1' });
    assert.deepEqual([...server.live], ['refresh-2'], 'rotated at the server');

    // Two hours on, inside Spree's 24 h: the retry with key-1 gets the first answer, its JWT expired.
    clock.now = NOW + 2 * HOUR;
    const outcome = await refresher.refresh(STALE);

    assert.equal(outcome.kind, 'fresh');
    assert.deepEqual(
      server.grants.map(({ key, refreshToken, replayed }) => [key, refreshToken, replayed]),
      [
        ['key-1', 'refresh-1', false],
        ['key-1', 'refresh-1', true],
        ['key-2', 'refresh-2', false],
      ],
    );
    assert.deepEqual(server.logouts, [], 'nothing revoked');
    const after = await storage.read();
    assert.equal(after.session?.refreshToken, 'refresh-3');
    assert.deepEqual([...server.live], ['refresh-3']);
    assert.equal(after.session?.expiresAt, clock.now + HOUR);
    assert.equal(after.refreshKey, undefined);
    assert.deepEqual(announced, ['change', 'change']);
  });

  it('a server that only issues expired JWTs costs two refreshes per back-off step, and its live token is kept', async () => {
    const clock = { now: NOW };
    const server = spree(clock, { jwtSeconds: 0 });
    const { refresher, storage } = worker(server, clock);

    const outcome = await refresher.refresh(STALE);
    assert.equal(outcome.kind, 'failed');
    assert.deepEqual(server.grants.map((grant) => grant.key), ['key-1', 'key-2']);
    const after = await storage.read();
    assert.equal(after.session?.refreshToken, 'refresh-3');
    assert.deepEqual([...server.live], ['refresh-3']);
    assert.deepEqual(after.backoff, { attempts: 1, until: NOW + 5_000 });

    assert.equal((await refresher.refresh(after.session!)).kind, 'failed');
    assert.equal(server.grants.length, 2, 'none within the back-off');
    clock.now = NOW + 5_000;
    await refresher.refresh(after.session!);
    assert.deepEqual(server.grants.map((grant) => grant.refreshToken), ['refresh-1', 'refresh-2', 'refresh-3', 'refresh-4']);
    assert.deepEqual(server.logouts, []);
    assert.deepEqual([...server.live], [(await storage.read()).session?.refreshToken]);
  });
});

describe("spree-v3: a refresh answer carrying a large customer", () => {
  // customer_serializer.rb: the `user` of a token answer holds every saved address.
  const address = { id: 'addr_x', first_name: 'Ann', last_name: 'Smith', full_name: 'Ann Smith', address1: '1 Long Street Name', address2: 'Building 4, floor 7', city: 'Somewhere', postal_code: '00-001', phone: '+48 555 555 555', company: 'Wholesale Buyer Ltd', country_name: 'Poland', country_iso: 'PL', state_text: null, state_abbr: null, state_name: null, quick_checkout: false, is_default_billing: false, is_default_shipping: false };
  const customer = (addresses: number) => ({ id: 'cus_1', email: 'a@example.com', addresses: Array.from({ length: addresses }, () => address) });

  it('200 saved addresses (over 64 KiB): the rotated pair is kept', async () => {
    const clock = { now: NOW };
    const server = spree(clock, { user: customer(200) });
    const { refresher, storage } = worker(server, clock);
    const outcome = await refresher.refresh(STALE);
    assert.equal(outcome.kind, 'fresh');
    assert.equal((await storage.read()).session?.refreshToken, 'refresh-2');
    assert.deepEqual([...server.live], ['refresh-2']);
  });

  it('an answer past the 1 MiB bound keeps the key, so the retry asks for the same rotation', async () => {
    const clock = { now: NOW };
    const server = spree(clock, { user: customer(4_000) });
    const { refresher, storage } = worker(server, clock);
    const outcome = await refresher.refresh(STALE);
    assert.ok(outcome.kind === 'failed' && outcome.error.code === 'bad_response', JSON.stringify(outcome.kind));
    assert.deepEqual((await storage.read()).refreshKey, { refreshToken: 'refresh-1', key: 'key-1' });
    clock.now = NOW + 5_000;
    await refresher.refresh(STALE);
    assert.deepEqual(server.grants.map(({ key, replayed }) => [key, replayed]), [['key-1', false], ['key-1', true]]);
    assert.deepEqual(server.logouts, []);
  });
});
