// The bridge refuses a configuration that cannot work before it registers anything: a base URL
// without its scheme and a publishable key that is not one are `invalid_request`, a page outside
// the registration's scope is `no_service_worker` with a console warning that its calls go out
// without credentials. In Node, where nothing could register: what matters is the code, the message
// and that no registration was attempted (the fake container records every `register`).
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { StorefrontAuth } from '../src/page/StorefrontAuth.js';
import { rejectsWith } from './fakes.js';

const PAGE = 'https://shop.example/products/1';
let registered: string[];
let warnings: string[];

/** Sets `globalThis[name]` for one test; `afterEach` puts back what was there. */
const restores: (() => void)[] = [];
function stand(name: string, value: unknown): void {
  const before = Object.getOwnPropertyDescriptor(globalThis, name);
  Object.defineProperty(globalThis, name, { value, configurable: true, writable: true });
  restores.push(() => (before === undefined ? delete (globalThis as Record<string, unknown>)[name] : Object.defineProperty(globalThis, name, before)));
}

beforeEach(() => {
  registered = [];
  warnings = [];
  const container = Object.assign(new EventTarget(), {
    controller: null,
    // Refused, so that the bridge's wait ends at once and leaves no 10 s timer behind.
    register: (url: string) => (registered.push(url), Promise.reject(new Error('not in Node'))),
    startMessages: () => {},
  });
  stand('location', { href: PAGE });
  stand('navigator', { serviceWorker: container });
  stand('isSecureContext', true);
  mock.method(console, 'warn', (message: string) => warnings.push(message));
});
afterEach(() => {
  mock.restoreAll();
  for (const restore of restores.splice(0).reverse()) restore();
});

describe('StorefrontAuth.register waits for its own worker', () => {
  it('registered from a swUrl with a fragment, which a browser drops from the script URL it keeps', async () => {
    const container = Object.assign(new EventTarget(), {
      controller: null as { scriptURL: string } | null,
      startMessages: () => {},
      register: async (url: string) => {
        registered.push(url);
        const worker = Object.assign(new EventTarget(), { scriptURL: url.replace(/#.*$/, ''), state: 'activated', postMessage: () => {} });
        // The standalone worker claims the page as it activates.
        queueMicrotask(() => {
          container.controller = worker;
          container.dispatchEvent(new Event('controllerchange'));
        });
        return { installing: null, waiting: null, active: worker };
      },
    });
    stand('navigator', { serviceWorker: container });
    const bridge = await StorefrontAuth.register({ swUrl: '/storefront-auth-sw.js#v2' });
    assert.equal(bridge.baseUrl, 'https://shop.example');
    assert.ok(!registered[0]?.includes('#'), registered[0]);
  });
});

describe('StorefrontAuth.register refuses at once, registering nothing', () => {
  it('where reading navigator.serviceWorker throws (a sandboxed frame): a rejection with no_service_worker, not a throw', async () => {
    stand('navigator', {
      get serviceWorker(): never {
        throw new DOMException('Service worker is disabled because the context is sandboxed', 'SecurityError');
      },
    });
    let registering: Promise<unknown> | undefined;
    assert.doesNotThrow(() => (registering = StorefrontAuth.register()));
    await rejectsWith(registering!, 'no_service_worker');
  });

  it('a base URL without http:// or https://, naming baseUrl and the value', async () => {
    for (const baseUrl of ['127.0.0.1:8790', 'api.shop.example/store']) {
      const error = await rejectsWith(StorefrontAuth.register({ baseUrl }), 'invalid_request');
      assert.ok(error.message.startsWith(`baseUrl ${JSON.stringify(baseUrl)} is not an http:// or https:// URL`), error.message);
    }
    assert.deepEqual(registered, []);
  });

  it('a swUrl that is no URL, naming swUrl and the value: a StorefrontAuthError, not the URL parser\'s TypeError', async () => {
    // An empty one would resolve to the page itself, which the browser would fetch as the worker's script.
    for (const swUrl of ['//', 'https://', 'https://cdn example/sw.js', 'https://shop.example:99999/sw.js', '', ' ']) {
      const bridge = new StorefrontAuth({ swUrl });
      const error = await rejectsWith(bridge.ready, 'invalid_request');
      assert.equal(error.message, `swUrl ${JSON.stringify(swUrl)} is not a URL.`);
      await rejectsWith(bridge.getState(), 'invalid_request');
    }
    assert.deepEqual(registered, []);
  });

  it('a publishable key left as a placeholder or holding whitespace, naming publishableKey', async () => {
    for (const publishableKey of ['%VITE_SPREE_PUBLISHABLE_KEY%', '${SPREE_KEY}', 'pk_abc def']) {
      const error = await rejectsWith(StorefrontAuth.register({ preset: 'spree-v3', publishableKey }), 'invalid_request');
      assert.ok(error.message.startsWith(`publishableKey ${JSON.stringify(publishableKey)} is not a key`), error.message);
    }
    assert.deepEqual(registered, []);
  });

  it('an empty scope, which would resolve to this page alone (a registration, and a worker, per page), naming scope', async () => {
    for (const scope of ['', ' ']) {
      const error = await rejectsWith(StorefrontAuth.register({ scope }), 'invalid_request');
      assert.equal(error.message, `scope ${JSON.stringify(scope)} is not a path.`);
    }
    assert.deepEqual(registered, []);
    assert.deepEqual(warnings, []);
  });

  it("a page outside the scope, naming the scope and Service-Worker-Allowed, and warning that calls go out without credentials", async () => {
    const error = await rejectsWith(StorefrontAuth.register({ scope: '/js/', swUrl: '/js/storefront-auth-sw.js' }), 'no_service_worker');
    assert.match(error.message, /scope https:\/\/shop\.example\/js\//);
    assert.match(error.message, /Service-Worker-Allowed/);
    assert.deepEqual(registered, []);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] ?? '', /^storefront-auth: .*without credentials/);
  });

  it('but registers a page in scope, with the key trimmed in the worker URL', async () => {
    await rejectsWith(StorefrontAuth.register({ preset: 'spree-v3', publishableKey: ' pk_test\n', scope: '/products/' }), 'no_service_worker');
    assert.equal(registered.length, 1);
    assert.equal(new URL(registered[0] ?? '').searchParams.get('key'), 'pk_test');
    assert.deepEqual(warnings, []);
  });
});
