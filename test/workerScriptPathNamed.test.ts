// README, "When things go wrong": a failed method rejects with "a message naming the setting to
// check, in the production build too". A worker script that is not where the bridge registers it
// (not copied to the site's root, or swUrl / data-sw pointing at the wrong path: the browser's
// `register` rejects with "A bad HTTP response code (404) was received when fetching the script")
// must name the setting that says where the script is: `swUrl`.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, it } from 'node:test';
import { StorefrontAuth } from '../src/page/StorefrontAuth.js';
import { rejectsWith } from './fakes.js';

const restores: (() => void)[] = [];
function stand(name: string, value: unknown): void {
  const before = Object.getOwnPropertyDescriptor(globalThis, name);
  Object.defineProperty(globalThis, name, { value, configurable: true, writable: true });
  restores.push(() => (before === undefined ? delete (globalThis as Record<string, unknown>)[name] : Object.defineProperty(globalThis, name, before)));
}
beforeEach(() => {
  const container = Object.assign(new EventTarget(), {
    controller: null,
    startMessages: () => {},
    // What Chromium rejects `register` with when the script answers 404.
    register: (url: string) => Promise.reject(new TypeError(`Failed to register a ServiceWorker for scope ('https://shop.example/') with script ('${url}'): A bad HTTP response code (404) was received when fetching the script.`)),
  });
  stand('location', { href: 'https://shop.example/' });
  stand('navigator', { serviceWorker: container });
  stand('isSecureContext', true);
});
afterEach(() => {
  for (const restore of restores.splice(0).reverse()) restore();
});

it('a worker script answered 404 (the default path, or a wrong swUrl) is told naming swUrl', async () => {
  for (const options of [{ baseUrl: 'https://api.shop.example' }, { baseUrl: 'https://api.shop.example', swUrl: '/assets/storefront-auth-sw.js' }]) {
    const error = await rejectsWith(StorefrontAuth.register(options), 'no_service_worker');
    assert.match(error.message, /\bswUrl\b/, error.message);
  }
});
