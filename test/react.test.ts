// The React binding (storefront-auth-sw/react): the store under `useSyncExternalStore`, driven
// directly with a fake bridge standing in for `StorefrontAuth.register`'s (stopped, as an unmounting
// provider stops it, it hands back everything it listened with); and the provider and the
// hook rendered on a server with react-dom/server in Node, where no browser API may be touched and
// the children render with `state: null`.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { createElement, type ReactElement } from 'react';
import { renderToString } from 'react-dom/server';
import { StorefrontAuth } from '../src/page/StorefrontAuth.js';
import { StorefrontAuthError, isStorefrontAuthError } from '../src/shared/errors.js';
import type { AuthState } from '../src/shared/state.js';
import { AuthStore, UNKNOWN } from '../src/react/authStore.js';
import { RELEASE, type ReleasableOptions } from '../src/page/release.js';
import type { BridgeOptions } from '../src/page/StorefrontAuth.js';
import { StorefrontAuthProvider, useStorefrontAuth } from '../src/react/index.js';
import { deferred, rejectsWith } from './fakes.js';

const GUEST: AuthState = { signedIn: false, accessTokenExpiresAt: null, cart: null, pendingWrites: 0 };
const WITH_CART: AuthState = { ...GUEST, cart: { number: 'R7' } };
const SIGNED_IN: AuthState = { signedIn: true, accessTokenExpiresAt: 1_900_000_000_000, cart: { number: 'R7' }, pendingWrites: 0 };

/** A bridge as `register` resolves with it: an EventTarget whose methods answer as the test says. */
class FakeBridge extends EventTarget {
  readonly calls: string[] = [];
  state = deferred<AuthState>();
  getState(): Promise<AuthState> {
    this.calls.push('getState');
    return this.state.promise;
  }
  login(credentials: { username: string; password: string }): Promise<AuthState> {
    this.calls.push(`login ${credentials.username}`);
    return Promise.resolve(SIGNED_IN);
  }
  logout(): Promise<AuthState> {
    this.calls.push('logout');
    return Promise.resolve(GUEST);
  }
  createCart(): Promise<AuthState> {
    this.calls.push('createCart');
    return Promise.resolve(WITH_CART);
  }
  announce(type: 'change' | 'sessionexpired', detail: unknown): void {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }
}

/** Lets queued promise callbacks run. */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

let bridge: FakeBridge;
/** The options of each registration, without the signal the store hands the bridge under RELEASE. */
let registered: unknown[];
/** That signal, for each registration. */
let signals: AbortSignal[];

beforeEach(() => {
  bridge = new FakeBridge();
  registered = [];
  signals = [];
  mock.method(StorefrontAuth, 'register', (options: ReleasableOptions<BridgeOptions>) => {
    const { [RELEASE]: release, ...given } = options;
    registered.push(given);
    if (release !== undefined) signals.push(release.signal);
    return Promise.resolve(bridge as unknown as StorefrontAuth);
  });
});
afterEach(() => mock.restoreAll());

