// What the bridge makes of a worker that answers in another shape than this release's (a newer or
// older release's worker, or a broken one). docs/behaviour.md, "When things go wrong": every method rejects with a
// StorefrontAuthError with "a stable `code`" among invalid_grant, invalid_request, network_error,
// bad_response, timeout, no_service_worker, and `status` "whenever an HTTP response caused it"
// (a number); a `change` event's detail is the new AuthState.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, it } from 'node:test';
import { StorefrontAuth } from '../src/page/StorefrontAuth.js';
import { isStorefrontAuthError } from '../src/shared/errors.js';
import { MESSAGE_TAG, PROTOCOL_VERSION } from '../src/shared/protocol.js';

const DOCUMENTED = ['invalid_grant', 'invalid_request', 'network_error', 'bad_response', 'timeout', 'no_service_worker'];
const GUEST = { signedIn: false, accessTokenExpiresAt: null, cart: null, pendingWrites: 0 };

const restores: (() => void)[] = [];
function stand(name: string, value: unknown): void {
  const before = Object.getOwnPropertyDescriptor(globalThis, name);
  Object.defineProperty(globalThis, name, { value, configurable: true, writable: true });
  restores.push(() => (before === undefined ? delete (globalThis as Record<string, unknown>)[name] : Object.defineProperty(globalThis, name, before)));
}

let reply: unknown;
let container: EventTarget;
class FakeServiceWorker extends EventTarget {}
let worker: FakeServiceWorker;

beforeEach(() => {
  stand('ServiceWorker', FakeServiceWorker);
  worker = Object.assign(new FakeServiceWorker(), {
    scriptURL: 'https://shop.example/sw.js',
    state: 'activated',
    postMessage: (data: unknown, ports?: MessagePort[]) => {
      if ((data as { type?: string }).type !== 'claim') ports?.[0]?.postMessage(reply);
    },
  });
  container = Object.assign(new EventTarget(), {
    controller: worker,
    startMessages: () => {},
    ready: Promise.resolve({ installing: null, waiting: null, active: worker }),
    register: () => Promise.reject(new Error('the app registers its own worker')),
  });
  stand('location', { href: 'https://shop.example/' });
  stand('isSecureContext', true);
  stand('navigator', { serviceWorker: container });
  stand('addEventListener', () => {});
});
afterEach(() => {
  for (const restore of restores.splice(0).reverse()) restore();
});

async function rejection(promise: Promise<unknown>): Promise<{ code: string; status: unknown }> {
  let caught: unknown;
  await assert.rejects(promise, (error: unknown) => ((caught = error), true));
  assert.ok(isStorefrontAuthError(caught), String(caught));
  return caught as unknown as { code: string; status: unknown };
}

it('an error reply of a code this release does not document rejects with a documented code', async () => {
  const bridge = await StorefrontAuth.register({ registerWorker: false });
  for (const code of ['rate_limited', 'storage_unavailable', '']) {
    reply = { tag: MESSAGE_TAG, v: PROTOCOL_VERSION, ok: false, error: { code, message: 'from a newer worker' } };
    const error = await rejection(bridge.createCart());
    assert.ok(DOCUMENTED.includes(error.code), `rejected with code ${JSON.stringify(error.code)}`);
  }
});

it("an error reply whose status is no number rejects with a numeric status or none", async () => {
  const bridge = await StorefrontAuth.register({ registerWorker: false });
  reply = { tag: MESSAGE_TAG, v: PROTOCOL_VERSION, ok: false, error: { code: 'invalid_grant', message: 'wrong password', status: '400' } };
  const error = await rejection(bridge.login({ username: 'a@b.example', password: 'p"w\\/+' }));
  assert.ok(error.status === undefined || typeof error.status === 'number', `status ${JSON.stringify(error.status)}`);
});

it('a change announcement that also carries a `write` dispatches one change, whose detail is an AuthState', async () => {
  const bridge = await StorefrontAuth.register({ registerWorker: false });
  const details: unknown[] = [];
  bridge.addEventListener('change', (event) => details.push(event.detail));
  const event = new MessageEvent('message', {
    data: { tag: MESSAGE_TAG, v: PROTOCOL_VERSION, type: 'change', baseUrl: bridge.baseUrl, id: 'a1', state: GUEST, write: { id: 'w1', outcome: 'applied' } },
  });
  Object.defineProperty(event, 'isTrusted', { value: true });
  Object.defineProperty(event, 'source', { value: worker });
  container.dispatchEvent(event);
  assert.deepEqual(details, [GUEST]);
});
