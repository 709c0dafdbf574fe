// Every message of ours is answered within the bridge's 10 s (docs/behaviour.md, "Bounds on every
// wait"), through the real listener, when storage hangs and the server never answers: each request
// type at once, and several in flight together (a logout racing a login, createCart twice), signed in
// with a due bearer (createCart waits for a refresh) or as a guest with a cart.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MESSAGE_TAG, PROTOCOL_VERSION } from '../src/shared/protocol.js';
import { listenForMessages } from '../src/sw/messageListener.js';
import { AuthWorker } from '../src/sw/authWorker.js';
import { resolveOptions } from '../src/sw/options.js';
import { installFakeLocks, removeFakeLocks, stuckStorage } from './fakes.js';

const BASE = 'https://shop.example/store';
const ENVELOPE = { tag: MESSAGE_TAG, v: PROTOCOL_VERSION, baseUrl: BASE };
const channel = globalThis.BroadcastChannel;
before(() => {
  (globalThis as { BroadcastChannel?: unknown }).BroadcastChannel = undefined;
  installFakeLocks();
});
after(() => {
  globalThis.BroadcastChannel = channel;
  removeFakeLocks();
});

function hungFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
  return new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')), { once: true }));
}

// The four cases wait side by side: each spends its 8 s waiting, not working.
describe('every message answered in time', { concurrency: true }, () => {
  for (const preset of ['spree', 'spree-v3'] as const) {
    for (const start of ['signedInDue', 'guestCart'] as const) {
      it(`${preset}, ${start}: every request is answered within 10 s while storage and the server hang`, { timeout: 30_000 }, async () => {
        const now = Date.now();
        const stuck = stuckStorage(
          start === 'signedInDue'
            ? { cart: null, session: { accessToken: 'a/+\\"1', refreshToken: 'r"\\/+2', expiresAt: now + 5_000, lifetimeMs: 3_600_000, confirmed: true }, backoff: null, signInId: 's1' }
            : { cart: { token: 'c+/\\"3', number: 'R1', id: 'cart_1' }, session: null, backoff: null },
        );
        const worker = new AuthWorker(resolveOptions({ baseUrl: BASE, preset, ...(preset === 'spree-v3' ? { publishableKey: 'pk_test_1' } : {}) }, 'https://shop.example/sw.js'), {
          fetch: hungFetch,
          now: Date.now,
          storage: stuck.storage,
          toPages: () => {},
          log: undefined,
        });
        const listeners: ((event: unknown) => void)[] = [];
        listenForMessages({ addEventListener: (_t: string, l: (event: unknown) => void) => void listeners.push(l) } as unknown as ServiceWorkerGlobalScope, worker, { claim: async () => {} });
        const sent = performance.now();
        const types = ['getState', 'login', 'logout', 'createCart', 'createCart', 'login', 'online', 'claim', 'getState'];
        const answered = types.map(
          (type) =>
            new Promise<[string, number, unknown]>((resolve) => {
              const port = { postMessage: (reply: unknown) => resolve([type, performance.now() - sent, reply]) };
              const data = type === 'login' ? { ...ENVELOPE, type, username: 'u@x.example', password: 'p"w\\/+' } : { ...ENVELOPE, type };
              for (const listener of listeners) listener({ data, ports: [port], waitUntil: () => {} });
            }),
        );
        const alive = setInterval(() => {}, 1000);
        const late = await Promise.race([Promise.all(answered), new Promise<null>((resolve) => setTimeout(() => resolve(null), 10_000))]);
        clearInterval(alive);
        stuck.release();
        if (late === null) {
          const done = await Promise.all(answered.map((a) => Promise.race([a, Promise.resolve(null)])));
          assert.fail(`not all answered within 10 s: ${JSON.stringify(done)}`);
        }
        for (const [type, ms] of late) assert.ok(ms < 10_000, `${type} answered after ${ms} ms`);
      });
    }
  }
});
