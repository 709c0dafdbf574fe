// Offline cart writes, driven through seeded random interleavings (src/sw/offlineWrites.ts and what it
// wires): two workers over one storage, a fake v2 server that records every cart write it applies and
// as whom, the network going and coming, logins, logouts, refreshes (due, after a 401, refused), cart
// creations, answers lost before or after the server applied them, 409/429/5xx with Retry-After, a
// worker restarted over a write a stopped worker had marked. The oracle, at the server and in the
// pages' events: each add applied at most once, to the cart it was made on, by the shopper who made
// it, in the order made; every queued write settled exactly once, `applied` only when applied; no
// credential stored with a write. SEEDS=n (default 40) and SEED=s (one seed, with its trace) vary it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Announcement } from '../src/shared/protocol.js';
import { AuthWorker } from '../src/sw/authWorker.js';
import { memoryStorage, NO_CREDENTIALS } from '../src/sw/credentialStorage.js';
import { resolveOptions } from '../src/sw/options.js';
import type { KeepAlive } from '../src/sw/requestPath.js';
import { memoryWrites, type WriteStorage } from '../src/sw/writeStore.js';
import { installFakeLocks, removeFakeLocks, storeApiJwt, unrefChannels } from './fakes.js';
import { prng as rng } from './random.js';

type Kind = 'add' | 'set' | 'remove';
interface Made {
  m: number;
  kind: Kind;
  /** Identities the shopper may have had while the write was made: `cart|lineage` (lineage '-' for a guest). */
  who: Set<string>;
  queuedId: string | null;
  status: number | 'error' | null;
  lostAfterApply: boolean;
  worker: number;
  answeredAt: number;
  /** The macrotask epoch when it was made and answered: another worker hears of a queued write by a message, a task later. */
  madeEpoch: number;
  answeredEpoch: number;
}

interface Lineage {
  user: string;
  live: boolean;
  loggedOut: boolean;
}

class Server {
  readonly carts = new Map<string, { number: string; owner: string | null }>();
  readonly userCart = new Map<string, string>();
  readonly access = new Map<string, { lineage: number; live: boolean }>();
  readonly refresh = new Map<string, { lineage: number; live: boolean }>();
  readonly lineages = new Map<number, Lineage>();
  readonly applied: { m: number; kind: Kind; cart: string; actor: string; seq: number }[] = [];
  readonly violations: string[] = [];
  online = true;
  next: null | { kind: 'lostBefore' } | { kind: 'lostAfter' } | { kind: 'status'; status: number; retryAfter: string | null } = null;
  refuseRefresh = false;
  #n = 0;
  #seq = 0;
  lastLineage = 0;
  onRefused: (lineage: number) => void = () => {};
  log: (line: string) => void = () => {};
  readonly afterLogout: { m: number; lineage: number }[] = [];
  /** Writes whose answer was lost after the server applied them. */
  readonly lostAnswers = new Set<number>();
  readonly keyless = new Set<number>();
  lost(m: number): TypeError {
    this.lostAnswers.add(m);
    return new TypeError('Failed to fetch');
  }
  /** Spree's Idempotent concern: key → the answer first rendered (below 500), for its method, path and body. */
  readonly keys = new Map<string, { status: number; fingerprint: string }>();
  readonly cartIds = new Map<string, string>();
  clock: () => number = Date.now;
  constructor(readonly r: () => number, readonly base: string, readonly v3 = false) {}

