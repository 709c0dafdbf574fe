// waitForControl's bounds (docs/behaviour.md, "The page API"): without a worker that can control
// the page it rejects with `no_service_worker`, at once when the registration shows no worker can
// come, and at the 10 s deadline otherwise; on success it leaves no timer behind. A fake
// `navigator.serviceWorker` stands in for the browser's.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { isStorefrontAuthError } from '../src/shared/errors.js';
import { waitForControl } from '../src/page/waitForControl.js';

const SCRIPT = 'https://shop.example/storefront-auth-sw.js?base=https%3A%2F%2Fshop.example&preset=store';

/** A `ServiceWorker` that tests move through its states. */
class FakeWorker extends EventTarget {
  constructor(
    public state: ServiceWorkerState,
    readonly scriptURL = SCRIPT,
  ) {
    super();
  }
  become(state: ServiceWorkerState): void {
    this.state = state;
    this.dispatchEvent(new Event('statechange'));
  }
}

/** A `ServiceWorkerContainer` whose `register` and `ready` answer as each test says. */
class FakeContainer extends EventTarget {
  controller: { scriptURL: string } | null = null;
  register: (url: string, options: { scope: string }) => Promise<unknown> = () => new Promise(() => {});
  ready: Promise<unknown> = new Promise(() => {});
  takeControl(scriptURL = SCRIPT): void {
    this.controller = { scriptURL };
    this.dispatchEvent(new Event('controllerchange'));
  }
}

const registration = (slots: { installing?: FakeWorker; waiting?: FakeWorker; active?: FakeWorker }) => ({
  installing: slots.installing ?? null,
  waiting: slots.waiting ?? null,
  active: slots.active ?? null,
});

let container: FakeContainer;
let claimed: unknown[];
const start = (scriptUrl: string | null = SCRIPT) => waitForControl(scriptUrl, '/', (worker) => claimed.push(worker));

/** Lets the promise callbacks queued so far run. */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Settles `promise` into a plain outcome without waiting for it: `pending` if it has not settled yet. */
function observe(promise: Promise<void>): () => 'resolved' | 'pending' | Error {
  let outcome: 'resolved' | 'pending' | Error = 'pending';
  promise.then(
    () => (outcome = 'resolved'),
    (error: Error) => (outcome = error),
  );
  return () => outcome;
}

/** Asserts `outcome` is a `no_service_worker` error whose message contains `words`. */
function assertNoServiceWorker(outcome: 'resolved' | 'pending' | Error, words: string): void {
  assert.ok(isStorefrontAuthError(outcome), `expected a rejection, got ${String(outcome)}`);
  assert.equal(outcome.code, 'no_service_worker');
  assert.match(outcome.message, new RegExp(words.replace(/[()?]/g, '\\$&')));
}

beforeEach(() => {
  container = new FakeContainer();
  claimed = [];
  Object.defineProperty(globalThis, 'navigator', { value: { serviceWorker: container }, configurable: true });
  Object.defineProperty(globalThis, 'isSecureContext', { value: true, configurable: true });
});

afterEach(() => {
  mock.timers.reset();
  mock.restoreAll();
});

