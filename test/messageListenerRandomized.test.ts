// The worker's message listener (src/sw/messageListener.ts), randomized (seeded, so every run reads
// the same cases): random and malformed messages (wrong types, missing and extra fields, huge strings,
// non-string usernames and passwords, `__proto__` / `constructor` keys, numbers where strings go,
// nested arrays, ports missing or several, one port reused, messages for another base URL) mixed
// with valid ones, several in flight at once (a logout racing a login, createCart twice), through a
// real AuthWorker (memory storage, a routed fetch; v2 `spree` and `spree-v3`, sealed).
// Invariants (docs/behaviour.md, "a malformed message reaches the worker"): every message
// of ours with a port gets exactly one reply (none without a port, none for what is not ours); a
// malformed one gets `invalid_request`; nothing throws out of the listener; stored credentials change
// only by a valid action; no reply, announcement or log carries a token or a password; the worker
// answers a valid getState afterwards.
// SEED=… N=… run other cases; SHOW=n prints up to n failures.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { MESSAGE_TAG, PROTOCOL_VERSION, type Announcement } from '../src/shared/protocol.js';
import { listenForMessages } from '../src/sw/messageListener.js';
import { memoryWrites } from '../src/sw/writeStore.js';
import type { Credentials } from '../src/sw/credentialStorage.js';
import { BASE, routedWorker, type Routes } from './workerHarness.js';
import { storeApiJwt } from './fakes.js';
import { type Random, chance, pick, prng } from './random.js';

const SEED = Number(process.env['SEED'] ?? 20261128);
const N = Number(process.env['N'] ?? 120);
const SHOW = Number(process.env['SHOW'] ?? 5);

function token(r: Random, prefix: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_.~';
  let t = pick(r, ['/', '+', 'Q', 'z', '']) + prefix;
  const length = 16 + Math.floor(r() * 20);
  for (let i = 0; i < length; i++) t += pick(r, [...alphabet]);
  return t;
}

interface FakePort {
  replies: unknown[];
  postMessage: (message: unknown) => void;
}
const port = (): FakePort => {
  const replies: unknown[] = [];
  return { replies, postMessage: (message) => void replies.push(structuredClone(message)) };
};

type Listener = (event: unknown) => void;
function fakeScope() {
  const listeners: Listener[] = [];
  return {
    scope: { addEventListener: (type: string, listener: Listener) => void (type === 'message' && listeners.push(listener)) } as unknown as ServiceWorkerGlobalScope,
    dispatch(data: unknown, ports: unknown[]): Promise<unknown> {
      const waited: Promise<unknown>[] = [];
      // As ExtendableEvent.waitUntil does: after dispatch, once no promise is pending, it throws.
      let dispatching = true;
      let pending = 0;
      const event = {
        data,
        ports,
        waitUntil: (p: Promise<unknown>) => {
          if (!dispatching && pending === 0) {
            lateWaitUntil.push(new Error('waitUntil after the event ended').stack ?? '');
            throw new DOMException('The event handler is already finished and no extend lifetime promises are outstanding.', 'InvalidStateError');
          }
          pending++;
          const settle = (): void => void queueMicrotask(() => pending--);
          p.then(settle, settle);
          waited.push(p);
        },
      };
      for (const listener of listeners) listener(event);
      dispatching = false;
      return (async () => {
        for (let seen = -1; seen < waited.length; ) {
          seen = waited.length;
          await Promise.allSettled(waited);
        }
        return Promise.all(waited);
      })();
    },
  };
}

const tick = async (n = 5): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

interface World {
  preset: 'spree' | 'spree-v3';
  secrets: string[];
  password: string;
  username: string;
}

