// A seeded, model-based check of when the worker refreshes and how long it waits (docs/behaviour.md,
// "Refresh", "Retry-After", "The spree-v3 preset"): a SessionRefresher over memory storage, a fake
// device clock skewed from the server's by seconds to days, and a token endpoint that answers at
// random (a new pair, an answer lost before or after the rotation, 429/503/500 with Retry-After in
// every spelling or none, a refusal, a malformed 200). An independent model says when a refresh is
// due, how long a failure's back-off lasts, and which refresh tokens are spent; each grant is checked
// against it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Announcer } from '../src/sw/announcer.js';
import { memoryStorage } from '../src/sw/credentialStorage.js';
import type { Dialect } from '../src/sw/dialect.js';
import { spreeV3 } from '../src/sw/dialects/spreeV3.js';
import { store } from '../src/sw/dialects/store.js';
import { HeldCredentials } from '../src/sw/heldCredentials.js';
import { retryAfterMs, sendOwn } from '../src/sw/outbound.js';
import type { QueuedWrite } from '../src/sw/queuedWrite.js';
import { SessionRefresher } from '../src/sw/sessionRefresher.js';
import { backoffLeftMs, settle } from '../src/sw/writeSettlement.js';
import type { Session } from '../src/sw/tokenResponse.js';
import { installFakeLocks, removeFakeLocks, storeApiJwt } from './fakes.js';
import { prng as rng } from './random.js';

const BASE_URL = 'https://shop.example/store';
const CAP = 300_000;
const T0 = Date.UTC(2026, 10, 28, 0, 0, 0);

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const LONG_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const two = (n: number): string => String(n).padStart(2, '0');

/** An HTTP date (RFC 9110 5.6.7) of `ms` in one of its three forms. */
function httpDateText(ms: number, form: number): string {
  const d = new Date(ms);
  const time = `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`;
  if (form === 0) return d.toUTCString();
  if (form === 1) return `${LONG_DAYS[d.getUTCDay()]}, ${two(d.getUTCDate())}-${MONTHS[d.getUTCMonth()]}-${two(d.getUTCFullYear() % 100)} ${time} GMT`;
  return `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, ' ')} ${time} ${d.getUTCFullYear()}`;
}

/** A token with characters a token may hold. */
function tokenOf(r: () => number, label: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/';
  let out = label;
  for (let i = 0; i < 20; i++) out += alphabet[Math.floor(r() * alphabet.length)];
  return out;
}

type Outcome = 'ok' | 'okLost' | 'netLost' | 'r429' | 'r503' | 'r500' | 'refused' | 'malformed';

interface Scenario {
  v3: boolean;
  skewMs: number;
  dateHeader: boolean;
  lifetimeS: number;
}

function scenarioOf(r: () => number): Scenario {
  const skews = [0, 400, -400, 1_500, -1_500, 7_000, -7_000, 90_000, -90_000, 3 * 3_600_000, -3 * 3_600_000, 2 * 86_400_000, -2 * 86_400_000];
  const v3 = r() < 0.5;
  const skewMs = (skews[Math.floor(r() * skews.length)] as number) + Math.floor(r() * 1000);
  const lifetimes = [60, 300, 3_600, 7_200];
  return { v3, skewMs, dateHeader: r() < 0.75, lifetimeS: lifetimes[Math.floor(r() * lifetimes.length)] as number };
}