describe('waitForControl rejects at once when no worker can come', () => {
  it('when the origin is insecure', async () => {
    Object.defineProperty(globalThis, 'isSecureContext', { value: false, configurable: true });
    const outcome = observe(start());
    await flush();
    assertNoServiceWorker(outcome(), 'unavailable');
  });

  it('when the browser has no service workers', async () => {
    Object.defineProperty(globalThis, 'navigator', { value: {}, configurable: true });
    const outcome = observe(start());
    await flush();
    assertNoServiceWorker(outcome(), 'unavailable');
  });

  it('when reading navigator.serviceWorker throws (a sandboxed frame, a browser that clears site data)', async () => {
    Object.defineProperty(globalThis, 'navigator', {
      get: () => ({
        get serviceWorker(): never {
          throw new DOMException('Service worker is disabled because the context is sandboxed', 'SecurityError');
        },
      }),
      configurable: true,
    });
    const outcome = observe(start());
    await flush();
    assertNoServiceWorker(outcome(), 'unavailable');
  });

  it('when register resolves with no registration (service workers blocked)', async () => {
    container.register = async () => undefined;
    const outcome = observe(start());
    await flush();
    assertNoServiceWorker(outcome(), 'blocked');
  });

  it('when register rejects (a script that throws, a 404), keeping the cause', async () => {
    const cause = new TypeError('ServiceWorker script evaluation failed');
    container.register = async () => {
      throw cause;
    };
    const outcome = observe(start());
    await flush();
    assertNoServiceWorker(outcome(), 'ServiceWorker script evaluation failed');
    assert.equal((outcome() as Error).cause, cause);
  });

  it('when the registration holds no worker at all', async () => {
    container.register = async () => registration({});
    const outcome = observe(start());
    await flush();
    assertNoServiceWorker(outcome(), 'failed to install');
  });

  it('when the installing worker becomes redundant and none is active', async () => {
    const installing = new FakeWorker('installing');
    // `installing` may still name the redundant worker when its statechange fires.
    container.register = async () => registration({ installing });
    const outcome = observe(start());
    await flush();
    assert.equal(outcome(), 'pending');
    installing.become('redundant');
    await flush();
    assertNoServiceWorker(outcome(), 'failed to install');
  });
});

describe('waitForControl rejects at the 10 s deadline, not before', () => {
  beforeEach(() => mock.timers.enable({ apis: ['setTimeout'] }));

  it('when the app never registers its own worker (registerWorker: false)', async () => {
    const outcome = observe(start(null));
    mock.timers.tick(9_999);
    await flush();
    assert.equal(outcome(), 'pending');
    mock.timers.tick(1);
    await flush();
    assertNoServiceWorker(outcome(), 'registerWorker: false');
  });

  it('when register never settles', async () => {
    const outcome = observe(start());
    mock.timers.tick(10_000);
    await flush();
    assertNoServiceWorker(outcome(), SCRIPT);
  });

  it('when the worker is active but never takes control, after asking it to claim', async () => {
    const active = new FakeWorker('activated');
    container.register = async () => registration({ active });
    const outcome = observe(start());
    await flush();
    assert.deepEqual(claimed, [active]);
    mock.timers.tick(10_000);
    await flush();
    assertNoServiceWorker(outcome(), 'is the page in scope /?');
  });

  it('when a new version fails to install beside an active worker that never takes control', async () => {
    const installing = new FakeWorker('installing');
    const active = new FakeWorker('activated');
    container.register = async () => registration({ installing, active });
    const outcome = observe(start());
    await flush();
    installing.become('redundant');
    await flush();
    // The active worker can still take control, so the failed update alone is no reason to give up.
    assert.equal(outcome(), 'pending');
    mock.timers.tick(10_000);
    await flush();
    assertNoServiceWorker(outcome(), 'is the page in scope');
  });
});

