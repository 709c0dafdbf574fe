// Settings that cannot work are refused at once, naming the setting, as StorefrontAuthErrors
// (docs/behaviour.md, "Configuration"); the drop-in never quietly drops the settings of its tag; a
// reply from the worker that is not one is a broken worker's.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { StorefrontAuth } from '../src/page/StorefrontAuth.js';
import { resolveOptions } from '../src/sw/options.js';
import { rejectsWith } from './fakes.js';

const PAGE = 'https://shop.example/products/1';
let registered: string[];
const restores: (() => void)[] = [];
function stand(name: string, value: unknown): void {
  const before = Object.getOwnPropertyDescriptor(globalThis, name);
  Object.defineProperty(globalThis, name, { value, configurable: true, writable: true });
  restores.push(() => (before === undefined ? delete (globalThis as Record<string, unknown>)[name] : Object.defineProperty(globalThis, name, before)));
}
beforeEach(() => {
  registered = [];
  const container = Object.assign(new EventTarget(), {
    controller: null,
    register: (url: string) => (registered.push(url), Promise.reject(new Error('not in Node'))),
    startMessages: () => {},
  });
  stand('location', { href: PAGE });
  stand('navigator', { serviceWorker: container });
  stand('isSecureContext', true);
  mock.method(console, 'warn', () => {});
});
afterEach(() => {
  mock.restoreAll();
  for (const restore of restores.splice(0).reverse()) restore();
});

describe('options of the wrong type', () => {
  it('bridge: a publishableKey or scope that is not a string is invalid_request naming it, not a TypeError', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ preset: 'spree-v3', publishableKey: 4242 }, 'publishableKey'],
      [{ publishableKey: true }, 'publishableKey'],
      [{ scope: 5 }, 'scope'],
    ];
    for (const [options, setting] of cases) {
      const error = await rejectsWith(StorefrontAuth.register(options as never), 'invalid_request');
      assert.ok(error.message.includes(setting), error.message);
    }
    assert.deepEqual(registered, []);
  });

  it('worker (installStorefrontAuth): a publishableKey that is not a string is invalid_request naming it, not a TypeError', () => {
    assert.throws(
      () => resolveOptions({ preset: 'spree-v3', publishableKey: 4242 as never }, 'https://shop.example/sw.js'),
      (error: Error & { code?: string }) => error.name === 'StorefrontAuthError' && error.code === 'invalid_request' && error.message.includes('publishableKey'),
    );
  });
});

describe('swUrl', () => {
  it('may be a URL, as a bundler makes one (new URL("./sw.js", import.meta.url))', async () => {
    await rejectsWith(StorefrontAuth.register({ swUrl: new URL('/assets/sw-1a2b.js', PAGE) }), 'no_service_worker');
    assert.equal(new URL(registered[0] ?? '').pathname, '/assets/sw-1a2b.js');
  });
});

describe('an http:// baseUrl on another origin, from an https:// site', () => {
  // Mixed content: the browser blocks the page's fetch to it before the worker sees it, and the
  // worker's own fetch to it too; every call would fail as "offline, or refused by CORS".
  it('bridge: invalid_request naming baseUrl, nothing registered', async () => {
    const error = await rejectsWith(StorefrontAuth.register({ baseUrl: 'http://api.shop.example/store' }), 'invalid_request');
    assert.ok(error.message.includes('baseUrl'), error.message);
    assert.deepEqual(registered, []);
  });

  it('bridge: still registers a loopback API (no mixed content there)', async () => {
    await rejectsWith(StorefrontAuth.register({ baseUrl: 'http://127.0.0.1:8787' }), 'no_service_worker');
    await rejectsWith(StorefrontAuth.register({ baseUrl: 'http://localhost:8787' }), 'no_service_worker');
    // The root's dot: Secure Contexts reads `localhost.` as `localhost`, and so do browsers.
    await rejectsWith(StorefrontAuth.register({ baseUrl: 'http://localhost.:8787' }), 'no_service_worker');
    assert.equal(registered.length, 3);
  });

  it('worker: a loopback API with the root\'s dot is not refused either', () => {
    assert.equal(resolveOptions({ baseUrl: 'http://localhost.:8787/store' }, 'https://shop.example/storefront-auth-sw.js').baseUrl, 'http://localhost.:8787/store');
  });

  it('worker: invalid_request naming baseUrl', () => {
    assert.throws(
      () => resolveOptions({ baseUrl: 'http://api.shop.example' }, 'https://shop.example/storefront-auth-sw.js'),
      (error: Error & { code?: string }) => error.name === 'StorefrontAuthError' && error.code === 'invalid_request' && error.message.includes('baseUrl'),
    );
  });
});

describe('an on/off option that is not true or false', () => {
  // `sealTokens: 'false'` (a value read from an attribute or an environment variable) would seal,
  // `offlineWrites: 'true'` would keep nothing: each quietly the opposite of what was written.
  for (const [name, value] of [['sealTokens', 'false'], ['offlineWrites', 'true'], ['registerWorker', 0], ['debug', 'yes']] as const) {
    it(`bridge: ${name}: ${JSON.stringify(value)} is invalid_request naming ${name}, nothing registered`, async () => {
      const error = await rejectsWith(StorefrontAuth.register({ [name]: value } as never), 'invalid_request');
      assert.ok(error.message.includes(name), error.message);
      assert.deepEqual(registered, []);
    });
  }

  for (const [name, value] of [['sealTokens', 'false'], ['offlineWrites', 1], ['debug', 'true']] as const) {
    it(`worker: ${name}: ${JSON.stringify(value)} is invalid_request naming ${name}`, () => {
      assert.throws(
        () => resolveOptions({ [name]: value } as never, 'https://shop.example/storefront-auth-sw.js'),
        (error: Error & { code?: string }) => error.name === 'StorefrontAuthError' && error.code === 'invalid_request' && error.message.includes(name),
      );
    });
  }

  it('true and false alike are taken, on both sides', async () => {
    for (const flag of [true, false]) {
      assert.equal(resolveOptions({ sealTokens: flag, offlineWrites: flag, debug: flag }, 'https://shop.example/storefront-auth-sw.js').sealTokens, flag);
      await rejectsWith(StorefrontAuth.register({ sealTokens: flag, offlineWrites: flag, debug: flag, registerWorker: true }), 'no_service_worker');
    }
    assert.equal(registered.length, 2);
  });
});