/** Runs one seeded scenario; returns the violations found. */
async function run(seed: number, steps = 60): Promise<string[]> {
  const r = rng(seed);
  const sc = scenarioOf(r);
  const problems: string[] = [];
  const fail = (what: string): void => void problems.push(`seed ${seed} (${JSON.stringify(sc)}): ${what}`);
  let t = T0 + Math.floor(r() * 86_400_000);
  const now = (): number => t;
  const serverNow = (): number => t + sc.skewMs;
  const dialect: Dialect = sc.v3 ? spreeV3('pk_' + tokenOf(r, '')) : store;

  // The server: which refresh tokens are live, which rotated (and whether its answer reached the worker), the idempotency cache.
  const live = new Set<string>();
  const delivered = new Set<string>(); // refresh tokens whose rotation's answer reached the worker
  const cache = new Map<string, { status: number; text: string; rotated: string; pair?: { access: string; refresh: string; exp: number } }>();
  let issuedCount = 0;
  const expOf = new Map<string, number>();
  function issue(): { access: string; refresh: string; text: string; exp: number } {
    issuedCount++;
    const refresh = tokenOf(r, `rt${issuedCount}"\\`);
    const exp = Math.floor(serverNow() / 1000) + sc.lifetimeS;
    live.add(refresh);
    expOf.set(refresh, sc.v3 ? exp * 1000 : serverNow() + sc.lifetimeS * 1000);
    if (sc.v3) {
      const access = storeApiJwt(exp);
      return { access, refresh, exp: exp * 1000, text: JSON.stringify({ token: access, refresh_token: refresh, user: { id: 'cus_1' } }) };
    }
    const access = tokenOf(r, `at${issuedCount}/+`);
    return { access, refresh, exp: serverNow() + sc.lifetimeS * 1000, text: JSON.stringify({ access_token: access, token_type: 'Bearer', expires_in: sc.lifetimeS, refresh_token: refresh, created_at: Math.floor(serverNow() / 1000) }) };
  }

  // The model of the worker's timing.
  let attempts = 0; // failures in the current streak
  let lastFailureAt: number | null = null;
  let minWaitMs = 0; // what the last failure allows at least
  let maxWaitMs = 0; // and at most (the step or the Retry-After, capped)
  // Set by `expect`, in a closure: a holder, so that the checks below see its changes.
  const model: { expiry: { lo: number; hi: number } | null } = { expiry: null };
  let grantsThisStep = 0;
  let replayedThisStep = false;

  function dateHeaders(headers: Record<string, string>): void {
    if (sc.dateHeader) headers['Date'] = new Date(Math.floor(serverNow() / 1000) * 1000).toUTCString();
  }

  /** A Retry-After in some spelling, and the ms the contract says it means. */
  function retryAfter(headers: Record<string, string>): number {
    const kind = Math.floor(r() * 9);
    const dateBase = sc.dateHeader ? Math.floor(serverNow() / 1000) * 1000 : t;
    if (kind === 0) return 0;
    if (kind === 1) {
      const s = [0, 1, 5, 30, 60, 61, 299, 300, 301, 3_600, 86_400, 1e12][Math.floor(r() * 12)] as number;
      headers['Retry-After'] = String(s);
      return Math.min(s * 1000, CAP);
    }
    if (kind >= 2 && kind <= 4) {
      const ahead = [0, 1, 30, 60, 120, 600, 86_400][Math.floor(r() * 7)] as number;
      const at = Math.floor(serverNow() / 1000) * 1000 + ahead * 1000;
      headers['Retry-After'] = httpDateText(at, kind - 2);
      return Math.min(Math.max(0, at - dateBase), CAP);
    }
    headers['Retry-After'] = ['-5', '1.5', 'soon', '60 s', '', 'Mon, 99 Foo 2026'][Math.floor(r() * 6)] as string;
    return 0;
  }

  let lastRetryAfter = 0;
  const fetchFn: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const text = await request.text();
    const body = sc.v3 ? (JSON.parse(text) as Record<string, string>) : Object.fromEntries(new URLSearchParams(text));
    const refresh = body['refresh_token'] as string;
    const key = request.headers.get('Idempotency-Key');
    if (!sc.v3 && body['grant_type'] !== 'refresh_token') fail(`not a refresh grant: ${text}`);
    grantsThisStep++;
    // P1: never a refresh token the worker already saw rotated.
    if (delivered.has(refresh)) fail(`a grant spent ${refresh}, whose rotation had already reached the worker`);
    if (sc.v3 && !live.has(refresh) && !(key !== null && cache.has(key))) fail(`a grant spent the dead ${refresh} without the key of its lost rotation (key ${key})`);
    // P2: never earlier than the back-off allows.
    if (lastFailureAt !== null && t - lastFailureAt < minWaitMs) fail(`a grant ${t - lastFailureAt} ms after a failure that asked for ${minWaitMs} ms`);
    if (process.env['TRACE']) console.log('grant', t - T0, refresh.slice(0, 4), key, live.has(refresh));
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    dateHeaders(headers);
    if (sc.v3 && key !== null && cache.has(key)) {
      replayedThisStep = true;
      const cached = cache.get(key)!;
      delivered.add(cached.rotated);
      lastOutcome = cached.status === 200 ? 'ok' : 'r429';
      lastRetryAfter = 0;
      return new Response(cached.text, { status: cached.status, headers: { ...headers, 'Idempotent-Replayed': 'true' } });
    }
    const roll = r();
    const outcome: Outcome = roll < 0.35 ? 'ok' : roll < 0.45 ? 'okLost' : roll < 0.53 ? 'netLost' : roll < 0.65 ? 'r429' : roll < 0.75 ? 'r503' : roll < 0.82 ? 'r500' : roll < 0.86 ? 'refused' : roll < 0.93 ? 'malformed' : 'ok';
    lastOutcome = outcome;
    lastRetryAfter = 0;
    if (process.env['TRACE']) console.log('  ->', outcome);
    if (outcome === 'netLost') throw new TypeError('Failed to fetch');
    if (!live.has(refresh)) {
      lastOutcome = 'refused';
      return sc.v3 ? Response.json({ error: { code: 'invalid_refresh_token', message: 'Invalid or expired refresh token' } }, { status: 401, headers }) : Response.json({ error: 'invalid_grant' }, { status: 400, headers });
    }
    if (outcome === 'ok' || outcome === 'okLost') {
      const pair = issue();
      live.delete(refresh);
      if (key !== null) cache.set(key, { status: 200, text: pair.text, rotated: refresh, pair });
      if (outcome === 'okLost') throw new TypeError('Failed to fetch');
      delivered.add(refresh);
      return new Response(pair.text, { status: 200, headers });
    }
    if (outcome === 'r429' || outcome === 'r503') {
      lastRetryAfter = retryAfter(headers);
      const status = outcome === 'r429' ? 429 : 503;
      const text429 = sc.v3 ? JSON.stringify({ error: { code: 'rate_limit_exceeded', message: 'Too many requests.' } }) : '{"error":"slow down"}';
      if (status === 429 && key !== null) cache.set(key, { status, text: text429, rotated: '' });
      return new Response(status === 429 ? text429 : '<html>503</html>', { status, headers });
    }
    if (outcome === 'r500') return new Response('oops', { status: 500, headers });
    if (outcome === 'refused') {
      live.delete(refresh);
      return sc.v3 ? Response.json({ error: { code: 'invalid_refresh_token', message: 'Invalid or expired refresh token' } }, { status: 401, headers }) : Response.json({ error: 'invalid_grant' }, { status: 400, headers });
    }
    return new Response('{"token_type":"Bearer"}', { status: 200, headers });
  };
  let lastOutcome: Outcome | 'refused' = 'ok';

  const storage = memoryStorage();
  const announcer = { announce: () => 'x' } as unknown as Announcer;
  let keyN = 0;
  // Two workers of the origin: their own memory copies, one storage, one lock name.
  const workers = [0, 1].map(() => {
    const held = new HeldCredentials(storage, { failed: () => {}, superseded: () => {} });
    return new SessionRefresher({ held, announcer, options: { dialect }, newKey: () => `k${seed}-${++keyN}`, send: (req, limits) => sendOwn(fetchFn, BASE_URL, req, now, limits), now, log: undefined }, `refresh-${seed}`);
  });
  const refresher = workers[0] as SessionRefresher;

  /** Signs in afresh (as a login would store it), with the model's expectations. */
  async function signIn(): Promise<void> {
    const pair = issue();
    const receivedAt = t;
    let session: Session | null = null;
    try {
    session = dialect.judgeTokenReply(
      { status: 200, text: sc.v3 ? JSON.stringify({ token: pair.access, refresh_token: pair.refresh, user: {} }) : JSON.stringify({ access_token: pair.access, token_type: 'Bearer', expires_in: sc.lifetimeS, refresh_token: pair.refresh }), receivedAt, serverDate: sc.dateHeader ? Math.floor(serverNow() / 1000) * 1000 : null },
      'password',
    );
    } catch {
      session = null;
    }
    await storage.update(() => ({ cart: null, session, backoff: null }));
    attempts = 0;
    lastFailureAt = null;
    minWaitMs = 0;
    expect(pair.exp, receivedAt);
  }

  /** What the model says of a pair that expires at `exp` (server ms) and arrived at device `receivedAt`. */
  function expect(exp: number, receivedAt: number): void {
    if (!sc.v3) {
      model.expiry = { lo: receivedAt + sc.lifetimeS * 1000, hi: receivedAt + sc.lifetimeS * 1000 };
      return;
    }
    const trueOnDevice = exp - sc.skewMs;
    // With the server's Date, the expiry on the device's clock is the true one, at most ~2 s early; without, the device's clock serves.
    model.expiry = sc.dateHeader ? { lo: trueOnDevice - 2_000, hi: trueOnDevice + 1_000 } : { lo: exp, hi: exp };
  }

  const current = async (): Promise<Session | null> => (await storage.read()).session;

  try {
    await signIn();
    const first = await current();
    if (first === null) {
      // v3 without Date and a device clock ahead of the JWT's lifetime: the login is refused (the device's clock serves).
      if (!(sc.v3 && !sc.dateHeader && sc.skewMs < 0)) fail('the login was not kept');
      return problems;
    }
    for (let step = 0; step < steps; step++) {
      // Time passes: a little, up to the margin, past expiry, or a long wait.
      const jump = r();
      t += jump < 0.3 ? Math.floor(r() * 3_000) : jump < 0.6 ? Math.floor(r() * 20_000) : jump < 0.9 ? Math.floor(r() * 120_000) : Math.floor(r() * sc.lifetimeS * 1000);
      const before = await storage.read();
      if (process.env['TRACE']) console.log('step', step, t - T0, before.session?.refreshToken.slice(0, 4), before.session && before.session.expiresAt - T0, before.backoff && before.backoff.until - T0, model.expiry && model.expiry.hi - T0);
      if (before.session === null) {
        await signIn();
        continue;
      }
      if (model.expiry !== null && (before.session.expiresAt < model.expiry.lo || before.session.expiresAt > model.expiry.hi)) {
        fail(`expiresAt ${before.session.expiresAt - T0} outside the model's [${model.expiry.lo - T0}, ${model.expiry.hi - T0}]`);
      }
      const lifetime = Math.max(0, before.session.lifetimeMs);
      const dueByModel = before.session.expiresAt - t <= Math.min(30_000, lifetime / 10);
      const allowed = lastFailureAt === null || t - lastFailureAt >= maxWaitMs;
      grantsThisStep = 0;
      replayedThisStep = false;
      const backoffBefore = before.backoff;
      // One to three requests at once, from either worker; one whose bearer the server refuses (expired
      // by the server's clock, or revoked early) asks for a refresh after its 401.
      const expiredAtServer = serverNow() >= (expOf.get(before.session.refreshToken) as number);
      const revoked = r() < 0.05;
      let unauthorized = false;
      const callers = 1 + Math.floor(r() * 3);
      const runs: Promise<unknown>[] = [];
      for (let i = 0; i < callers; i++) {
        const w = workers[Math.floor(r() * 2)] as SessionRefresher;
        if ((expiredAtServer || revoked) && r() < 0.5) {
          unauthorized = true;
          runs.push(w.refresh(before.session, 'unauthorized'));
        } else runs.push(w.sendable(before.session).catch((error: unknown) => error));
      }
      const outcome = await Promise.all(runs);
      const after = await storage.read();
      if (grantsThisStep > 1 && !(sc.v3 && replayedThisStep)) fail(`${grantsThisStep} grants for one expiry (${callers} requests)`);
      if (grantsThisStep > 0 && !dueByModel && !unauthorized) fail(`a refresh went out for a bearer not due (${before.session.expiresAt - t} ms left of ${lifetime})`);
      if (grantsThisStep === 0 && (dueByModel || revoked && unauthorized) && allowed && backoffBefore === null && !(after.session === null)) fail(`a due bearer (${before.session.expiresAt - t} ms left) was not refreshed with no back-off`);
      if (grantsThisStep === 0 && dueByModel && allowed && lastFailureAt !== null && before.session !== null) {
        fail(`a due bearer was not refreshed ${t - lastFailureAt} ms after a failure whose back-off was ${maxWaitMs} ms (stored until +${backoffBefore === null ? 'none' : backoffBefore.until - lastFailureAt})`);
      }
      if (grantsThisStep > 2) fail(`${grantsThisStep} grants for one request`);
      if (after.backoff !== null) {
        const wait = after.backoff.until - t;
        if (!Number.isFinite(after.backoff.until) || wait > CAP) fail(`a back-off of ${wait} ms stored`);
      }
      if (grantsThisStep > 0) {
        // What the last grant came to.
        if (after.session !== null && after.session.refreshToken !== before.session.refreshToken) expect(expOf.get(after.session.refreshToken) as number, t);
        const failedNow = ['netLost', 'okLost', 'r429', 'r503', 'r500', 'malformed'].includes(lastOutcome);
        if (failedNow) {
          attempts++;
          lastFailureAt = t;
          const step = Math.min(5_000 * 2 ** (attempts - 1), 60_000);
          minWaitMs = Math.max(5_000, lastRetryAfter);
          maxWaitMs = Math.max(step, lastRetryAfter);
          if (after.backoff === null) fail(`a failed refresh (${lastOutcome}) stored no back-off`);
          else {
            const stored = after.backoff.until - t;
            if (stored < minWaitMs) fail(`a failed refresh (${lastOutcome}, Retry-After ${lastRetryAfter} ms) backs off only ${stored} ms`);
            if (stored > Math.max(60_000, Math.min(lastRetryAfter, CAP))) fail(`a failed refresh backs off ${stored} ms, more than the cap`);
          }
        } else {
          // A new pair or a refusal: the streak goes on until the bearer is accepted; here it is accepted at once.
          if (after.session !== null) await refresher.confirm(after.session);
          attempts = 0;
          lastFailureAt = null;
          minWaitMs = 0;
          maxWaitMs = 0;
        }
      }
      void outcome;
    }
  } catch (error) {
    fail(`threw ${(error as Error).stack}`);
  }
  return problems;
}