describe('AuthStore', () => {
  it('knows nothing until started, and registers once however often it is started', async () => {
    const store = new AuthStore({ baseUrl: 'https://api.shop.example' });
    assert.equal(store.getSnapshot(), UNKNOWN);
    assert.equal(store.getServerSnapshot(), UNKNOWN);
    assert.deepEqual(registered, []);
    const first = store.start();
    assert.equal(store.start(), first);
    await first;
    assert.deepEqual(registered, [{ baseUrl: 'https://api.shop.example' }]);
  });

  it('takes the first getState answer, then each change and sessionexpired, telling subscribers each time with a new snapshot', async () => {
    const store = new AuthStore();
    let told = 0;
    const unsubscribe = store.subscribe(() => (told += 1));
    await store.start();
    const before = store.getSnapshot();
    bridge.state.resolve(GUEST);
    await flush();
    assert.deepEqual(store.getSnapshot(), { state: GUEST, error: null });
    assert.notEqual(store.getSnapshot(), before);
    assert.equal(store.getSnapshot(), store.getSnapshot(), 'the same snapshot until something changes');

    bridge.announce('change', { ...SIGNED_IN, warning: { code: 'bad_response', message: 'assignment failed' } });
    assert.deepEqual(store.getSnapshot().state, SIGNED_IN, "a change's warning is not part of the state");
    bridge.announce('sessionexpired', GUEST);
    assert.deepEqual(store.getSnapshot().state, GUEST);
    assert.equal(told, 3);

    unsubscribe();
    bridge.announce('change', WITH_CART);
    assert.equal(told, 3, 'an unsubscribed listener is not told');
    assert.deepEqual(store.getSnapshot().state, WITH_CART);
  });

  it('drops a getState answer that an event overtook', async () => {
    const store = new AuthStore();
    await store.start();
    bridge.announce('change', SIGNED_IN);
    bridge.state.resolve(GUEST);
    await flush();
    assert.deepEqual(store.getSnapshot().state, SIGNED_IN);
  });

  it('asks again for a first state that could not be read (a timeout), later each time, until it comes', async (t) => {
    const timers = t.mock.timers;
    timers.enable({ apis: ['setTimeout'] });
    const slow = () => Promise.reject(new StorefrontAuthError('timeout', 'slow'));
    const answers = [slow, slow, () => Promise.resolve(WITH_CART)];
    bridge.getState = () => (bridge.calls.push('getState'), answers.shift()?.() ?? new Promise<AuthState>(() => {}));
    const store = new AuthStore();
    await store.start();
    await flush();
    assert.equal(store.getSnapshot(), UNKNOWN);
    timers.tick(999);
    await flush();
    assert.equal(bridge.calls.length, 1, 'not before a second');
    timers.tick(1);
    await flush();
    assert.equal(bridge.calls.length, 2);
    timers.tick(1999);
    await flush();
    assert.equal(bridge.calls.length, 2, 'then not before two more');
    timers.tick(1);
    await flush();
    assert.deepEqual(store.getSnapshot().state, WITH_CART);
    timers.tick(60_000);
    await flush();
    assert.equal(bridge.calls.length, 3, 'known: not asked again');
  });

  it('asks every 30 s once the waits reach it, never sooner, however long the state cannot be read', async (t) => {
    const timers = t.mock.timers;
    timers.enable({ apis: ['setTimeout'] });
    bridge.getState = () => (bridge.calls.push('getState'), Promise.reject(new StorefrontAuthError('timeout', 'slow')));
    const store = new AuthStore();
    await store.start();
    // The signal the store releases the bridge with carries one abort listener of the retry's at a time.
    const signal = signals[0];
    assert.ok(signal !== undefined);
    let listening = 0;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = ((...args: Parameters<typeof add>) => (listening++, add(...args))) as typeof add;
    signal.removeEventListener = ((...args: Parameters<typeof remove>) => (listening--, remove(...args))) as typeof remove;
    // 1 + 2 + 4 + 8 + 16 s, then 30 s each: asked 6 times in the first 31 s, then once a 30 s.
    for (let second = 0; second < 31; second++) (timers.tick(1000), await flush());
    assert.equal(bridge.calls.length, 6);
    for (let round = 0; round < 40; round++) {
      timers.tick(29_999);
      await flush();
      const before: number = bridge.calls.length;
      timers.tick(1);
      await flush();
      assert.equal(bridge.calls.length, before + 1, `round ${round}`);
    }
    assert.ok(listening <= 1, `${listening} abort listeners added and not removed`);
    store.stop();
  });

  it('does not ask again once an event brought a state, or once stopped', async (t) => {
    const timers = t.mock.timers;
    timers.enable({ apis: ['setTimeout'] });
    for (const end of ['event', 'stop'] as const) {
      bridge = new FakeBridge();
      bridge.getState = () => (bridge.calls.push('getState'), Promise.reject(new StorefrontAuthError('timeout', 'slow')));
      const store = new AuthStore();
      await store.start();
      await flush();
      if (end === 'event') bridge.announce('change', SIGNED_IN);
      else store.stop();
      timers.tick(60_000);
      await flush();
      assert.equal(bridge.calls.length, 1, end);
    }
  });

  it('once stopped: the bridge is told to take its listeners back, the store stops listening, and a start registers anew', async () => {
    const store = new AuthStore();
    const first = bridge;
    await store.start();
    assert.equal(signals.length, 1);
    store.stop();
    assert.equal(signals[0]?.aborted, true, 'the signal the bridge listens with is aborted');
    first.state.resolve(GUEST);
    first.announce('change', SIGNED_IN);
    await flush();
    assert.equal(store.getSnapshot(), UNKNOWN, "a stopped bridge's answer and events change nothing");

    // StrictMode's second mount: a bridge of its own, whose first answer is taken.
    bridge = new FakeBridge();
    const second = store.start();
    assert.equal(store.start(), second, 'started anew once, not on every start');
    await second;
    assert.equal(registered.length, 2);
    assert.equal(signals[1]?.aborted, false);
    bridge.state.resolve(WITH_CART);
    await flush();
    assert.deepEqual(store.getSnapshot().state, WITH_CART);
  });

  it('stopped while registering: takes nothing from that bridge, and a method after it registers nothing anew', async () => {
    const store = new AuthStore();
    const registering = store.start();
    store.stop();
    await registering;
    bridge.state.resolve(SIGNED_IN);
    await flush();
    assert.equal(store.getSnapshot(), UNKNOWN);
    assert.deepEqual(await store.createCart(), WITH_CART);
    assert.equal(registered.length, 1);
  });

  it("hands on the bridge's methods, waiting for registration", async () => {
    const store = new AuthStore();
    const login = store.login({ username: 'shopper@example.com', password: 'pw' });
    assert.deepEqual(await login, SIGNED_IN);
    assert.deepEqual(await store.createCart(), WITH_CART);
    assert.deepEqual(await store.logout(), GUEST);
    assert.deepEqual(bridge.calls.filter((call) => call !== 'getState'), ['login shopper@example.com', 'createCart', 'logout']);
    assert.equal(registered.length, 1);
  });

  it("where registration failed: the snapshot's error is its error, and the methods reject with no_service_worker", async () => {
    for (const failure of [new StorefrontAuthError('no_service_worker', 'Service workers are unavailable here'), new StorefrontAuthError('invalid_request', 'baseUrl "shop" is not an http:// or https:// URL')]) {
      mock.method(StorefrontAuth, 'register', () => Promise.reject(failure));
      const store = new AuthStore({ baseUrl: 'shop' });
      let told = 0;
      store.subscribe(() => (told += 1));
      await assert.rejects(store.start());
      assert.deepEqual(store.getSnapshot(), { state: null, error: failure });
      assert.equal(told, 1);
      for (const method of [() => store.createCart(), () => store.logout(), () => store.login({ username: 'a', password: 'b' })]) {
        const error = await rejectsWith(method(), 'no_service_worker');
        assert.ok(error.message.includes(failure.message), error.message);
      }
    }
  });

  it('turns a registration that fails with anything else into a no_service_worker error', async () => {
    mock.method(StorefrontAuth, 'register', () => Promise.reject(new TypeError('boom')));
    const store = new AuthStore();
    await assert.rejects(store.start());
    const { error } = store.getSnapshot();
    assert.ok(isStorefrontAuthError(error));
    assert.equal(error.code, 'no_service_worker');
  });
});