function routes(r: Random, w: World, slow: () => Promise<void>): Routes {
  const grant = async (): Promise<Response> => {
    await slow();
    const access = w.preset === 'spree-v3' ? storeApiJwt(Math.floor(Date.now() / 1000) + 3600) : token(r, 'acc');
    const refresh = token(r, 'ref');
    w.secrets.push(access, refresh);
    return w.preset === 'spree-v3'
      ? Response.json({ token: access, refresh_token: refresh, user: { id: 'u1' } })
      : Response.json({ access_token: access, token_type: 'Bearer', expires_in: 3600, refresh_token: refresh, created_at: Math.floor(Date.now() / 1000) });
  };
  const cart = async (): Promise<Response> => {
    await slow();
    const t = token(r, 'cart');
    w.secrets.push(t);
    const number = 'R' + Math.floor(r() * 1e9);
    return w.preset === 'spree-v3'
      ? Response.json({ id: 'cart_' + number, number, token: t }, { status: 201 })
      : Response.json({ data: { attributes: { token: t, number } } }, { status: 201 });
  };
  return w.preset === 'spree'
    ? {
        'POST /spree_oauth/token': async (call) => {
          const body = await call.body;
          return new URLSearchParams(body).get('password') === w.password || body.includes(JSON.stringify(w.password)) ? grant() : Response.json({ error: 'invalid_grant' }, { status: 400 });
        },
        'POST /spree_oauth/revoke': () => Response.json({}),
        'POST /api/v2/storefront/cart': cart,
        'PATCH /api/v2/storefront/cart/associate': () => Response.json({ data: {} }),
      }
    : {
        'POST /api/v3/store/auth/login': async (call) => {
          const body = JSON.parse(await call.body) as Record<string, unknown>;
          return body['password'] === w.password ? grant() : Response.json({ error: { code: 'authentication_failed', message: 'wrong' } }, { status: 401 });
        },
        'POST /api/v3/store/auth/logout': () => Response.json({}),
        'POST /api/v3/store/carts': cart,
      };
}

const ENVELOPE = { tag: MESSAGE_TAG, v: PROTOCOL_VERSION, baseUrl: BASE };
const HUGE = (r: Random): string => pick(r, ['a', 'é', '\\', '"']).repeat(1 + Math.floor(r() * 3) * 1_000_000);

/** A random message and what it is: valid (its type), invalid (ours, malformed), or not ours. */
function message(r: Random, w: World): { data: unknown; kind: 'valid' | 'invalid' | 'ignore'; type?: string; field?: string } {
  const valid = pick(r, ['getState', 'getState', 'login', 'login', 'logout', 'createCart', 'createCart', 'online', 'claim'] as const);
  const odd = (): unknown => pick(r, [42, 0, -1, Number.NaN, null, undefined, true, [], [['x']], {}, { toString: 'x' }, 1n, HUGE(r), '', '   ', new Date(0), ['login'], JSON.parse('{"__proto__": {"x": 1}, "constructor": {"prototype": {"polluted": true}}}') as unknown]);
  const roll = r();
  if (roll < 0.35) {
    const base: Record<string, unknown> = { ...ENVELOPE, type: valid };
    if (valid === 'login') {
      base['username'] = chance(r, 0.2) ? HUGE(r) : w.username;
      base['password'] = chance(r, 0.6) ? w.password : token(r, 'wrongpw');
    }
    if (chance(r, 0.3)) Object.assign(base, { extra: odd(), nested: [[[1, [2]]]], accessToken: 'x' });
    if (chance(r, 0.1)) Object.defineProperty(base, '__proto__', { value: { polluted: true }, enumerable: true, configurable: true, writable: true });
    if (chance(r, 0.1)) Object.defineProperty(base, 'constructor', { value: { prototype: { polluted: true } }, enumerable: true, configurable: true, writable: true });
    return { data: base, kind: 'valid', type: valid };
  }
  if (roll < 0.8) {
    const base: Record<string, unknown> = { ...ENVELOPE, type: valid, username: w.username, password: w.password };
    const field = pick(r, ['v', 'baseUrl', 'type', 'username', 'password', 'both'] as const);
    if (field === 'v') base['v'] = pick(r, [2, 0, '1', null, undefined, 1n, [1], HUGE(r)]);
    else if (field === 'baseUrl') base['baseUrl'] = pick(r, [42, null, undefined, [BASE], { toString: BASE }]);
    else if (field === 'type') base['type'] = pick(r, ['refresh', 'LOGIN', '__proto__', 'constructor', 'toString', 'hasOwnProperty', HUGE(r), 7, null, ['login']]);
    else {
      base['type'] = 'login';
      if (field !== 'password') base['username'] = odd();
      if (field !== 'username') base['password'] = odd();
      // An odd value that happens to be a valid string (a huge one) is valid.
      if ((typeof base['username'] === 'string' && (base['username'] as string).trim() !== '') && typeof base['password'] === 'string' && base['password'] !== '') return { data: base, kind: 'valid', type: 'login' };
    }
    return { data: base, kind: 'invalid', field: field === 'both' ? 'username' : field };
  }
  const other = pick(r, [
    { ...ENVELOPE, baseUrl: 'https://other.example', type: 'logout' },
    { ...ENVELOPE, baseUrl: `${BASE}/`, type: 'logout' },
    { ...ENVELOPE, tag: 'workbox-window', type: 'logout' },
    { type: 'SKIP_WAITING' },
    'storefront-auth',
    null,
    [ENVELOPE],
    { ...ENVELOPE, tag: HUGE(r), type: 'logout' },
  ]);
  return { data: other, kind: 'ignore' };
}