describe('refresh timing, seeded random scenarios against a model', () => {
  before(() => void installFakeLocks());
  after(() => removeFakeLocks());

  it('holds for 400 seeds', async () => {
    const start = Number(process.env['SEED_START'] ?? 1);
    const count = Number(process.env['SEEDS'] ?? 400);
    const problems: string[] = [];
    for (let seed = start; seed < start + count; seed++) problems.push(...(await run(seed, Number(process.env['STEPS'] ?? 60))));
    assert.deepEqual(problems.slice(0, 15), []);
  });
});

describe("offline writes' Retry-After, seeded random answers against the model", () => {
  it('keeps a 409/429/5xx for at least its Retry-After (capped at 5 min) and the step, never longer than 5 min, never 0 or NaN', () => {
    for (let seed = 1; seed <= 3_000; seed++) {
      const r = rng(seed);
      const skew = [0, 7_000, -7_000, 3_600_000, -86_400_000][Math.floor(r() * 5)] as number;
      const now = T0 + Math.floor(r() * 86_400_000);
      const server = now + skew;
      const withDate = r() < 0.7;
      const headers = new Headers(withDate ? { Date: new Date(Math.floor(server / 1000) * 1000).toUTCString() } : {});
      let asked = 0;
      const kind = Math.floor(r() * 4);
      if (kind === 1) {
        const s = [0, 1, 59, 60, 299, 300, 301, 86_400, 1e15][Math.floor(r() * 9)] as number;
        headers.set('Retry-After', String(s));
        asked = Math.min(s * 1000, CAP);
      } else if (kind === 2) {
        const at = Math.floor(server / 1000) * 1000 + ([0, 30, 600, -60][Math.floor(r() * 4)] as number) * 1000;
        headers.set('Retry-After', httpDateText(at, Math.floor(r() * 3)));
        asked = Math.min(Math.max(0, at - (withDate ? Math.floor(server / 1000) * 1000 : now)), CAP);
      } else if (kind === 3) headers.set('Retry-After', ['-1', '2.5', 'later', 'Fri, 31 Nov 2023 22:13:20 GMT'][Math.floor(r() * 4)] as string);
      const attempts = Math.floor(r() * 19);
      const write = { id: 'w', attempts, notBefore: 0, createdAt: now - 1_000, key: 'k' } as QueuedWrite;
      const status = [409, 429, 500, 502, 503][Math.floor(r() * 5)] as number;
      const settled = settle(write, { kind: 'answered', status, retryAfterMs: retryAfterMs(headers, now) }, true, now);
      const where = `seed ${seed}: ${status} Retry-After ${headers.get('Retry-After')} Date ${headers.get('Date')}`;
      if (settled.outcome === 'expired') continue;
      assert.equal(settled.outcome, 'retry', where);
      assert.ok(settled.outcome === 'retry');
      const wait = settled.write.notBefore - now;
      const step = Math.min(5_000 * 2 ** attempts, CAP);
      assert.ok(Number.isFinite(wait) && wait >= Math.max(step, asked) && wait <= CAP, `${where}: waits ${wait} ms, the model ${Math.max(step, asked)}`);
      assert.equal(backoffLeftMs(settled.write, now), wait, where);
      assert.equal(settled.newKey, status === 409 || status === 429, where);
    }
  });
});