describe('the drop-in loaded by a tag of type="module"', () => {
  // A module script has no document.currentScript: its data-* attributes cannot be read that way.
  it('does not quietly register a worker for the page origin with the default preset: the console says why', async () => {
    const errors: string[] = [];
    const registeredHere: string[] = [];
    const tag = { dataset: { baseUrl: 'https://api.shop.example', preset: 'spree' }, type: 'module', src: 'https://shop.example/storefront-auth.js' };
    const serviceWorker = Object.assign(new EventTarget(), { controller: null, startMessages: () => {}, register: (url: string) => (registeredHere.push(url), Promise.reject(new Error('not in Node'))) });
    const context = vm.createContext({
      document: { currentScript: null, scripts: [tag], querySelector: () => tag, querySelectorAll: () => [tag], getElementsByTagName: () => [tag] },
      location: { href: 'https://shop.example/' },
      navigator: { serviceWorker },
      isSecureContext: true,
      console: { error: (...args: unknown[]) => errors.push(args.join(' ')), warn: () => {} },
      EventTarget, CustomEvent, URL, setTimeout, clearTimeout,
      addEventListener: () => {},
    });
    vm.runInContext('globalThis.window = globalThis;', context);
    vm.runInContext(readFileSync(fileURLToPath(new URL('../dist/storefront-auth.js', import.meta.url)), 'utf8'), context, { filename: 'storefront-auth.js' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const wrong = registeredHere.filter((url) => new URL(url).searchParams.get('base') === 'https://shop.example');
    assert.ok(wrong.length === 0 || errors.some((line) => line.startsWith('storefront-auth:')), `registered ${registeredHere.join(', ')} and logged ${JSON.stringify(errors)}`);
  });
  it('registers nothing and says why when it cannot tell its tag among several', async () => {
    const errors: string[] = [];
    const registeredHere: string[] = [];
    const tags = [
      { dataset: { baseUrl: 'https://api.shop.example' }, type: 'module', src: 'https://shop.example/storefront-auth.js' },
      { dataset: { baseUrl: 'https://other.example' }, type: 'module', src: 'https://shop.example/app.js' },
    ];
    const serviceWorker = Object.assign(new EventTarget(), { controller: null, startMessages: () => {}, register: (url: string) => (registeredHere.push(url), Promise.reject(new Error('not in Node'))) });
    const context = vm.createContext({
      document: { currentScript: null, querySelectorAll: () => tags },
      location: { href: 'https://shop.example/' },
      navigator: { serviceWorker },
      isSecureContext: true,
      console: { error: (...args: unknown[]) => errors.push(args.join(' ')), warn: () => {} },
      EventTarget, CustomEvent, URL, setTimeout, clearTimeout,
      addEventListener: () => {},
    });
    vm.runInContext('globalThis.window = globalThis;', context);
    vm.runInContext(readFileSync(fileURLToPath(new URL('../dist/storefront-auth.js', import.meta.url)), 'utf8'), context, { filename: 'storefront-auth.js' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(registeredHere, []);
    assert.equal(vm.runInContext('typeof storefrontAuth', context), 'undefined');
    assert.ok(errors.some((line) => line.startsWith('storefront-auth:') && line.includes('type="module"')), JSON.stringify(errors));
  });
});

describe('a malformed reply from the worker', () => {
  // isWorkerReply checks the state but not changeId nor warning: a reply without changeId (or with
  // a number) is taken as a change, and the page gets a `change` event for a getState.
  it('is bad_response, not a change event', async () => {
    const { MESSAGE_TAG, PROTOCOL_VERSION } = await import('../src/shared/protocol.js');
    const worker = Object.assign(new EventTarget(), {
      scriptURL: '',
      state: 'activated',
      postMessage: (_request: unknown, ports?: MessagePort[]) => {
        // No changeId, and a warning that is no SerializedError.
        ports?.[0]?.postMessage({ tag: MESSAGE_TAG, v: PROTOCOL_VERSION, ok: true, state: { signedIn: false, accessTokenExpiresAt: null, cart: null, pendingWrites: 0 }, warning: 'x' });
      },
    });
    const fake = Object.assign(new EventTarget(), {
      controller: null as typeof worker | null,
      startMessages: () => {},
      register: async (url: string) => {
        worker.scriptURL = url;
        queueMicrotask(() => {
          fake.controller = worker;
          fake.dispatchEvent(new Event('controllerchange'));
        });
        return { installing: null, waiting: null, active: worker };
      },
    });
    stand('navigator', { serviceWorker: fake });
    const bridge = await StorefrontAuth.register();
    const events: unknown[] = [];
    bridge.addEventListener('change', (event) => events.push((event as CustomEvent).detail));
    let outcome: string;
    try {
      await bridge.getState();
      outcome = 'resolved';
    } catch (error) {
      outcome = (error as { code?: string }).code ?? String(error);
    }
    assert.deepEqual({ outcome, events }, { outcome: 'bad_response', events: [] });
  });
});