// A page loaded by a hard reload starts uncontrolled beside the app's activated worker, which claims
// it only when built with `claimPages`: the wait ends 2 s after asking, naming the cause, not at 10 s
// blaming the scope.
describe("waitForControl with the app's own worker (registerWorker: false)", () => {
  beforeEach(() => mock.timers.enable({ apis: ['setTimeout'] }));

  it('rejects 2 s after asking an activated worker that does not claim the page, naming a hard reload and claimPages', async () => {
    const active = new FakeWorker('activated', 'https://shop.example/app-sw.js');
    container.ready = Promise.resolve(registration({ active }));
    const outcome = observe(start(null));
    await flush();
    assert.deepEqual(claimed, [active]);
    mock.timers.tick(1_999);
    await flush();
    assert.equal(outcome(), 'pending');
    mock.timers.tick(1);
    await flush();
    assertNoServiceWorker(outcome(), 'hard reload');
    assertNoServiceWorker(outcome(), 'claimPages: true');
  });

  it('resolves when the activated worker claims the page it was asked for', async () => {
    const active = new FakeWorker('activated', 'https://shop.example/app-sw.js');
    container.ready = Promise.resolve(registration({ active }));
    const outcome = observe(start(null));
    await flush();
    mock.timers.tick(500);
    container.takeControl('https://shop.example/app-sw.js');
    await flush();
    assert.equal(outcome(), 'resolved');
    mock.timers.tick(10_000);
    await flush();
    assert.equal(outcome(), 'resolved');
  });

  it('gives a worker still activating its activation first: one that claims pages then is waited for', async () => {
    const active = new FakeWorker('activating', 'https://shop.example/app-sw.js');
    container.ready = Promise.resolve(registration({ active }));
    const outcome = observe(start(null));
    await flush();
    mock.timers.tick(5_000);
    await flush();
    assert.equal(outcome(), 'pending', 'no grace runs before the activation');
    active.become('activated');
    container.takeControl('https://shop.example/app-sw.js');
    await flush();
    assert.equal(outcome(), 'resolved');
  });

  it('gives a worker still activating that claims nothing 2 s after its activation', async () => {
    const active = new FakeWorker('activating', 'https://shop.example/app-sw.js');
    container.ready = Promise.resolve(registration({ active }));
    const outcome = observe(start(null));
    await flush();
    mock.timers.tick(3_000);
    active.become('activated');
    await flush();
    mock.timers.tick(2_000);
    await flush();
    assertNoServiceWorker(outcome(), 'hard reload');
  });
});

describe('waitForControl resolves once the page is controlled', () => {
  it('after the installing worker activates and claims the page, clearing its deadline', async () => {
    const setTimer = mock.method(globalThis, 'setTimeout');
    const clearTimer = mock.method(globalThis, 'clearTimeout');
    const installing = new FakeWorker('installing');
    const reg = registration({ installing });
    container.register = async () => reg;
    const outcome = observe(start());
    await flush();
    installing.become('installed');
    Object.assign(reg, { installing: null, waiting: installing });
    installing.become('activating');
    Object.assign(reg, { waiting: null, active: installing });
    installing.become('activated');
    container.takeControl();
    await flush();
    assert.equal(outcome(), 'resolved');
    const timer = setTimer.mock.calls[0]?.result;
    assert.ok(clearTimer.mock.calls.some((call) => call.arguments[0] === timer), 'the deadline was cleared');
  });

  it('at once when the page is already controlled and the app registers its own worker', async () => {
    // Whatever its script: the app's worker is whatever controls the page.
    container.controller = { scriptURL: 'https://shop.example/app-sw.js' };
    container.ready = Promise.resolve(registration({ active: new FakeWorker('activated') }));
    const outcome = observe(start(null));
    await flush();
    assert.equal(outcome(), 'resolved');
    assert.deepEqual(claimed, []);
  });
});

describe('waitForControl waits for its own worker', () => {
  it('while another script controls the page (the site\'s previous worker, or one for another base URL), until its own takes control', async () => {
    const previous = 'https://shop.example/storefront-auth-sw.js?base=https%3A%2F%2Fold.example&preset=store';
    container.controller = { scriptURL: previous };
    const installing = new FakeWorker('installing');
    container.register = async () => registration({ installing, active: new FakeWorker('activated', previous) });
    const outcome = observe(start());
    await flush();
    assert.equal(outcome(), 'pending', 'the page is not its own worker\'s yet');
    assert.deepEqual(claimed, [], 'the previous worker is not asked to claim');
    container.takeControl(previous);
    await flush();
    assert.equal(outcome(), 'pending');
    installing.become('activated');
    container.takeControl();
    await flush();
    assert.equal(outcome(), 'resolved');
  });
});