  #jwt(lineage: number): string {
    const exp = Math.floor(this.clock() / 1000) + 3600;
    return storeApiJwt(exp, JSON.stringify({ user_id: lineage, user_type: 'customer', jti: `j${++this.#n}`, iss: 'spree', aud: 'store_api', exp }));
  }

  #v3Pair(lineage: number): Response {
    const access = this.#jwt(lineage);
    const refresh = this.#token('R');
    this.access.set(access, { lineage, live: true });
    this.refresh.set(refresh, { lineage, live: true });
    return Response.json({ token: access, refresh_token: refresh, user: { id: String(lineage), email: `${this.lineages.get(lineage)!.user}@example.com` } });
  }

  #v3Cart(token: string, status = 200): Response {
    const cart = this.carts.get(token)!;
    return Response.json({ id: this.cartIds.get(token), number: cart.number, token }, { status });
  }

  cartIdOf(number: string): string | undefined {
    for (const [token, cart] of this.carts) if (cart.number === number) return this.cartIds.get(token);
    return undefined;
  }

  async handleV3(request: Request, path: string, body: string): Promise<Response> {
    const route = `${request.method} ${path}`;
    const json = body === '' ? {} : JSON.parse(body);
    if (route === 'POST /api/v3/store/auth/login') {
      const lineage = ++this.#n;
      this.lineages.set(lineage, { user: json.email, live: true, loggedOut: false });
      this.lastLineage = lineage;
      return this.#v3Pair(lineage);
    }
    if (route === 'POST /api/v3/store/auth/refresh') {
      const held = this.refresh.get(json.refresh_token);
      if (this.refuseRefresh || held === undefined || !held.live) {
        if (held) this.killLineage(held.lineage);
        if (held) this.onRefused(held.lineage);
        this.refuseRefresh = false;
        return Response.json({ error: { code: 'invalid_refresh_token', message: 'Invalid or expired refresh token' } }, { status: 401 });
      }
      held.live = false;
      return this.#v3Pair(held.lineage);
    }
    if (route === 'POST /api/v3/store/auth/logout') {
      const held = this.refresh.get(json.refresh_token);
      if (held) this.killLineage(held.lineage);
      return new Response(null, { status: 204 });
    }
    const bearer = request.headers.get('Authorization')?.replace(/^Bearer /, '') ?? null;
    const cartToken = request.headers.get('x-spree-token');
    let lineage: number | null = null;
    if (bearer !== null) {
      const a = this.access.get(bearer);
      const exp = JSON.parse(Buffer.from(bearer.split('.')[1] ?? '', 'base64url').toString() || '{}').exp ?? 0;
      if (!a?.live || exp * 1000 <= this.clock()) return Response.json({ error: { code: 'invalid_token', message: 'x' } }, { status: 401 });
      lineage = a.lineage;
    }
    const user = lineage === null ? null : this.lineages.get(lineage)!.user;
    if (route === 'POST /api/v3/store/carts') {
      const token = this.newCart(user);
      this.cartIds.set(token, `cart_${this.carts.size}`);
      return this.#v3Cart(token, 201);
    }
    const m1 = /^\/api\/v3\/store\/carts\/([^/]+)(\/.*)?$/.exec(path);
    if (m1 === null) return new Response(null, { status: 599 });
    const token = [...this.cartIds].find(([, id]) => id === m1[1])?.[0];
    const cart = token === undefined ? undefined : this.carts.get(token);
    if (token === undefined || cart === undefined) return Response.json({ error: 'not found' }, { status: 404 });
    const mayOpen = (user !== null && cart.owner === user) || cartToken === token;
    if (m1[2] === '/associate' && request.method === 'PATCH') {
      if (user === null || cartToken !== token) return Response.json({ error: 'x' }, { status: 403 });
      cart.owner = user;
      this.userCart.set(user, cart.number);
      return this.#v3Cart(token);
    }
    const write = /^\/items(?:\/(\d+))?$/.exec(m1[2] ?? '');
    if (write === null) return new Response(null, { status: 599 });
    const kind: Kind = request.method === 'POST' ? 'add' : request.method === 'PATCH' ? 'set' : 'remove';
    const m = kind === 'remove' ? Number(write[1]) : json.m;
    const next = this.next;
    this.next = null;
    if (next?.kind === 'lostBefore') throw new TypeError('Failed to fetch');
    const key = request.headers.get('Idempotency-Key');
    if (key === null) this.keyless.add(m);
    const fingerprint = `${request.method} ${path} ${body}`;
    const cached = key === null ? undefined : this.keys.get(key);
    if (cached !== undefined) {
      if (cached.fingerprint !== fingerprint) return Response.json({ error: 'idempotency_key_reused' }, { status: 422 });
      if (next?.kind === 'lostAfter') throw this.lost(m);
      return Response.json({ replayed: true }, { status: cached.status });
    }
    if (next?.kind === 'status') {
      // A rendered 409 (cart_already_updated) or 429 is kept under the key; a 5xx is not.
      if (key !== null && next.status < 500) this.keys.set(key, { status: next.status, fingerprint });
      return Response.json({ error: 'x' }, { status: next.status, headers: next.retryAfter === null ? {} : { 'Retry-After': next.retryAfter } });
    }
    if (!mayOpen) {
      this.log(`  server: ${kind} #${m} 404 (user ${user}, token ${cartToken === token})`);
      return Response.json({ error: 'not found' }, { status: 404 });
    }
    if (lineage !== null && this.lineages.get(lineage)!.loggedOut) this.afterLogout.push({ m, lineage });
    this.applied.push({ m, kind, cart: cart.number, actor: lineage === null ? '-' : String(lineage), seq: ++this.#seq });
    this.log(`  server: applied ${kind} #${m} to ${cart.number} as ${lineage ?? '-'}`);
    if (key !== null) this.keys.set(key, { status: 200, fingerprint });
    if (next?.kind === 'lostAfter') throw this.lost(m);
    return this.#v3Cart(token);
  }

  #token(prefix: string): string {
    const n = ++this.#n;
    const odd = ['/', '+', '\\', '"', '=', '.'];
    return `${prefix}${n}${odd[n % odd.length]}x${odd[(n * 7) % odd.length]}${Math.floor(this.r() * 1e6).toString(36)}`;
  }

  #pair(lineage: number) {
    const access = this.#token('a');
    const refresh = this.#token('R');
    this.access.set(access, { lineage, live: true });
    this.refresh.set(refresh, { lineage, live: true });
    return Response.json({ access_token: access, refresh_token: refresh, token_type: 'Bearer', expires_in: 3600, created_at: 0 });
  }

  #cartDoc(token: string) {
    const cart = this.carts.get(token)!;
    return Response.json({ data: { id: cart.number.slice(1), type: 'cart', attributes: { number: cart.number, token } } });
  }

  newCart(owner: string | null): string {
    const token = this.#token('c');
    const number = `R${100 + this.carts.size}`;
    this.carts.set(token, { number, owner });
    if (owner !== null) this.userCart.set(owner, number);
    return token;
  }

  killLineage(lineage: number): void {
    for (const t of [...this.access.values(), ...this.refresh.values()]) if (t.lineage === lineage) t.live = false;
    const l = this.lineages.get(lineage);
    if (l) l.live = false;
  }

  async handle(request: Request): Promise<Response> {
    if (!this.online) throw new TypeError('Failed to fetch');
    const url = new URL(request.url);
    const path = url.pathname.slice(new URL(this.base).pathname.length);
    const route = `${request.method} ${path}`;
    const body = request.method === 'GET' || request.method === 'HEAD' ? '' : await request.text();
    if (request.method === 'HEAD' && url.pathname === '/') return new Response(null);
    if (route === 'HEAD /') return new Response(null);
    if (this.v3) return this.handleV3(request, path, body);
    if (route === 'POST /store_oauth/token') {
      const form = body.startsWith('{') ? JSON.parse(body) : Object.fromEntries(new URLSearchParams(body));
      if (form.grant_type === 'password') {
        const lineage = ++this.#n;
        this.lineages.set(lineage, { user: form.username, live: true, loggedOut: false });
        this.lastLineage = lineage;
        return this.#pair(lineage);
      }
      const held = this.refresh.get(form.refresh_token);
      if (this.refuseRefresh || held === undefined || !held.live) {
        if (held) this.killLineage(held.lineage);
        if (held) this.onRefused(held.lineage);
        this.refuseRefresh = false;
        return Response.json({ error: 'invalid_grant' }, { status: 400 });
      }
      held.live = false;
      return this.#pair(held.lineage);
    }
    const bearer = request.headers.get('Authorization')?.replace(/^Bearer /, '') ?? null;
    const orderToken = request.headers.get('X-Store-Order-Token');
    if (route === 'POST /api/v2/storefront/cart') {
      if (bearer !== null) {
        const a = this.access.get(bearer);
        if (!a?.live) return Response.json({ error: 'unauthorized' }, { status: 401 });
        return new Response((await this.#cartDoc(this.newCart(this.lineages.get(a.lineage)!.user)).text()), { status: 201, headers: { 'Content-Type': 'application/json' } });
      }
      return new Response((await this.#cartDoc(this.newCart(null)).text()), { status: 201, headers: { 'Content-Type': 'application/json' } });
    }
    if (route === 'PATCH /api/v2/storefront/cart/associate') {
      const a = bearer === null ? undefined : this.access.get(bearer);
      if (!a?.live) return Response.json({ error: 'unauthorized' }, { status: 401 });
      const token = url.searchParams.get('guest_order_token') ?? '';
      const cart = this.carts.get(token);
      if (cart === undefined) return Response.json({ error: 'not found' }, { status: 404 });
      const user = this.lineages.get(a.lineage)!.user;
      cart.owner = user;
      this.userCart.set(user, cart.number);
      return this.#cartDoc(token);
    }
    const write = /^\/api\/v2\/storefront\/cart\/(add_item|set_quantity|remove_line_item\/(\d+))$/.exec(path);
    if (write !== null) {
      const kind: Kind = write[1] === 'add_item' ? 'add' : write[1] === 'set_quantity' ? 'set' : 'remove';
      const m = kind === 'remove' ? Number(write[2]) : JSON.parse(body).m;
      const next = this.next;
      this.next = null;
      if (next?.kind === 'lostBefore') throw new TypeError('Failed to fetch');
      if (next?.kind === 'status') return Response.json({ error: 'x' }, { status: next.status, headers: next.retryAfter === null ? {} : { 'Retry-After': next.retryAfter } });
      let cart: string | undefined;
      let actor: string;
      if (bearer !== null) {
        const a = this.access.get(bearer);
        if (a === undefined) this.violations.push(`write ${m} sent with a bearer the server never issued`);
        if (!a?.live) return Response.json({ error: 'unauthorized' }, { status: 401 });
        const l = this.lineages.get(a.lineage)!;
        if (l.loggedOut) this.afterLogout.push({ m, lineage: a.lineage });
        cart = this.userCart.get(l.user);
        actor = String(a.lineage);
      } else {
        cart = orderToken === null ? undefined : this.carts.get(orderToken)?.number;
        actor = '-';
      }
      if (cart === undefined) {
        this.log(`  server: ${kind} #${m} 404 (bearer ${bearer !== null}, order token ${orderToken})`);
        return Response.json({ error: 'not found' }, { status: 404 });
      }
      this.applied.push({ m, kind, cart, actor, seq: ++this.#seq });
      this.log(`  server: applied ${kind} #${m} to ${cart} as ${actor}`);
      if (next?.kind === 'lostAfter') throw this.lost(m);
      return Response.json({ data: { id: '1', type: 'cart', attributes: { number: cart } } });
    }
    if (route === 'GET /api/v2/storefront/account') return Response.json({});
    return new Response(null, { status: 599 });
  }
}

interface Run {
  trace: string[];
  problems: string[];
}

const epoch = { n: 0 };
async function runSeed(seed: number, steps: number, v3: boolean): Promise<Run> {
  const r = rng(seed);
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const base = `https://shop${seed}.example/store`;
  const server = new Server(r, base, v3);
  const trace: string[] = [];
  const problems: string[] = [];
  let skew = 0;
  const now = () => Date.now() + skew;
  server.clock = now;
  const credentials = memoryStorage(NO_CREDENTIALS);
  const inner = memoryWrites();
  // Every write stored is checked for a credential.
  const storedWrites: string[] = [];
  const writes: WriteStorage = {
    ...inner,
    add: (w, max) => (storedWrites.push(JSON.stringify({ ...w, body: w.body === null ? null : new TextDecoder().decode(w.body) })), inner.add(w, max)),
    replace: (w) => (storedWrites.push(JSON.stringify({ ...w, body: w.body === null ? null : new TextDecoder().decode(w.body) })), inner.replace(w)),
  };
  const announced: Announcement[] = [];
  const logged: string[] = [];
  const work: Promise<unknown>[] = [];
  const keepAlive: KeepAlive = (p) => void work.push(p);
  const browserOnline = { value: true };
  const make = (i: number) => {
    const w = new AuthWorker(resolveOptions({ baseUrl: base, offlineWrites: true, ...(v3 ? { preset: 'spree-v3' as const, publishableKey: 'pk_test_fuzz' } : {}) }, 'https://shop.example/storefront-auth-sw.js'), {
      fetch: (input, init) => server.handle(new Request(input, init)),
      now,
      storage: credentials,
      toPages: (a) => {
        announced.push(a);
        if (process.env['SEED'] !== undefined) trace.push(`    w${i} tells ${a.type} pendingWrites ${a.state.pendingWrites}${a.write ? ` ${JSON.stringify(a.write).slice(0, 60)}` : ''}`);
      },
      log: (line: string) => {
        logged.push(line);
        if (process.env['SEED'] !== undefined) trace.push(`    w${i}: ${line}`);
      },
      writes,
      online: () => browserOnline.value,
      requestSync: () => {},
    });
    w.preload();
    w.writes?.start();
    void i;
    return w;
  };
  const workers = [make(0), make(1)];
  const made: Made[] = [];
  // The identity as the model has it: cart number (or null) and lineage (null for a guest).
  let model: { cart: string | null; lineage: number | null } = { cart: null, lineage: null };
  const inFlightWrites = new Set<Made>();
  // An identity action is concurrent with every write made after it started: those may be either's.
  // Another worker hears of a change by a message a task later: a write made there meanwhile may go as the one before.
  let previous = { who: '', epoch: -Infinity };
  const setModel = (next: typeof model, startedAt = tick) => {
    previous = { who: `${model.cart}|${model.lineage ?? '-'}`, epoch: epoch.n };
    model = next;
    for (const w of inFlightWrites) w.who.add(`${model.cart}|${model.lineage ?? '-'}`);
    for (const w of made) if (madeAt.get(w.m)! > startedAt) w.who.add(`${model.cart}|${model.lineage ?? '-'}`);
  };
  server.log = (line) => trace.push(line);
  server.onRefused = (lineage) => {
    if (model.lineage === lineage) setModel({ cart: model.cart, lineage: null });
  };
  const overSignIn = new Set<number>();
  const loggedOutAt = new Map<number, number>();
  let identityBusy: Promise<unknown> = Promise.resolve();
  const quiesce = async () => {
    for (let seen = -1; seen < work.length; ) {
      seen = work.length;
      await Promise.allSettled(work);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  };
  let m = 0;
  let tick = 0;
  const madeAt = new Map<number, number>();
  const pending: Promise<unknown>[] = [];
  const pageWrite = (i: number, kind: Kind) => {
    const id = ++m;
    madeAt.set(id, ++tick);
    const rec: Made = { m: id, kind, who: new Set([`${model.cart}|${model.lineage ?? '-'}`]), queuedId: null, status: null, lostAfterApply: false, worker: i, answeredAt: Infinity, madeEpoch: epoch.n, answeredEpoch: Infinity };
    if (epoch.n - previous.epoch < 3) rec.who.add(previous.who);
    made.push(rec);
    inFlightWrites.add(rec);
    const cartId = v3 ? server.cartIdOf(model.cart ?? '') ?? 'none' : '';
    const path = v3
      ? kind === 'add' ? `/api/v3/store/carts/${cartId}/items` : `/api/v3/store/carts/${cartId}/items/${id}`
      : kind === 'add' ? '/api/v2/storefront/cart/add_item' : kind === 'set' ? '/api/v2/storefront/cart/set_quantity' : `/api/v2/storefront/cart/remove_line_item/${id}`;
    const method = kind === 'add' ? 'POST' : kind === 'set' ? 'PATCH' : 'DELETE';
    const body = kind === 'remove' ? null : JSON.stringify({ m: id, variant_id: '2', quantity: 1 });
    const headers: Record<string, string> = { 'Content-Type': 'application/vnd.api+json' };
    if (r() < 0.3) headers[v3 ? 'x-spree-token' : 'X-Store-Order-Token'] = 'sealed:cart';
    if (v3) headers['X-Spree-Api-Key'] = 'pk_test_fuzz';
    if (v3 && r() < 0.3) headers['Idempotency-Key'] = `page-${seed}-${id}`;
    const request = new Request(`${base}${path}`, { method, headers, body });
    const url = new URL(request.url);
    const w = workers[i]!;
    trace.push(`  w${i} knows ${w.writes!.pending} pending; storage holds ${(inner as unknown as { n?: number }).n ?? '?'}`);
    const decision = w.requests.match(request, url);
    const p = (async () => {
      try {
        const response = await w.requests.handle(request, url, decision === true || decision === null ? undefined : decision, keepAlive);
        rec.status = response.status;
        if (response.status === 202) rec.queuedId = (await response.json()).id;
        else await response.text();
        trace.push(`  #${id} answered ${response.status}${rec.queuedId ? ` ${rec.queuedId.slice(0, 4)}` : ''}`);
      } catch {
        trace.push(`  #${id} failed`);
        rec.status = 'error';
      } finally {
        rec.answeredAt = ++tick;
        rec.answeredEpoch = epoch.n;
        inFlightWrites.delete(rec);
      }
    })();
    pending.push(p);
    trace.push(`w${i} ${kind} #${id}${headers['X-Store-Order-Token'] ? ' (sealed:cart header)' : ''} browser ${browserOnline.value ? 'online' : 'offline'}`);
    return p;
  };
  const identity = (label: string, f: (startedAt: number) => Promise<unknown>) => {
    const p = identityBusy.then(async () => {
      try {
        await f(tick);
      } catch (e) {
        trace.push(`  ${label} failed: ${(e as Error).message?.slice(0, 80)}`);
      }
    });
    identityBusy = p;
    pending.push(p);
    return p;
  };

  for (let step = 0; step < steps; step++) {
    const roll = r();
    const i = r() < 0.7 ? 0 : 1;
    const w = workers[i]!;
    if (roll < 0.3) {
      if (model.cart !== null) await maybe(pageWrite(i, pick(['add', 'add', 'set', 'remove'] as const)));
    } else if (roll < 0.38) {
      trace.push('offline');
      server.online = false;
      browserOnline.value = r() < 0.3;
    } else if (roll < 0.48) {
      trace.push(`online, w${i} told`);
      server.online = true;
      browserOnline.value = true;
      w.nudge(keepAlive, true);
    } else if (roll < 0.53) {
      const user = pick(['alice', 'bob']);
      trace.push(`w${i} login ${user}`);
      await maybe(identity('login', async (startedAt) => {
        const before = model;
        const wasGuest = before.lineage === null;
        await w.actions.login(user, 'pw"\\/+', keepAlive, AbortSignal.timeout(9_000));
        const lineage = server.lastLineage;
        if (wasGuest && before.cart !== null) takenBy.set(before.cart, lineage);
        // Known and left: a login over a signed-in shopper keeps the first shopper's cart, which v2's
        // bearer does not name; writes then land on the new shopper's own cart until a new cart or a logout.
        if (!wasGuest) overSignIn.add(lineage);
        setModel({ cart: before.cart, lineage }, startedAt);
      }));
    } else if (roll < 0.58) {
      trace.push(`w${i} logout`);
      await maybe(identity('logout', async () => {
        const ending = model.lineage;
        setModel({ cart: null, lineage: null });
        await w.actions.logout(keepAlive);
        if (ending !== null) server.lineages.get(ending)!.loggedOut = true;
        if (ending !== null) loggedOutAt.set(ending, ++tick);
      }));
    } else if (roll < 0.63) {
      trace.push(`w${i} createCart`);
      await maybe(identity('createCart', async (startedAt) => {
        const result = await w.actions.createCart(AbortSignal.timeout(9_000), keepAlive);
        const number = (result as { state?: { cart?: { number?: string } } }).state?.cart?.number ?? (await credentials.read()).cart?.number ?? null;
        setModel({ cart: number, lineage: model.lineage }, startedAt);
      }));
    } else if (roll < 0.67) {
      trace.push('server: bearer expires early');
      for (const a of server.access.values()) a.live = false;
    } else if (roll < 0.7) {
      trace.push('clock: bearer due');
      skew += 3_590_000;
    } else if (roll < 0.73) {
      trace.push('server: refuses next refresh');
      server.refuseRefresh = true;
    } else if (roll < 0.8) {
      const kind = pick(['lostBefore', 'lostAfter'] as const);
      trace.push(`server: next write ${kind}`);
      server.next = { kind };
    } else if (roll < 0.86) {
      const status = pick([409, 429, 503, 500, 422]);
      const retryAfter = pick([null, '1', '400', 'soon', new Date(now() + 3_000).toUTCString()]);
      trace.push(`server: next write ${status} Retry-After ${retryAfter}`);
      server.next = { kind: 'status', status, retryAfter };
    } else if (roll < 0.9) {
      trace.push('clock +6 min, nudge');
      skew += 360_000;
      w.nudge(keepAlive, false);
    } else if (roll < 0.93) {
      trace.push(`w${i} sync`);
      keepAlive(w.writes!.sync().catch(() => {}));
    } else if (roll < 0.96) {
      // A worker stopped while sending: its mark is left, maybe after the server applied the write.
      await quiesce();
      await Promise.allSettled(pending);
      const [head] = await inner.list();
      trace.push(`  queue: ${(await inner.list()).map((x) => `${x.seq}:${x.id.slice(0, 4)}:${x.attempts}:${x.notBefore > now() ? 'wait' : 'due'}${x.sending ? ':sending' : ''}`).join(' ')}`);
      if (head !== undefined) {
        const applied = r() < 0.5;
        trace.push(`w${i} stopped while sending queued ${head.id.slice(0, 4)} (server ${applied ? 'applied it' : 'never saw it'}); restarted`);
        await inner.replace({ ...head, sending: true });
        if (applied) {
          const rec = made.find((x) => x.queuedId === head.id);
          if (rec && !server.applied.some((a) => a.m === rec.m)) {
            const lineage = rec.who.values().next().value!.split('|')[1]!;
            server.applied.push({ m: rec.m, kind: rec.kind, cart: head.cart, actor: lineage, seq: 0 });
            if (head.key !== null) server.keys.set(head.key, { status: 200, fingerprint: `${head.method} ${new URL(head.url).pathname.slice(new URL(base).pathname.length)} ${head.body === null ? '' : new TextDecoder().decode(head.body)}` });
            rec.lostAfterApply = true;
          }
        }
        workers[i] = make(i);
      }
    } else {
      trace.push(`w${i} storefront request`);
      w.nudge(keepAlive, false);
    }
    if (r() < 0.3) await new Promise((resolve) => setTimeout(resolve, Math.floor(r() * 3)));
  }
  // Drain: the network back for good, everything answered, time passing until nothing waits.
  trace.push('drain');
  await Promise.allSettled(pending);
  server.online = true;
  browserOnline.value = true;
  server.next = null;
  server.refuseRefresh = false;
  for (let round = 0; round < 40; round++) {
    await quiesce();
    if ((await inner.list()).length === 0) break;
    skew += 360_000;
    for (const w of workers) w.nudge(keepAlive, true);
  }
  await quiesce();
  await new Promise((resolve) => setTimeout(resolve, 5));
  await quiesce();

  // The oracle.
  const left = await inner.list();
  if (left.length > 0) problems.push(`${left.length} writes left queued after the drain`);
  problems.push(...server.violations);
  // A page's own request that a second worker sends before it hears of the logout is the request path's; a queued write never.
  // A page's write to a cart its worker does not hold yet goes as without the queue, keyless; a queued write never.
  for (const sent of server.keyless) if (made.find((x) => x.m === sent)?.queuedId) problems.push(`queued write ${sent} sent without an Idempotency-Key`);
  // Sent after the logout, by a replay: queued (answered 202) before the logout had ended.
  for (const { m: sent, lineage } of server.afterLogout) if (made.find((x) => x.m === sent && x.queuedId !== null && x.answeredAt < (loggedOutAt.get(lineage) ?? Infinity))) problems.push(`queued write ${sent} sent with the bearer of lineage ${lineage} after its logout`);
  const settled = new Map<string, { outcome: string; status?: number }[]>();
  for (const a of announced) if (a.type === 'writesettled' && a.write) settled.set(a.write.id, [...(settled.get(a.write.id) ?? []), a.write as { id: string; outcome: string }]);
  for (const a of announced) if (JSON.stringify(a).match(/"(a|R|c)\d+[/+\\".=]x/)) problems.push(`an announcement holds a token: ${JSON.stringify(a).slice(0, 200)}`);
  for (const line of logged) if (/(a|R|c)\d+[/+\\".=]x|eyJ|variant_id|"m":/.test(line)) problems.push(`a log line holds a token or a body: ${line}`);
  for (const s of storedWrites) if (/"(a|R|c)\d+[/+\\".=]x/.test(s.replace(/\\\\/g, '\\').replace(/\\"/g, '"'))) problems.push(`a stored write holds a token: ${s.slice(0, 300)}`);
  const queuedTold = new Map<string, number>();
  for (const a of announced) if (a.type === 'writequeued' && a.write) queuedTold.set(a.write.id, (queuedTold.get(a.write.id) ?? 0) + 1);
  for (const rec of made) if (rec.queuedId !== null && queuedTold.get(rec.queuedId) !== 1) problems.push(`#${rec.m} answered 202 and told writequeued ${queuedTold.get(rec.queuedId) ?? 0} times`);
  for (const [id] of queuedTold) if (!made.some((x) => x.queuedId === id)) problems.push(`writequeued ${id} for no 202`);
  await new Promise((resolve) => setTimeout(resolve, 10));
  for (const [k, w] of workers.entries()) if (w.writes!.pending !== 0) problems.push(`w${k} says ${w.writes!.pending} writes wait after the drain`);
  const lastState = [...announced].reverse().find((a) => a.type === 'writesettled' || a.type === 'change');
  if (process.env['CHECK_LAST_STATE'] !== undefined && lastState !== undefined && lastState.state.pendingWrites !== 0 && made.some((x) => x.queuedId)) problems.push(`the last announcement says ${lastState.state.pendingWrites} writes wait`);
  for (const rec of made) {
    const apps = server.applied.filter((a) => a.m === rec.m);
    if ((rec.kind === 'add' || v3) && apps.length > 1) problems.push(`#${rec.m} ${rec.kind} applied ${apps.length} times`);
    if (rec.queuedId !== null) {
      const told = settled.get(rec.queuedId) ?? [];
      if (told.length !== 1) problems.push(`#${rec.m} (${rec.kind}, queued) settled ${told.length} times: ${JSON.stringify(told)}`);
      const outcome = told[0]?.outcome;
      if (outcome === 'applied' && apps.length === 0) problems.push(`#${rec.m} told applied, never applied`);
      // A stopped worker's mark has no answer to come: dropped or expired is all a worker can tell.
      if (apps.some((a) => a.seq > 0) && !server.lostAnswers.has(rec.m) && !rec.lostAfterApply && (outcome === 'dropped' || outcome === 'rejected') && (rec.kind === 'add' || v3)) problems.push(`#${rec.m} (${rec.kind}) applied but told ${outcome}`);
      for (const a of apps) {
        const ok = [...rec.who].some((who) => {
          const [cart, lineage] = who.split('|');
          if (a.cart !== cart && !(overSignIn.has(Number(lineage)) && !v3 && String(lineage) === a.actor)) return false;
          if (a.actor === lineage) return true;
          return lineage === '-' && takenBy.get(cart!) === Number(a.actor);
        });
        if (!ok) problems.push(`#${rec.m} (${rec.kind}, queued, made as ${[...rec.who].join(' or ')}) applied to ${a.cart} as ${a.actor}`);
      }
    }
  }
  // Order: per cart, first applications in the order made.
  const firstSeen = new Set<number>();
  const byCart = new Map<string, number[]>();
  for (const a of [...server.applied].sort((x, y) => x.seq - y.seq)) {
    if (a.seq === 0 || firstSeen.has(a.m)) continue;
    firstSeen.add(a.m);
    byCart.set(a.cart, [...(byCart.get(a.cart) ?? []), a.m]);
  }
  for (const [cart, ms] of byCart) {
    for (let k = 1; k < ms.length; k++) {
      const earlier = made.find((x) => x.m === ms[k])!;
      const later = made.find((x) => x.m === ms[k - 1])!;
      // Made while the earlier one had not been answered yet (two fetches at once): reported apart.
      const concurrent = madeAt.get(later.m)! < earlier.answeredAt || (later.worker !== earlier.worker && later.madeEpoch - earlier.answeredEpoch < 3);
      if (ms[k]! < ms[k - 1]! && (earlier.queuedId !== null || later.queuedId !== null) && !(concurrent && process.env['ORDER_CONCURRENT'] === undefined)) problems.push(`cart ${cart}: #${ms[k - 1]} applied before #${ms[k]} (made earlier${earlier.queuedId ? ', queued' : ''})`);
    }
  }
  for (const rec of made) trace.push(`  #${rec.m} ${rec.kind} w${rec.worker} → ${rec.status} ${rec.queuedId ? `queued ${rec.queuedId.slice(0, 4)} settled ${JSON.stringify(settled.get(rec.queuedId))}` : ''} applied ${server.applied.filter((a) => a.m === rec.m).map((a) => `${a.cart}/${a.actor}`).join(',')}`);
  return { trace, problems };

  async function maybe(p: Promise<unknown>) {
    if (r() < 0.5) await p;
  }
}
const takenBy = new Map<string, number>();

describe('offline cart writes through random interleavings', () => {
  let ticking: ReturnType<typeof setInterval>;
  before(() => {
    ticking = setInterval(() => void epoch.n++, 1);
    ticking.unref();
    installFakeLocks();
    unrefChannels();
  });
  after(() => removeFakeLocks());

  const only = process.env['SEED'];
  const seeds = only !== undefined ? [Number(only)] : Array.from({ length: Number(process.env['SEEDS'] ?? 25) }, (_, k) => Number(process.env['SEED_BASE'] ?? 1000) + k);
  const presets = process.env['PRESET'] === 'v3' ? [true] : process.env['PRESET'] === 'v2' ? [false] : [false, true];
  for (const v3 of presets) for (const seed of seeds) {
    it(`${v3 ? 'spree-v3' : 'store'} seed ${seed}`, async () => {
      takenBy.clear();
      const { trace, problems } = await runSeed(seed, Number(process.env['STEPS'] ?? 50), v3);
      if (only !== undefined) console.log(trace.join('\n'));
      assert.deepEqual(problems, [], `seed ${seed}:\n${trace.join('\n')}`);
    });
  }
});