describe('StorefrontAuthProvider and useStorefrontAuth on a server', () => {
  /** The browser globals a server render must not read: each read is recorded. */
  const BROWSER = ['window', 'document', 'navigator', 'location', 'localStorage', 'sessionStorage', 'indexedDB', 'isSecureContext'];
  let touched: string[];
  const saved = new Map<string, PropertyDescriptor | undefined>();
  beforeEach(() => {
    touched = [];
    for (const name of BROWSER) {
      saved.set(name, Object.getOwnPropertyDescriptor(globalThis, name));
      Object.defineProperty(globalThis, name, { configurable: true, get: () => void touched.push(name) });
    }
  });
  afterEach(() => {
    for (const [name, descriptor] of saved) {
      if (descriptor === undefined) delete (globalThis as Record<string, unknown>)[name];
      else Object.defineProperty(globalThis, name, descriptor);
    }
  });

  function Account(): ReactElement {
    const { state, error, login } = useStorefrontAuth();
    return createElement('p', { 'data-has-login': typeof login }, state === null ? `state unknown, error ${String(error)}` : `signed in: ${state.signedIn}`);
  }

  it('renders the children with state null and no error, registers nothing and touches no browser API', () => {
    const html = renderToString(createElement(StorefrontAuthProvider, { options: { baseUrl: 'https://api.shop.example' } }, createElement(Account), createElement('footer', null, 'shop footer')));
    assert.equal(html, '<p data-has-login="function">state unknown, error null</p><footer>shop footer</footer>');
    assert.deepEqual(registered, []);
    assert.deepEqual(touched, []);
  });

  it('renders without options too', () => {
    assert.equal(renderToString(createElement(StorefrontAuthProvider, null, createElement(Account))), '<p data-has-login="function">state unknown, error null</p>');
    assert.deepEqual(touched, []);
  });

  it('refuses useStorefrontAuth outside a provider, saying what is missing', () => {
    assert.throws(() => renderToString(createElement(Account)), /needs a <StorefrontAuthProvider> above it/);
  });
});