const stats = new Map<string, number>();
const lateWaitUntil: string[] = [];
let failures = 0;
const problems: string[] = [];
function check(ok: boolean, what: () => string): void {
  if (ok) return;
  failures++;
  if (problems.length < SHOW) problems.push(what());
}

function carries(text: string, secrets: string[]): string | undefined {
  return secrets.find((s) => s.length > 6 && text.includes(s));
}

const channel = globalThis.BroadcastChannel;
before(() => {
  (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
});
after(() => {
  globalThis.BroadcastChannel = channel;
});

it(`random messages to the listener (seed ${SEED}, ${N} runs)`, async () => {
  for (let run = 0; run < N; run++) {
    const r = prng(SEED + run);
    const w: World = { preset: pick(r, ['spree', 'spree-v3'] as const), secrets: [], password: token(r, 'pw"\\'), username: pick(r, ['a@b.example', 'ünï@x.example', ' shopper ']) };
    w.secrets.push(w.password);
    let gate: Promise<void> = Promise.resolve();
    const slow = (): Promise<void> => gate;
    const logs: string[] = [];
    const offline = chance(r, 0.5);
    const { worker, storage, announced } = routedWorker(
      { preset: w.preset, offlineWrites: offline, ...(w.preset === 'spree-v3' ? { publishableKey: 'pk_test_123' } : {}) },
      { cart: null, session: null, backoff: null } satisfies Credentials,
      routes(r, w, slow),
      Date.now,
      { log: (line: string) => void logs.push(line), ...(offline ? { writes: memoryWrites(), online: () => chance(r, 0.5) } : {}) },
    );
    const { scope, dispatch } = fakeScope();
    listenForMessages(scope, worker, { claim: async () => {} });
    const steps = 3 + Math.floor(r() * 8);
    const inFlight: Promise<void>[] = [];
    let busy = 0;
    let hold: (() => void) | null = null;
    for (let step = 0; step < steps; step++) {
      if (hold === null && chance(r, 0.3)) gate = new Promise<void>((resolve) => (hold = resolve));
      const m = message(r, w);
      const before = JSON.stringify(await storage.read());
      const quiet = busy === 0;
      if (m.kind === 'valid') busy++;
      const ports = pick(r, ['one', 'one', 'one', 'none', 'two'] as const);
      const p = port();
      const list = ports === 'none' ? [] : ports === 'two' ? [p, port()] : [p];
      let threw: unknown;
      let done: Promise<unknown> = Promise.resolve();
      try {
        done = dispatch(m.data, list);
      } catch (error) {
        threw = error;
      }
      const label = `run ${run} step ${step} ${m.kind} ${m.type ?? ''} ${describeData(m.data)}`;
      check(threw === undefined, () => `${label}: the listener threw ${String(threw)}`);
      const settled = done.then(
        async () => {
          const replies = p.replies;
          if (m.kind === 'ignore' || ports === 'none') check(replies.length === 0, () => `${label}: ${replies.length} replies where none was due`);
          else check(replies.length === 1, () => `${label}: ${replies.length} replies`);
          const reply = replies[0] as { ok?: boolean; error?: { code: string; message: string } } | undefined;
          if (m.kind === 'invalid' && reply !== undefined) check(reply.ok === false && reply.error?.code === 'invalid_request', () => `${label}: answered ${JSON.stringify(reply).slice(0, 300)}`);
          const naming = m.field === 'v' ? /version/ : m.field === 'type' ? /type/ : new RegExp(m.field ?? '');
          if (m.kind === 'invalid' && reply !== undefined) check(naming.test(reply.error?.message ?? ''), () => `${label}: the refusal names no field: ${reply.error?.message.slice(0, 200)}`);
          if (m.kind === 'valid') busy--;
          if ((m.kind === 'invalid' || m.kind === 'ignore') && quiet && busy === 0) check(JSON.stringify(await storage.read()) === before, () => `${label}: storage changed`);
          for (const reply of replies) {
            const text = JSON.stringify(reply);
            const secret = carries(text, w.secrets);
            check(secret === undefined, () => `${label}: reply carries a secret ${secret}`);
            const outcome = (reply as { ok?: boolean; error?: { code: string } }).ok ? 'ok' : (reply as { error: { code: string } }).error.code;
            stats.set(`${m.kind} ${m.type ?? ''} ${outcome}`, (stats.get(`${m.kind} ${m.type ?? ''} ${outcome}`) ?? 0) + 1);
          }
        },
        (error: unknown) => check(false, () => `${label}: waitUntil rejected ${String(error)}`),
      );
      inFlight.push(settled);
      await tick(pick(r, [0, 1, 3]));
      if (hold !== null && chance(r, 0.4)) {
        (hold as () => void)();
        hold = null;
        gate = Promise.resolve();
      }
    }
    if (hold !== null) (hold as () => void)();
    gate = Promise.resolve();
    await Promise.all(inFlight);
    for (const a of announced as Announcement[]) {
      const secret = carries(JSON.stringify(a), w.secrets);
      check(secret === undefined, () => `run ${run}: an announcement carries ${secret}`);
    }
    for (const line of logs) {
      const secret = carries(line, w.secrets);
      check(secret === undefined, () => `run ${run}: a log line carries ${secret}`);
    }
    // Still usable.
    const p = port();
    await dispatch({ ...ENVELOPE, type: 'getState' }, [p]);
    check(p.replies.length === 1 && (p.replies[0] as { ok: boolean }).ok === true, () => `run ${run}: getState afterwards answered ${JSON.stringify(p.replies)}`);
  }
  assert.equal((({}) as Record<string, unknown>)['polluted'], undefined, 'Object.prototype polluted');
  assert.equal((({}) as Record<string, unknown>)['x'], undefined, 'Object.prototype polluted');
  assert.deepEqual(lateWaitUntil.slice(0, 3), [], 'keepAlive called after the event ended');
  if (process.env['STATS']) console.log([...stats].sort().map(([k, v]) => `${k}: ${v}`).join('\n'));
  assert.equal(failures, 0, `${failures} failures:\n${problems.join('\n')}`);
});

function describeData(data: unknown): string {
  try {
    const text = JSON.stringify(data, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : typeof v === 'string' && v.length > 40 ? `<${v.length} chars>` : v));
    return (text ?? String(data)).slice(0, 200);
  } catch {
    return '<unprintable>';
  }
}
