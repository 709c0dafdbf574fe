// The page side of the message protocol (src/page/messageWorker.ts, src/page/StorefrontAuth.ts),
// randomized (seeded): a controller that answers in shapes a worker of another release, a broken one,
// or none at all may produce (another version, no `ok`, an error of a code this release does not
// know, a status that is no number, a state of another shape, no reply, two replies). Whatever it
// answers, every method settles within the 10 s deadline, and either resolves with an AuthState or
// rejects with a StorefrontAuthError carrying one of the documented codes (docs/behaviour.md, "When things go wrong":
// invalid_grant, invalid_request, network_error, bad_response, timeout, no_service_worker) and a
// `status` that is a number or absent.
// SEED=… N=… run other cases.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, it, mock } from 'node:test';
import { StorefrontAuth } from '../src/page/StorefrontAuth.js';
import { isStorefrontAuthError } from '../src/shared/errors.js';
import { MESSAGE_TAG, PROTOCOL_VERSION } from '../src/shared/protocol.js';
import { type Random, pick, prng } from './random.js';

const SEED = Number(process.env['SEED'] ?? 20261128);
const N = Number(process.env['N'] ?? 200);
const DOCUMENTED = ['invalid_grant', 'invalid_request', 'network_error', 'bad_response', 'timeout', 'no_service_worker'];

const restores: (() => void)[] = [];
function stand(name: string, value: unknown): void {
  const before = Object.getOwnPropertyDescriptor(globalThis, name);
  Object.defineProperty(globalThis, name, { value, configurable: true, writable: true });
  restores.push(() => (before === undefined ? delete (globalThis as Record<string, unknown>)[name] : Object.defineProperty(globalThis, name, before)));
}

/** What the controller answers the next request with: replies posted on its port (none: silence). */
let answer: () => unknown[] = () => [];

beforeEach(() => {
  const worker = Object.assign(new EventTarget(), {
    scriptURL: 'https://shop.example/sw.js',
    state: 'activated',
    postMessage: (data: unknown, ports?: MessagePort[]) => {
      if ((data as { type?: string }).type === 'claim') return;
      for (const reply of answer()) ports?.[0]?.postMessage(reply);
    },
  });
  const container = Object.assign(new EventTarget(), {
    controller: worker,
    startMessages: () => {},
    ready: Promise.resolve({ installing: null, waiting: null, active: worker }),
    register: () => Promise.reject(new Error('the app registers its own worker')),
  });
  stand('location', { href: 'https://shop.example/' });
  stand('isSecureContext', true);
  stand('navigator', { serviceWorker: container });
  stand('addEventListener', () => {});
  stand('ServiceWorker', class {});
});
afterEach(() => {
  mock.timers.reset();
  for (const restore of restores.splice(0).reverse()) restore();
});

const GUEST = { signedIn: false, accessTokenExpiresAt: null, cart: null, pendingWrites: 0 };

function randomReply(r: Random): unknown[] {
  const ok = { tag: MESSAGE_TAG, v: PROTOCOL_VERSION, ok: true, state: GUEST, changeId: pick(r, [null, 'c' + Math.floor(r() * 1e6)]) };
  const error = (code: unknown, status?: unknown) => ({ tag: MESSAGE_TAG, v: PROTOCOL_VERSION, ok: false, error: { code, message: 'm', ...(status === undefined ? {} : { status }) } });
  const shapes: (() => unknown[])[] = [
    () => [],
    () => [ok],
    () => [ok, ok],
    () => [{ ...ok, v: PROTOCOL_VERSION + 1 }],
    () => [{ ...ok, v: 0 }],
    () => [{ ...ok, ok: undefined }],
    () => [{ ...ok, state: { ...GUEST, pendingWrites: undefined } }],
    () => [{ ...ok, state: 'guest' }],
    () => [{ ...ok, changeId: 7 }],
    () => [{ ...ok, warning: { code: 'bad_response', message: 'm' } }],
    () => [null],
    () => ['ok'],
    () => [[ok]],
    () => [error(pick(r, DOCUMENTED))],
    () => [error(pick(r, DOCUMENTED), 400)],
    // A newer release's worker, with a code this release does not know, or one a method never carries.
    () => [error(pick(r, ['rate_limited', 'storage_unavailable', 'unauthorized', '', 'INVALID_GRANT']))],
    () => [error('invalid_grant', pick(r, ['400', null, { n: 400 }, true]))],
    () => [error(42)],
  ];
  return pick(r, shapes)();
}

it(`a method settles within 10 s with an AuthState or a documented StorefrontAuthError, whatever the worker answers (seed ${SEED}, ${N} runs)`, async () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  const bridge = await StorefrontAuth.register({ registerWorker: false });
  const problems: string[] = [];
  for (let run = 0; run < N; run++) {
    const r = prng(SEED + run);
    const replies = randomReply(r);
    answer = () => replies;
    const method = pick(r, ['getState', 'logout', 'createCart', 'login'] as const);
    const call = method === 'login' ? bridge.login({ username: 'a@b.example', password: 'p"w\\/+' }) : bridge[method]();
    let outcome: { value?: unknown; error?: unknown } | undefined;
    call.then((value) => (outcome = { value }), (error: unknown) => (outcome = { error }));
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    if (outcome === undefined) mock.timers.tick(10_000);
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    const label = `run ${run} ${method} answered ${JSON.stringify(replies)}`;
    if (outcome === undefined) problems.push(`${label}: not settled after 10 s`);
    else if ('error' in outcome) {
      const e = outcome.error;
      if (!isStorefrontAuthError(e)) problems.push(`${label}: rejected with ${String(e)}`);
      else {
        if (!DOCUMENTED.includes(e.code)) problems.push(`${label}: rejected with the undocumented code ${JSON.stringify(e.code)}`);
        if (e.status !== undefined && typeof e.status !== 'number') problems.push(`${label}: rejected with status ${JSON.stringify(e.status)}`);
      }
    }
  }
  assert.deepEqual([...new Set(problems.map((p) => p.replace(/^run \d+ \w+ /, '')))], []);
});
