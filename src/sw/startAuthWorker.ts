/**
 * Starts storefront-auth in this service worker, whatever routes its fetches: the worker for one
 * base URL on IndexedDB, its message listener for the bridge, and the load of the credentials soon after.
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

/**
 * How long after its start an active worker loads the credentials by itself, if no request or
 * message has loaded them first. Chromium starts a stopped worker beside every navigation its static
 * routes send to the network (staticRoutes.ts), and an IndexedDB open and read at once ran beside
 * that page load: it cost the document about 10 % (bench, issue 24). Not loading until first use
 * cost the page's first cart call the read instead (+2 to 3 ms). By this delay a page's document is
 * in, and the storefront calls its scripts make then find the credentials in memory.
 */
export const PRELOAD_DELAY_MS = 100;

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
  // A new release waits for its first request to open the database (and so to upgrade its schema):
  // until it serves the pages, the release it replaces still uses the database. Browsers without
  // `self.serviceWorker` load too.
  const state = (scope.serviceWorker as ServiceWorker | undefined)?.state;
  if (state === undefined || state === 'activated') setTimeout(() => worker.preload(), PRELOAD_DELAY_MS);
  return worker;
}
