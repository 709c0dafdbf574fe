// The spree-v3 preset's session, driven through seeded random sequences (docs/behaviour.md, "The
// spree-v3 preset"): one or two AuthWorkers over one storage, a fake Store API v3 written from
// docs/servers.md and Spree 5.6.1's source (HS256 JWTs whose only
// lifetime is `exp`, strictly rotated refresh tokens with Idempotency-Key replay, logout revoking one
// refresh token, flat guest carts opened by `x-spree-token` or the owner's JWT, associate needing both,
// 401/429 with Retry-After, a `Date` clock skewed from the device's). Steps: bridge login, logout,
// createCart; page requests to cart, account and catalogue paths (with no credential, or with the
// placeholders); time past expiry; the server refusing every JWT it issued (a rotated secret); a
// refused refresh; lost answers; a worker restarted over the same storage. The oracle, at the server
// and in what pages see: the right credential on each path, never a spent or revoked refresh token
// sent, at most one refresh of one token at once and none after its rotation reached the worker, no
// refresh token revoked while still held, the state announced equal to storage, no request as the
// wrong shopper, no real token in what a page reads. SEEDS=n, SEED_BASE=s, SEED=s (one, traced), STEPS.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Announcement } from '../src/shared/protocol.js';
import { AuthWorker } from '../src/sw/authWorker.js';
import { memoryStorage, NO_CREDENTIALS, type CredentialStorage } from '../src/sw/credentialStorage.js';
import { resolveOptions } from '../src/sw/options.js';
import type { KeepAlive } from '../src/sw/requestPath.js';
import { installFakeLocks, removeFakeLocks, storeApiJwt, unrefChannels } from './fakes.js';
import { prng as rng } from './random.js';

const T0 = Date.UTC(2026, 10, 28, 3, 0, 0);
const PK = 'pk_fuzz_0123456789';
const STORE = '/api/v3/store';
const USERS: Record<string, { id: number; password: string }> = { alice: { id: 11, password: 'a"\\/+pw' }, bob: { id: 22, password: 'b+/pw"' } };
const userById = (id: number): string => Object.keys(USERS).find((u) => USERS[u]!.id === id) ?? `#${id}`;

type Fault = 'r429' | 'lostBefore' | 'lostAfter' | 'r500' | 'refuse';
type RefreshState = { user: number; status: 'live' | 'rotated' | 'revoked' | 'killed'; delivered: boolean; rotationSeen: boolean; lostKeys: Set<string | null>; expAt: number; inFlight: number; lastOutcome: string; n: number };
interface Cart { id: string; number: string; token: string; owner: number | null }
interface Probe { n: number; what: string; user: string | null; cart: Cart | null; expiredOk: boolean }

class StoreApi {
  readonly violations: string[] = [];
  readonly notes: string[] = [];
  readonly jwts = new Map<string, { user: number; exp: number; epoch: number }>();
  readonly refresh = new Map<string, RefreshState>();
  readonly carts = new Map<string, Cart>();
  readonly keys = new Map<string, { fingerprint: string; status: number; text: string; rotated: string }>();
  readonly secrets = new Set<string>();
  readonly probes = new Map<string, Probe>();
  readonly log: string[] = [];
  jwtEpoch = 0;
  next: Fault | null = null;
  lifetimeS = 3600;
  dateHeader = true;
  grants = 0;
  #n = 0;
  onRefused: (user: number) => void = () => {};
  constructor(readonly r: () => number, readonly serverNow: () => number) {}

