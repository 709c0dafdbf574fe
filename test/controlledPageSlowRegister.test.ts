// A page must not be told there is no worker because `register()` is slow: the browser runs
// registration jobs of a scope one at a time (Service Workers, "Schedule Job"), so a `register` called
// while the update check the browser started after the navigation is still fetching the worker script
// (a slow server, lie-fi) waits for that fetch. A page its own worker controls already (every visit
// after the first) is controlled meanwhile, and its worker answers. A page that starts uncontrolled
// although its worker is active (a hard reload, Shift+Reload, bypasses every service worker) can be
// claimed at once (docs/behaviour.md, "Configuration": "A page loaded by a hard reload ... starts
// uncontrolled; the bridge asks the active worker to claim it"). Either way the bridge resolves,
// rather than rejecting `no_service_worker` at 10 s.
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
  // The registration has an active worker: `ready` answers without the job queue.
  ready: Promise<unknown> = Promise.resolve(this.registration);
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

/** How the wait for control has ended so far. */
function outcomeOf(wait: Promise<void>): { now: string } {
  const outcome = { now: 'pending' };
  wait.then(
    () => (outcome.now = 'resolved'),
    (error: Error) => (outcome.now = `rejected: ${error.message}`),
  );
  return outcome;
}

it("a page its own worker controls resolves although register() is held up behind the browser's update check", async () => {
  container.controller = container.active;
  // Nor does `ready` answer: the page's own control is what tells it.
  container.ready = new Promise(() => {});
  const outcome = outcomeOf(waitForControl(SCRIPT, '/', () => {}));
  await flush();
  assert.equal(container.registered, 1);
  mock.timers.tick(10_000);
  await flush();
  assert.equal(outcome.now, 'resolved', 'the page is controlled by the very worker it registers');
});

it("a hard-reloaded page whose worker is active is claimed although register() is held up behind the browser's update check", async () => {
  let asked = 0;
  // The standalone worker claims the page when asked (messageListener.ts 'claim').
  const askToClaim = (worker: ServiceWorker): void => {
    asked += 1;
    container.controller = worker as unknown as FakeWorker;
    container.dispatchEvent(new Event('controllerchange'));
  };
  const outcome = outcomeOf(waitForControl(SCRIPT, '/', askToClaim));
  await flush();
  assert.equal(container.registered, 1);
  mock.timers.tick(2_000);
  await flush();
  assert.equal(asked, 1, 'the active worker was asked to claim the page');
  mock.timers.tick(8_000);
  await flush();
  assert.equal(outcome.now, 'resolved', 'the page could be controlled by its active worker at once');
});
