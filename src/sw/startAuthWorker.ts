/**
 * Starts storefront-auth in this service worker, whatever routes its fetches: the worker for one
 * base URL on IndexedDB, its message listener for the bridge, and the early load of the credentials.
 * `installStorefrontAuth` then routes fetches to it with Workbox; the standalone worker with its own
 * fetch listener.
 */
import { DEBUG_BUILD } from '../shared/debugBuild.js';
import { postToWindows } from './announcer.js';
import { AuthWorker } from './authWorker.js';
import { indexedDbStorage } from './credentialStorage.js';
import { workerFetch } from './outbound.js';
import { listenForMessages, type ListenerOptions } from './messageListener.js';
import { resolveOptions, type StorefrontAuthOptions } from './options.js';

declare const self: ServiceWorkerGlobalScope;

/** Creates and wires the worker; call it during the worker script's first evaluation. */
export function startAuthWorker(options: StorefrontAuthOptions, listener: ListenerOptions): AuthWorker {
  const scope = self;
  const resolved = resolveOptions(options, scope.location.href);
  // `worker` is only called back once the database is open, after the declaration below has run.
  const storage = indexedDbStorage(resolved.baseUrl, { lost: (how) => worker.forgetMemoryCopy(how), settleWrites: () => worker.settleWrites() });
  const worker = new AuthWorker(resolved, {
    fetch: workerFetch,
    now: () => Date.now(),
    storage,
    toPages: postToWindows(scope.clients),
    // A production build has no log lines to send (debugBuild.ts); the standalone worker loads its debug build for `debug=1`.
    log: DEBUG_BUILD && resolved.debug ? (message) => console.debug(`[storefront-auth] ${message}`) : undefined,
  });
  listenForMessages(scope, worker, listener);
  // An active worker loads at once: a worker started for a storefront call then reads IndexedDB while
  // the browser is still dispatching that call's fetch event. Loading 100 ms later instead, so as not
  // to run beside a page load Chromium starts the worker for, cost that first call about 1.3 ms and
  // gained the page load nothing measurable (interleaved A/B; docs/performance.md).
  // A new release waits for its first request to open the database (and so to upgrade its schema):
  // until it serves the pages, the release it replaces still uses the database. Browsers without
  // `self.serviceWorker` load at once.
  const state = (scope.serviceWorker as ServiceWorker | undefined)?.state;
  if (state === undefined || state === 'activated') worker.preload();
  return worker;
}