  #odd(len: number): string {
    const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz123456789/+\\"=.-_~';
    let s = '';
    for (let i = 0; i < len; i++) s += alphabet[Math.floor(this.r() * alphabet.length)];
    return s;
  }

  #headers(extra: Record<string, string> = {}): Headers {
    const h = new Headers(extra);
    if (this.dateHeader) h.set('Date', new Date(Math.floor(this.serverNow() / 1000) * 1000).toUTCString());
    return h;
  }

  #json(body: unknown, status = 200, extra: Record<string, string> = {}): Response {
    const h = this.#headers(extra);
    // Spree 5.6.1 as tagged: the limit reached, the answer goes on, with `Retry-After: 60` on it.
    if (status < 400 && this.r() < 0.15) {
      h.set('Retry-After', '60');
      h.set('X-RateLimit-Limit', '10');
      h.set('X-RateLimit-Remaining', '0');
    }
    h.set('Content-Type', 'application/json');
    return new Response(status === 204 ? null : JSON.stringify(body), { status, headers: h });
  }

  #error(status: number, code: string, message: string, extra: Record<string, string> = {}): Response {
    return this.#json({ error: { code, message } }, status, extra);
  }

  #pair(user: number): { text: string; refresh: string; access: string } {
    const n = ++this.#n;
    const exp = Math.floor(this.serverNow() / 1000) + this.lifetimeS;
    const access = storeApiJwt(exp, JSON.stringify({ user_id: user, user_type: 'customer', jti: `jti-${n}-${Math.floor(this.r() * 1e9)}`, iss: 'spree', aud: 'store_api', exp }));
    const refresh = `${this.#odd(10)}${n}${this.#odd(12)}`;
    this.jwts.set(access, { user, exp, epoch: this.jwtEpoch });
    this.refresh.set(refresh, { user, status: 'live', delivered: false, rotationSeen: false, lostKeys: new Set(), expAt: this.serverNow() + 30 * 86_400_000, inFlight: 0, lastOutcome: '', n });
    this.secrets.add(access).add(refresh);
    const name = userById(user);
    return { access, refresh, text: JSON.stringify({ token: access, refresh_token: refresh, user: { id: `cus_${user}`, email: `${name}@example.com`, first_name: name } }) };
  }

  #cartDoc(cart: Cart, status = 200): Response {
    return this.#json({ id: cart.id, number: cart.number, token: cart.token, item_count: 0, state: 'cart', email: cart.owner === null ? null : `${userById(cart.owner)}@example.com` }, status);
  }

  /** The JWT's shopper as Spree reads it: `Bearer ` exact, the last space-separated part; bad or expired is no shopper. */
  jwtUser(request: Request): { user: number | null; sent: string | null; why: string } {
    const header = request.headers.get('Authorization');
    if (header === null) return { user: null, sent: null, why: 'none' };
    if (!header.startsWith('Bearer ')) return { user: null, sent: header, why: 'not Bearer' };
    const token = header.split(' ').at(-1)!;
    const jwt = this.jwts.get(token);
    if (jwt === undefined) return { user: null, sent: token, why: 'unknown' };
    if (jwt.exp * 1000 <= this.serverNow()) return { user: null, sent: token, why: 'expired' };
    if (jwt.epoch < this.jwtEpoch) return { user: null, sent: token, why: 'secret rotated' };
    return { user: jwt.user, sent: token, why: 'ok' };
  }

  async handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const path = url.pathname;
    const body = request.method === 'GET' || request.method === 'HEAD' ? '' : await request.text();
    // Another task or two: two workers' requests overlap at the server.
    await new Promise((resolve) => setTimeout(resolve, Math.floor(this.r() * 3)));
    const route = `${request.method} ${path.startsWith(STORE) ? path.slice(STORE.length) : path}`;
    const probeId = request.headers.get('X-Probe');
    this.log.push(`  server: ${route}${probeId ? ` probe ${probeId}` : ''} auth=${this.jwtUser(request).why} x-spree-token=${request.headers.get('x-spree-token') === null ? '-' : 'yes'}`);
    if (request.method === 'HEAD' && path === '/') return new Response(null, { headers: this.#headers() });
    if (request.headers.get('X-Spree-Api-Key') !== PK) {
      this.violations.push(`${route} sent without the publishable key`);
      return this.#error(401, 'invalid_token', 'Valid API key required');
    }
    for (const [name, value] of request.headers) if (value.includes('sealed:')) this.violations.push(`${route} reached the server with a placeholder in ${name}: ${value}`);
    if (body.includes('sealed:')) this.violations.push(`${route} reached the server with a placeholder in its body`);
    let json: Record<string, unknown> = {};
    try {
      json = body === '' ? {} : (JSON.parse(body) as Record<string, unknown>);
    } catch {
      return this.#error(400, 'invalid_request', 'bad JSON');
    }
    if (route === 'POST /auth/login') return this.#login(json);
    if (route === 'POST /auth/refresh') return this.#refresh(request, json, body, path);
    if (route === 'POST /auth/logout') return this.#logout(json);
    if (route === 'POST /customers') {
      const email = String(json['email'] ?? '');
      if (USERS[email] !== undefined) return this.#json({ error: { code: 'validation_error', message: 'Email has already been taken', details: { email: ['has already been taken'] } } }, 422);
      USERS[email] = { id: 1000 + Object.keys(USERS).length, password: String(json['password']) };
      const pair = this.#pair(USERS[email]!.id);
      this.refresh.get(pair.refresh)!.delivered = true;
      return this.#json(JSON.parse(pair.text), 201);
    }
    const reset = /^PATCH \/password_resets\/([^/]+)$/.exec(route);
    if (reset !== null) {
      const name = this.resetTokens.get(decodeURIComponent(reset[1]!));
      if (name === undefined) return this.#error(422, 'password_reset_token_invalid', 'invalid');
      const id = USERS[name]!.id;
      // Every refresh token of the shopper revoked.
      for (const rt of this.refresh.values()) if (rt.user === id && rt.status === 'live') {
        rt.status = 'killed';
        rt.lastOutcome = 'reset';
      }
      const pair = this.#pair(id);
      this.refresh.get(pair.refresh)!.delivered = true;
      return this.#json(JSON.parse(pair.text));
    }
    const probe = probeId === null ? null : this.probes.get(probeId) ?? null;
    const who = this.jwtUser(request);
    const cartToken = request.headers.get('x-spree-token');
    if (probe !== null) this.#check(probe, route, who, cartToken, request);
    if (route === 'GET /products') return this.#json({ data: [{ id: 'prod_1', name: 'Tee' }], meta: {} });
    if (route === 'GET /customers/me') {
      if (who.user === null) return this.#error(401, 'authentication_required', 'Authentication required');
      return this.#json({ id: `cus_${who.user}`, email: `${userById(who.user)}@example.com` });
    }
    if (route === 'GET /carts') {
      if (who.user === null) return this.#error(401, 'authentication_required', 'Authentication required');
      return this.#json({ data: [...this.carts.values()].filter((c) => c.owner === who.user).map((c) => ({ id: c.id, number: c.number, token: c.token })), meta: {} });
    }
    if (route === 'POST /carts') {
      this.lastCreateWhy = who.why;
      const n = this.carts.size + 1;
      const cart: Cart = { id: `cart_${n}x${Math.floor(this.r() * 1e6).toString(36)}`, number: `R${100_000 + n}`, token: this.#odd(35), owner: who.user };
      this.carts.set(cart.id, cart);
      this.secrets.add(cart.token);
      return this.#cartDoc(cart, 201);
    }
    const m = /^\/carts\/([^/]+)(\/.*)?$/.exec(route.slice(route.indexOf(' ') + 1));
    if (m !== null) {
      const cart = this.carts.get(decodeURIComponent(m[1]!));
      const rest = m[2] ?? '';
      if (rest === '/associate' && request.method === 'PATCH') {
        if (who.user === null) return this.#error(401, 'authentication_required', 'Authentication required');
        if (cart === undefined || (cart.owner !== null && cart.owner !== who.user)) return this.#error(404, 'cart_not_found', 'not found');
        if (cartToken !== cart.token) return this.#error(403, 'access_denied', 'denied');
        cart.owner = who.user;
        this.log.push(`  server: ${cart.id} associated with ${userById(who.user)}`);
        return this.#cartDoc(cart);
      }
      if (cart === undefined) return this.#error(404, 'cart_not_found', 'not found');
      if (!((who.user !== null && cart.owner === who.user) || cartToken === cart.token)) return this.#error(403, 'access_denied', 'denied');
      return this.#cartDoc(cart, rest === '/items' && request.method === 'POST' ? 201 : 200);
    }
    return this.#error(404, 'record_not_found', 'not found');
  }

  /** The credential each page request carries, against what the model says the worker holds. */
  #check(probe: Probe, route: string, who: { user: number | null; sent: string | null; why: string }, cartToken: string | null, request: Request): void {
    const where = `probe ${probe.n} ${probe.what} (${route}, model user ${probe.user ?? 'guest'}, cart ${probe.cart?.id ?? 'none'})`;
    const sentUser = who.sent === null ? null : this.jwts.get(who.sent)?.user ?? -1;
    if (probe.what === 'catalogue') {
      if (request.headers.get('Authorization') !== null || cartToken !== null) this.violations.push(`${where}: a catalogue request carries a credential`);
      return;
    }
    if (sentUser !== null && (probe.user === null || sentUser !== USERS[probe.user]!.id)) this.violations.push(`${where}: sent with the JWT of ${userById(sentUser)} (${who.why})`);
    if (probe.user !== null && who.sent === null && probe.what !== 'cartCreate') this.unlessRefused.push(`${where}: a signed-in shopper's request went without a bearer`);
    if (probe.user !== null && who.why === 'expired' && !probe.expiredOk) this.violations.push(`${where}: sent with an expired JWT while no refresh had failed`);
    if (probe.what === 'cart' || probe.what === 'cartItem') {
      if (probe.cart !== null && cartToken !== probe.cart.token) this.violations.push(`${where}: x-spree-token ${cartToken === null ? 'missing' : 'of another cart'}`);
    } else if (cartToken !== null && probe.what !== 'cartCreate') this.violations.push(`${where}: x-spree-token on a path that takes none`);
    if (probe.what === 'cartCreate' && cartToken !== null) this.violations.push(`${where}: x-spree-token on cart creation`);
  }

  consumed = 0;
  /** Allowed only where a refresh was refused before the request went (it then goes as a guest's). */
  unlessRefused: string[] = [];
  lastCreateWhy = '';
  #fault(): Fault | null {
    const f = this.next;
    if (f !== null) this.consumed++;
    this.next = null;
    return f;
  }

  #login(json: Record<string, unknown>): Response {
    const fault = this.#fault();
    if (fault === 'r429') return this.#error(429, 'rate_limit_exceeded', 'Too many requests. Please retry later.', { 'Retry-After': '60', 'X-RateLimit-Limit': '5', 'X-RateLimit-Remaining': '0' });
    if (fault === 'lostBefore') throw new TypeError('Failed to fetch');
    const name = String(json['email'] ?? '');
    const user = USERS[name];
    if (user === undefined || json['password'] !== user.password) return this.#error(401, 'authentication_failed', 'Invalid email or password');
    const pair = this.#pair(user.id);
    if (fault === 'lostAfter') {
      this.log.push(`  server: login answer lost (${pair.refresh.slice(0, 6)})`);
      this.notes.push(`lost login pair ${pair.refresh}`);
      throw new TypeError('Failed to fetch');
    }
    this.refresh.get(pair.refresh)!.delivered = true;
    return this.#json(JSON.parse(pair.text));
  }

  async #refresh(request: Request, json: Record<string, unknown>, body: string, path: string): Promise<Response> {
    this.grants++;
    const token = typeof json['refresh_token'] === 'string' ? json['refresh_token'] : '';
    const key = request.headers.get('Idempotency-Key');
    const held = this.refresh.get(token);
    const fingerprint = `POST ${path} ${body}`;
    const cached = key === null ? undefined : this.keys.get(key);
    this.log.push(`  server: refresh ${token.slice(0, 6)} key ${key?.slice(0, 8)} state ${held?.status}${held?.delivered ? ' delivered' : ''} inFlight ${held?.inFlight}`);
    if (cached !== undefined) {
      this.grants--; // a replay of a rotation already made (its answer lost), not a refresh
      if (cached.fingerprint !== fingerprint) return this.#error(422, 'idempotency_key_reused', 'reused');
      const fault = this.#fault();
      if (fault === 'lostBefore' || fault === 'lostAfter') throw new TypeError('Failed to fetch');
      const rotated = this.refresh.get(cached.rotated);
      if (rotated !== undefined && cached.status === 200) {
        const issued = JSON.parse(cached.text).refresh_token as string;
        const fresh = this.refresh.get(issued);
        if (fresh) fresh.delivered = true;
        rotated.rotationSeen = true;
      }
      const h = this.#headers({ 'Idempotent-Replayed': 'true', 'Content-Type': 'application/json' });
      return new Response(cached.text, { status: cached.status, headers: h });
    }
    if (held === undefined) {
      this.violations.push(`a refresh sent an unknown refresh token ${JSON.stringify(token.slice(0, 12))}`);
      return this.#error(401, 'invalid_refresh_token', 'Invalid or expired refresh token');
    }
    if (held.status === 'rotated' && held.rotationSeen) this.violations.push(`a refresh spent ${token.slice(0, 8)} again, whose rotation had reached the worker`);
    else if (held.status === 'rotated') this.violations.push(`a refresh spent ${token.slice(0, 8)} again, rotated with its answer lost, without that rotation's key (key ${key})`);
    // The retry of a grant whose answer was lost, with its key, at a login or logout over it: it finds out whether a rotation happened.
    else if (held.lostKeys.has(key)) this.log.push(`  server: the retry of a lost grant of ${token.slice(0, 6)}`);
    else if (held.status === 'revoked') this.violations.push(`a refresh sent ${token.slice(0, 8)}, revoked by a logout`);
    else if (held.status === 'killed' && held.lastOutcome === 'reset') this.violations.push(`a refresh sent ${token.slice(0, 8)}, revoked by a password reset whose pair replaced it`);
    else if (held.status === 'killed' && held.lastOutcome === 'refused-delivered') this.violations.push(`a refresh sent ${token.slice(0, 8)} again after its refusal reached the worker`);
    if (held.inFlight > 0) this.violations.push(`two refreshes of ${token.slice(0, 8)} at once (one expiry, two grants)`);
    held.inFlight++;
    try {
      await new Promise((resolve) => setTimeout(resolve, Math.floor(this.r() * 4)));
      const fault = this.#fault();
      if (fault === 'lostBefore' || fault === 'lostAfter' || fault === 'r500') held.lostKeys.add(key);
      if (fault === 'lostBefore') throw new TypeError('Failed to fetch');
      if (fault === 'r429') {
        const text = JSON.stringify({ error: { code: 'rate_limit_exceeded', message: 'Too many requests. Please retry later.' } });
        if (key !== null) this.keys.set(key, { fingerprint, status: 429, text, rotated: '' });
        held.lastOutcome = '429';
        return this.#error(429, 'rate_limit_exceeded', 'Too many requests. Please retry later.', { 'Retry-After': '60', 'X-RateLimit-Limit': '10', 'X-RateLimit-Remaining': '0' });
      }
      if (fault === 'r500') {
        held.lastOutcome = '500';
        return new Response('<html>500</html>', { status: 500, headers: this.#headers() });
      }
      if (held.status !== 'live' || held.expAt <= this.serverNow() || fault === 'refuse') {
        if (held.status === 'live') held.status = 'killed';
        held.lastOutcome = 'refused-delivered';
        this.onRefused(held.user);
        return this.#error(401, 'invalid_refresh_token', 'Invalid or expired refresh token');
      }
      const pair = this.#pair(held.user);
      held.status = 'rotated';
      if (key !== null) this.keys.set(key, { fingerprint, status: 200, text: pair.text, rotated: token });
      if (fault === 'lostAfter') {
        held.lastOutcome = 'lost';
        this.log.push(`  server: rotation of ${token.slice(0, 6)} → ${pair.refresh.slice(0, 6)}, answer lost`);
        throw new TypeError('Failed to fetch');
      }
      held.rotationSeen = true;
      this.refresh.get(pair.refresh)!.delivered = true;
      held.lastOutcome = 'ok';
      this.log.push(`  server: rotated ${token.slice(0, 6)} → ${pair.refresh.slice(0, 6)}`);
      return this.#json(JSON.parse(pair.text));
    } finally {
      held.inFlight--;
    }
  }

  readonly lostRevocations = new Set<string>();
  readonly resetTokens = new Map<string, string>();
  #logout(json: Record<string, unknown>): Response {
    const fault = this.#fault();
    const token = typeof json['refresh_token'] === 'string' ? json['refresh_token'] : '';
    if (fault === 'lostBefore' || fault === 'r429' || fault === 'r500') {
      this.lostRevocations.add(token);
      this.log.push(`  server: logout ${token.slice(0, 6)} ${fault}`);
      if (fault === 'lostBefore') throw new TypeError('Failed to fetch');
      return fault === 'r429' ? this.#error(429, 'rate_limit_exceeded', 'Too many requests. Please retry later.', { 'Retry-After': '60' }) : new Response('oops', { status: 500, headers: this.#headers() });
    }
    const held = this.refresh.get(token);
    this.log.push(`  server: logout ${token.slice(0, 6)} (${held?.status})`);
    if (held !== undefined && held.status === 'live') held.status = 'revoked';
    if (fault === 'lostAfter') throw new TypeError('Failed to fetch');
    return new Response(null, { status: 204, headers: this.#headers() });
  }
}

const epoch = { n: 0 };

async function runSeed(seed: number, steps: number): Promise<{ trace: string[]; problems: string[] }> {
  const r = rng(seed);
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const base = `https://api${seed}.shop.example`;
  const skews = [0, 800, -800, 7_000, -7_000, 95_000, -95_000, 3 * 3_600_000, -3 * 3_600_000, 2 * 86_400_000, -2 * 86_400_000];
  let t = T0 + Math.floor(r() * 86_400_000);
  const dateHeader = r() < 0.85;
  const skew = dateHeader ? pick(skews) + Math.floor(r() * 1000) : 0;
  const now = (): number => t;
  const server = new StoreApi(r, () => t + skew);
  server.dateHeader = dateHeader;
  server.lifetimeS = pick([60, 300, 900, 3600]);
  const twoWorkers = r() < 0.75;
  const trace: string[] = [`seed ${seed}: skew ${skew} ms, Date ${dateHeader}, JWT ${server.lifetimeS} s, ${twoWorkers ? 'two workers' : 'one worker'}`];
  const problems: string[] = [];
  const fail = (what: string): void => void problems.push(what);
  server.log.push = (...lines: string[]) => (trace.push(...lines), lines.length);

  const storage: CredentialStorage = memoryStorage(NO_CREDENTIALS);
  const announced: { worker: number; a: Announcement }[] = [];
  const work: Promise<unknown>[] = [];
  const keepAlive: KeepAlive = (p) => void work.push(p);
  const make = (i: number): AuthWorker => {
    const w = new AuthWorker(resolveOptions({ baseUrl: base, preset: 'spree-v3', publishableKey: PK }, `https://shop${seed}.example/storefront-auth-sw.js`), {
      fetch: (input, init) => server.handle(new Request(input, init)),
      now,
      storage,
      toPages: (a) => {
        announced.push({ worker: i, a });
        trace.push(`    w${i} tells ${a.type} ${JSON.stringify(a.state)}${a.warning ? ` warning ${a.warning.code}` : ''}`);
      },
      log: undefined,
    });
    w.preload();
    return w;
  };
  const workers = twoWorkers ? [make(0), make(1)] : [make(0)];
  const quiesce = async (): Promise<void> => {
    for (let seen = -1; seen < work.length; ) {
      seen = work.length;
      await Promise.allSettled(work);
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
  };

  // The model: who is signed in, which cart is held.
  const model: { user: string | null; cart: Cart | null } = { user: null, cart: null };
  server.onRefused = (user) => {
    if (model.user !== null && USERS[model.user]!.id === user) refusedThisStep = true;
  };
  let refusedThisStep = false;
  let faultThisStep = false;
  let consumedSeen = 0;
  const faulted = (): boolean => faultThisStep || server.consumed > consumedSeen || server.next !== null;
  let probeN = 0;
  let pageUser = 'alice';
  let resetToken = '';

  const pageSees = async (label: string, response: Response | null): Promise<number | 'error' | null> => {
    if (response === null) return null;
    const text = await response.text();
    for (const secret of server.secrets) {
      if (text.includes(secret) || text.includes(JSON.stringify(secret).slice(1, -1))) fail(`${label}: the page read a real token in the body`);
      for (const [name, value] of response.headers) if (value.includes(secret)) fail(`${label}: the page read a real token in ${name}`);
    }
    return response.status;
  };

  const page = async (i: number, what: 'catalogue' | 'account' | 'cartList' | 'cart' | 'cartItem' | 'cartCreate' | 'pageLogin' | 'pageRefresh' | 'pageLogout' | 'pageRegister' | 'pageReset', style: 'none' | 'placeholders', expiredOk: boolean): Promise<number | 'error' | null> => {
    const n = ++probeN;
    const probe: Probe = { n, what: what === 'cartList' ? 'account' : what, user: model.user, cart: model.cart, expiredOk };
    server.probes.set(String(n), probe);
    const headers: Record<string, string> = { 'X-Spree-Api-Key': PK, 'X-Probe': String(n), 'Content-Type': 'application/json' };
    if (style === 'placeholders') {
      if (model.user !== null && what !== 'catalogue') headers['Authorization'] = 'Bearer sealed:access';
      if (model.cart !== null && (what === 'cart' || what === 'cartItem')) headers['x-spree-token'] = 'sealed:cart';
    }
    const cartId = model.cart?.id ?? 'cart_none';
    const [method, path, body] =
      what === 'catalogue' ? ['GET', '/products', null]
      : what === 'account' ? ['GET', '/customers/me', null]
      : what === 'cartList' ? ['GET', '/carts', null]
      : what === 'cart' ? ['GET', `/carts/${cartId}`, null]
      : what === 'cartItem' ? ['POST', `/carts/${cartId}/items`, JSON.stringify({ variant_id: 'variant_1', quantity: 1 })]
      : what === 'pageLogin' ? ['POST', '/auth/login', JSON.stringify({ email: pageUser, password: USERS[pageUser]!.password })]
      : what === 'pageRefresh' ? ['POST', '/auth/refresh', JSON.stringify({ refresh_token: 'sealed:refresh' })]
      : what === 'pageLogout' ? ['POST', '/auth/logout', JSON.stringify({ refresh_token: 'sealed:refresh' })]
      : what === 'pageRegister' ? ['POST', '/customers', JSON.stringify({ email: pageUser, password: 'Pw"\\/+1', password_confirmation: 'Pw"\\/+1', first_name: 'N' })]
      : what === 'pageReset' ? ['PATCH', `/password_resets/${encodeURIComponent(resetToken)}`, JSON.stringify({ password: 'Pw"\\/+1', password_confirmation: 'Pw"\\/+1' })]
      : ['POST', '/carts', null];
    const request = new Request(`${base}${STORE}${path}`, { method, headers, body });
    const url = new URL(request.url);
    const w = workers[i]!;
    const decision = w.requests.match(request, url);
    trace.push(`w${i} page ${method} ${path} (${style}) probe ${n}${decision === null ? ' → network' : ''}`);
    if (decision === null) {
      // Left to the browser: what the page sent is what goes.
      return pageSees(`probe ${n}`, await server.handle(request));
    }
    try {
      const response = await w.requests.handle(request, url, decision === true ? undefined : decision, keepAlive);
      const status = await pageSees(`probe ${n} ${what}`, response);
      trace.push(`  probe ${n} → ${status}`);
      return status;
    } catch (error) {
      trace.push(`  probe ${n} failed: ${(error as Error).message}`);
      return 'error';
    }
  };

  const stateCheck = async (label: string): Promise<void> => {
    const held = await storage.read();
    if (held.session !== null) {
      const rt = server.refresh.get(held.session.refreshToken);
      if (rt === undefined) fail(`${label}: storage holds a refresh token the server never issued`);
      else if (rt.status === 'revoked') fail(`${label}: the refresh token still held was revoked by a logout`);
      else if (rt.status === 'rotated' && rt.rotationSeen) fail(`${label}: storage holds a refresh token whose rotation reached the worker`);
      const jwt = server.jwts.get(held.session.accessToken);
      if (jwt === undefined) fail(`${label}: storage holds an access token the server never issued`);
      else if (model.user !== null && jwt.user !== USERS[model.user]!.id) fail(`${label}: storage holds ${userById(jwt.user)}'s pair, the model ${model.user}`);
      if (model.user === null) fail(`${label}: storage holds a session, the model none`);
      // The expiry on the device's clock: the JWT's exp less the skew (Date read), within 2 s.
      if (jwt !== undefined && dateHeader && Math.abs(held.session.expiresAt - (jwt.exp * 1000 - skew)) > 2_000) fail(`${label}: expiresAt ${held.session.expiresAt - t} ms from now, the JWT's exp on the device's clock ${jwt.exp * 1000 - skew - t}`);
    } else if (model.user !== null) fail(`${label}: the model has ${model.user} signed in, storage nothing`);
    if ((held.cart?.id ?? null) !== (model.cart?.id ?? null)) fail(`${label}: storage holds cart ${held.cart?.id ?? 'none'}, the model ${model.cart?.id ?? 'none'}`);
    else if (held.cart !== null && held.cart.token !== model.cart!.token) fail(`${label}: storage holds the wrong token for ${held.cart.id}`);
    // The last announcement says what storage holds.
    const last = announced.at(-1);
    if (last !== undefined) {
      const s = last.a.state;
      if (s.signedIn !== (held.session !== null)) fail(`${label}: the last announcement (w${last.worker} ${last.a.type}) says signedIn ${s.signedIn}, storage ${held.session !== null}`);
      if ((s.cart?.number ?? null) !== (held.cart?.number ?? null)) fail(`${label}: the last announcement says cart ${s.cart?.number}, storage ${held.cart?.number}`);
      if (held.session !== null && s.accessTokenExpiresAt !== held.session.expiresAt) fail(`${label}: the last announcement (w${last.worker} ${last.a.type}) says expiry ${s.accessTokenExpiresAt === null ? null : s.accessTokenExpiresAt - t}, storage ${held.session.expiresAt - t}`);
    }
    for (const [k, w] of workers.entries()) {
      const got = await w.actions.getState();
      if (got.state.signedIn !== (held.session !== null) || (got.state.cart?.number ?? null) !== (held.cart?.number ?? null)) fail(`${label}: w${k}.getState() says ${JSON.stringify(got.state)}, storage signedIn ${held.session !== null} cart ${held.cart?.number}`);
    }
  };

  try {
    for (let step = 0; step < steps; step++) {
      const roll = r();
      const i = Math.floor(r() * workers.length);
      const w = workers[i]!;
      refusedThisStep = false;
      const pendingFault = server.next !== null;
      faultThisStep = pendingFault || (server.consumed > consumedSeen);
      consumedSeen = server.consumed;
      const before = await storage.read();
      const backoffBefore = before.backoff !== null && before.backoff.until > t;
      const label = `seed ${seed} step ${step}`;
      trace.push(`-- step ${step}`);
      if (roll < 0.1) {
        const user = pick(['alice', 'bob']);
        const wrong = r() < 0.1;
        trace.push(`w${i} login ${user}${wrong ? ' (wrong password)' : ''}`);
        // A cart held by a guest that no shopper owns at the server (one kept after a sessionexpired is the ended sign-in's: its association is refused, 404).
        const wasGuestCart = model.user === null && model.cart !== null && model.cart.owner === null ? model.cart : null;
        try {
          const result = await w.actions.login(user, wrong ? 'nope' : USERS[user]!.password, keepAlive, AbortSignal.timeout(9_000));
          if (wrong) fail(`${label}: a wrong password signed in`);
          model.user = user;
          if (!result.state.signedIn) fail(`${label}: login resolved with signedIn false`);
          await quiesce();
          if (wasGuestCart !== null && model.cart?.id === wasGuestCart.id && !faulted()) {
            const owner = server.carts.get(wasGuestCart.id)!.owner;
            if (owner !== USERS[user]!.id) fail(`${label}: the guest cart ${wasGuestCart.id} was not associated with ${user} (owner ${owner === null ? 'none' : userById(owner)})`);
          }
        } catch (error) {
          trace.push(`  login failed: ${(error as { code?: string }).code} ${(error as Error).message.slice(0, 80)}`);
          if (!wrong && server.next === null && !faulted()) fail(`${label}: login failed without a fault: ${(error as Error).message}`);
        }
      } else if (roll < 0.17) {
        trace.push(`w${i} logout`);
        const held = before.session?.refreshToken ?? null;
        await w.actions.logout(keepAlive);
        model.user = null;
        model.cart = null;
        await quiesce();
        if (held !== null && !faulted()) {
          const rt = server.refresh.get(held);
          if (rt !== undefined && rt.status === 'live') fail(`${label}: logout left the refresh token it forgot live at the server`);
        }
        // Every pair issued and not held is dead, unless its answer was lost.
        for (const [token, rt] of server.refresh) if (rt.status === 'live' && rt.delivered && !faulted() && !server.lostRevocations.has(token)) fail(`${label}: after logout, a delivered refresh token ${token.slice(0, 6)} of ${userById(rt.user)} is still live`);
      } else if (roll < 0.25) {
        trace.push(`w${i} createCart`);
        const signedIn = model.user;
        try {
          const result = await w.actions.createCart(AbortSignal.timeout(9_000), keepAlive);
          const number = result.state.cart?.number ?? null;
          const cart = [...server.carts.values()].find((c) => c.number === number) ?? null;
          if (cart === null) fail(`${label}: createCart resolved with cart ${number}, which the server never made`);
          else {
            model.cart = cart;
            if (refusedThisStep) model.user = null;
            if (signedIn !== null && !refusedThisStep && cart.owner !== USERS[signedIn]!.id && server.lastCreateWhy !== 'secret rotated') fail(`${label}: a signed-in createCart made a cart owned by ${cart.owner === null ? 'a guest' : userById(cart.owner)}`);
            if (signedIn === null && cart.owner !== null) fail(`${label}: a guest's createCart made ${userById(cart.owner)}'s cart`);
          }
        } catch (error) {
          trace.push(`  createCart failed: ${(error as Error).message.slice(0, 100)}`);
          if (!faulted() && !backoffBefore) fail(`${label}: createCart failed without a fault: ${(error as Error).message}`);
        }
      } else if (roll < 0.62 && roll >= 0.55) {
        // A page's own token call, alone.
        const what = model.user === null ? pick(['pageLogin', 'pageLogin', 'pageRegister', 'pageReset'] as const) : pick(['pageLogin', 'pageRefresh', 'pageRefresh', 'pageLogout', 'pageRegister', 'pageReset'] as const);
        pageUser = what === 'pageRegister' ? `u${seed}x${step}@example.com` : pick(['alice', 'bob']);
        if (what === 'pageReset') {
          resetToken = `rst${step}-${seed}_Zq~`;
          server.resetTokens.set(resetToken, pageUser);
        }
        const wasGuestCart = model.user === null && model.cart !== null && model.cart.owner === null ? model.cart : null;
        const heldBefore = before.session?.refreshToken ?? null;
        const grantsBefore = server.grants;
        const status = await page(i, what, 'none', true);
        await quiesce();
        if ((what === 'pageLogin' && status === 200) || (what === 'pageRegister' && status === 201) || (what === 'pageReset' && status === 200)) {
          model.user = pageUser;
          if (wasGuestCart !== null && !faulted()) {
            const owner = server.carts.get(wasGuestCart.id)!.owner;
            if (owner !== USERS[pageUser]!.id) fail(`${label}: after a page's own ${what} the guest cart ${wasGuestCart.id} was not associated with ${pageUser}`);
          }
        }
        if (what === 'pageRefresh') {
          if (refusedThisStep) model.user = null;
          if (server.grants - grantsBefore > 1 && !faulted()) fail(`${label}: a page's sealed refresh caused ${server.grants - grantsBefore} grants`);
          if (status !== 200 && !faulted() && !refusedThisStep && !backoffBefore) fail(`${label}: a page's sealed refresh answered ${status} with no fault`);
        }
        if (what === 'pageLogout') {
          model.user = null;
          model.cart = null;
          if (heldBefore !== null && !faulted() && server.refresh.get(heldBefore)?.status === 'live') fail(`${label}: a page's sealed logout left the held refresh token live`);
        }
      } else if (roll < 0.55) {
        // One to three page requests at once, from any worker.
        const kinds = ['catalogue', 'account', 'cartList', 'cart', 'cartItem', 'cartItem', 'cart', 'account', 'cartCreate'] as const;
        const count = 1 + Math.floor(r() * 3);
        const runs: Promise<unknown>[] = [];
        const grantsBefore = server.grants;
        const expiredOk = backoffBefore || faultThisStep;
        for (let k = 0; k < count; k++) {
          let what = pick(kinds);
          if ((what === 'cart' || what === 'cartItem') && model.cart === null) what = 'catalogue';
          if (what === 'cartCreate' && count > 1) what = 'account';
          const wi = Math.floor(r() * workers.length);
          const style = r() < 0.5 ? 'none' : 'placeholders';
          const cartBefore = model.cart;
          runs.push(
            page(wi, what, style, expiredOk).then(async (status) => {
              if (what === 'cartCreate' && status === 201) {
                const held = await storage.read();
                const cart = held.cart?.id === undefined ? null : server.carts.get(held.cart.id) ?? null;
                if (cart !== null && cart !== cartBefore) model.cart = cart;
                if (cart !== null && model.user !== null && !refusedThisStep && cart.owner !== USERS[model.user]!.id && server.lastCreateWhy !== 'secret rotated') fail(`${label}: a signed-in page's cart creation made a cart owned by ${cart.owner === null ? 'a guest' : userById(cart.owner)}`);
              }
              if (what === 'account' && model.user !== null && status !== 200 && !faulted() && !backoffBefore && !refusedThisStep && before.session?.confirmed !== false) fail(`${label}: a signed-in account request answered ${status} with no fault`);
              if ((what === 'cart' || what === 'cartItem') && typeof status === 'number' && status === 403 && !faulted()) fail(`${label}: a cart request answered 403`);
            }),
          );
        }
        // Now and then a worker restarts while those are in flight (the browser stopped it and a new
        // one starts over the same storage), and the new one serves a request at once.
        if (twoWorkers && r() < 0.2) {
          const k = Math.floor(r() * workers.length);
          trace.push(`w${k} restarted mid-flight`);
          workers[k] = make(k);
          const what = pick(['account', 'cartList', 'catalogue'] as const);
          runs.push(page(k, what, r() < 0.5 ? 'none' : 'placeholders', expiredOk));
        }
        await Promise.all(runs);
        await quiesce();
        if (refusedThisStep) {
          model.user = null;
        } else problems.push(...server.unlessRefused.map((v) => `${label}: ${v}`));
        server.unlessRefused = [];
        const grants = server.grants - grantsBefore;
        if (grants > 1 && !faulted()) fail(`${label}: ${grants} refresh grants for ${count} requests with no fault`);
      } else if (roll < 0.7) {
        const jump = pick([1_000, 20_000, server.lifetimeS * 1000 - 40_000, server.lifetimeS * 1000, server.lifetimeS * 1000 + 90_000, 2 * 3_600_000, 31 * 86_400_000]);
        t += Math.max(0, jump) + Math.floor(r() * 5_000);
        trace.push(`clock +${jump} ms`);
        continue;
      } else if (roll < 0.76) {
        trace.push('server: rotates its JWT secret (every JWT issued answers 401)');
        server.jwtEpoch++;
        continue;
      } else if (roll < 0.86) {
        const f = pick(['r429', 'lostBefore', 'lostAfter', 'r500', 'refuse'] as const);
        trace.push(`server: next auth answer ${f}`);
        server.next = f;
        faultThisStep = true;
        continue;
      } else if (roll < 0.93 && twoWorkers) {
        await quiesce();
        trace.push(`w${i} restarted`);
        workers[i] = make(i);
        await new Promise((resolve) => setTimeout(resolve, 2));
      } else {
        trace.push(`w${i} getState`);
      }
      await quiesce();
      // A refused refresh (a 31-day jump kills the refresh token) forgets the pair.
      if (refusedThisStep && (await storage.read()).session === null) model.user = null;
      problems.push(...server.unlessRefused.map((v) => `${label}: ${v}`));
      server.unlessRefused = [];
      await stateCheck(label);
    }
    await quiesce();
  } catch (error) {
    fail(`seed ${seed}: threw ${(error as Error).stack}`);
  }
  problems.push(...server.violations.map((v) => `seed ${seed}: ${v}`));
  return { trace, problems: problems.map((p) => (p.startsWith('seed') ? p : `seed ${seed}: ${p}`)) };
}

describe('spree-v3 sessions through random sequences, against a fake Store API', () => {
  let ticking: ReturnType<typeof setInterval>;
  before(() => {
    ticking = setInterval(() => void epoch.n++, 1);
    ticking.unref();
    installFakeLocks();
    unrefChannels();
  });
  after(() => removeFakeLocks());

  const only = process.env['SEED'];
  const seeds = only !== undefined ? [Number(only)] : Array.from({ length: Number(process.env['SEEDS'] ?? 10) }, (_, k) => Number(process.env['SEED_BASE'] ?? 1) + k);
  for (const seed of seeds) {
    it(`seed ${seed}`, async () => {
      const { trace, problems } = await runSeed(seed, Number(process.env['STEPS'] ?? 60));
      if (only !== undefined) console.log(trace.join('\n'));
      if (problems.length > 0 && process.env['DUMP'] !== undefined) writeFileSync(`${process.env['DUMP']}/seed-${seed}.txt`, `${problems.join('\n')}\n\n${trace.join('\n')}`);
      assert.deepEqual(problems.slice(0, 8), [], `seed ${seed}:\n${trace.slice(-80).join('\n')}`);
    });
  }
});
