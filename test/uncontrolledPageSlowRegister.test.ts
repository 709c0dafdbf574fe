// A page that starts uncontrolled although its worker is active (a hard reload, Shift+Reload, bypasses
// every service worker) while the browser's update check of the worker script is slow: `register()`
// waits behind that check (Service Workers, "Schedule Job": a scope's jobs run one at a time), yet the
// active worker could claim the page at once. docs/behaviour.md ("Configuration"): "A page loaded by a
// hard reload ... starts uncontrolled; the bridge asks the active worker to claim it"; ("Errors"):
// `no_service_worker` is for service workers unavailable or a page out of the worker's scope, neither
// of which holds here.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, it, mock } from 'node:test';
import { waitForControl } from '../src/page/waitForControl.js';

const SCRIPT = 'https://shop.example/storefront-auth-sw.js?base=https%3A%2F%2Fapi.shop.example%2Fstore&preset=store';

class FakeWorker extends EventTarget {
  readonly scriptURL = SCRIPT;
  state = 'activated';
}

class FakeContainer extends EventTarget {
  controller: FakeWorker | null = null;
  registered = 0;
  readonly active = new FakeWorker();
  readonly registration = { installing: null, waiting: null, active: this.active, scope: 'https://shop.example/' };
  // The update check in flight holds the scope's job queue: register's promise waits behind it.
  register = (): Promise<unknown> => {
    this.registered += 1;
    return new Promise(() => {});
  };
  // The registration has an active worker: `ready` and `getRegistration` answer without the job queue.
  ready: Promise<unknown> = Promise.resolve(this.registration);
  getRegistration = (): Promise<unknown> => Promise.resolve(this.registration);
}

const flush = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
};
let container: FakeContainer;

beforeEach(() => {
  container = new FakeContainer();
  Object.defineProperty(globalThis, 'navigator', { value: { serviceWorker: container }, configurable: true });
  Object.defineProperty(globalThis, 'isSecureContext', { value: true, configurable: true });
  mock.timers.enable({ apis: ['setTimeout'] });
});
afterEach(() => {
  mock.timers.reset();
  mock.restoreAll();
});

it("a hard-reloaded page whose worker is active is claimed although register() is held up behind the browser's update check", async () => {
  let outcome = 'pending';
  let asked = 0;
  // The standalone worker claims the page when asked (messageListener.ts 'claim').
  const askToClaim = (worker: ServiceWorker): void => {
    asked += 1;
    container.controller = worker as unknown as FakeWorker;
    container.dispatchEvent(new Event('controllerchange'));
  };
  waitForControl(SCRIPT, '/', askToClaim).then(
    () => (outcome = 'resolved'),
    (error: Error) => (outcome = `rejected: ${error.message}`),
  );
  await flush();
  assert.equal(container.registered, 1);
  mock.timers.tick(2_000);
  await flush();
  assert.equal(asked, 1, 'the active worker was asked to claim the page');
  mock.timers.tick(8_000);
  await flush();
  assert.equal(outcome, 'resolved', 'the page could be controlled by its active worker at once');
});
