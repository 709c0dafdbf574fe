// A page its own worker controls already (every visit after the first) must not be told there is no
// worker because `register()` is slow: the browser runs registration jobs of a scope one at a time
// (Service Workers, "Schedule Job"), so a `register` called while the update check the browser started
// after the navigation is still fetching the worker script (a slow server, lie-fi) waits for that fetch.
// The page is controlled meanwhile and its worker answers; the bridge should resolve, not reject
// `no_service_worker` at 10 s.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, it, mock } from 'node:test';
import { waitForControl } from '../src/page/waitForControl.js';

const SCRIPT = 'https://shop.example/storefront-auth-sw.js?base=https%3A%2F%2Fapi.shop.example%2Fstore&preset=store';

class FakeContainer extends EventTarget {
  controller: { scriptURL: string } | null = null;
  registered = 0;
  // The update check in flight holds the scope's job queue: register's promise waits behind it.
  register = (): Promise<unknown> => {
    this.registered += 1;
    return new Promise(() => {});
  };
  ready: Promise<unknown> = new Promise(() => {});
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));
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

it('a page its own worker controls resolves although register() is held up behind the browser\'s update check', async () => {
  container.controller = { scriptURL: SCRIPT };
  let outcome: string = 'pending';
  waitForControl(SCRIPT, '/', () => {}).then(
    () => (outcome = 'resolved'),
    (error: Error) => (outcome = `rejected: ${error.message}`),
  );
  await flush();
  assert.equal(container.registered, 1);
  mock.timers.tick(10_000);
  await flush();
  assert.equal(outcome, 'resolved', 'the page is controlled by the very worker it registers');
});
