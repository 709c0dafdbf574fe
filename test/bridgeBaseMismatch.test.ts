// A page whose bridge names another base URL than the app's worker serves (`registerWorker: false`,
// the worker's `installStorefrontAuth({ baseUrl })` and the page's `register({ baseUrl })` apart, or
// the page's left out): `ready` resolves (the app's worker controls the page), and the worker ignores
// every message for another base (protocol.ts), so each method waits 10 s and rejects with `timeout`.
// The setting to fix is `baseUrl`; the message names it (docs/behaviour.md: "A message names the
// setting to fix, in the production build too").
import assert from 'node:assert/strict';
import { afterEach, beforeEach, it, mock } from 'node:test';
import { StorefrontAuth } from '../src/page/StorefrontAuth.js';
import { MESSAGE_TAG, parseWorkerRequest, PROTOCOL_VERSION } from '../src/shared/protocol.js';
import { rejectsWith } from './fakes.js';

const WORKER_BASE = 'http://127.0.0.1:8787';

const restores: (() => void)[] = [];
function stand(name: string, value: unknown): void {
  const before = Object.getOwnPropertyDescriptor(globalThis, name);
  Object.defineProperty(globalThis, name, { value, configurable: true, writable: true });
  restores.push(() => (before === undefined ? delete (globalThis as Record<string, unknown>)[name] : Object.defineProperty(globalThis, name, before)));
}

let received: string[];

beforeEach(() => {
  received = [];
  // The app's worker, serving WORKER_BASE: it answers what its message listener answers, and nothing to what it ignores.
  const worker = Object.assign(new EventTarget(), {
    scriptURL: 'https://shop.example/sw.js',
    state: 'activated',
    postMessage: (data: unknown, ports?: MessagePort[]) => {
      const parsed = parseWorkerRequest(data, WORKER_BASE);
      received.push(parsed.kind);
      if (parsed.kind === 'ignore') return;
      ports?.[0]?.postMessage({ tag: MESSAGE_TAG, v: PROTOCOL_VERSION, ok: true, state: { signedIn: false, accessTokenExpiresAt: null, cart: null, pendingWrites: 0 }, changeId: null });
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
  // ServiceWorker is no Node global; the bridge's message listener names it.
  stand('ServiceWorker', class {});
});
afterEach(() => {
  mock.timers.reset();
  for (const restore of restores.splice(0).reverse()) restore();
});

it("a bridge whose baseUrl is not the app's worker's: the method's timeout names baseUrl", async () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  // The page forgot baseUrl: it defaults to the page's origin, which the worker does not serve.
  const bridge = await StorefrontAuth.register({ registerWorker: false });
  const asking = bridge.getState();
  const outcome = rejectsWith(asking, 'timeout');
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(received, ['ignore'], 'the worker ignored the getState');
  mock.timers.tick(10_000);
  const error = await outcome;
  assert.match(error.message, /baseUrl/, `the message names no setting: ${error.message}`);
});
