/**
 * Starts storefront-auth in this service worker, whatever routes its fetches: the worker for one
 * base URL on IndexedDB, its message listener for the bridge, the early load of the credentials and,
 * with `offlineWrites`, the Background Sync listener that replays queued writes.
 * `installStorefrontAuth` then routes fetches to it with Workbox; the standalone worker with its own
 * fetch listener.
 */
import { DEBUG_BUILD } from '../shared/debugBuild.js';
import { postToWindows } from './announcer.js';
import { AuthWorker } from './authWorker.js';
import { databaseOpener, indexedDbStorage } from './credentialStorage.js';
import { workerFetch } from './outbound.js';
import { listenForMessages, type ListenerOptions } from './messageListener.js';
import { resolveOptions, type StorefrontAuthOptions } from './options.js';
import { indexedDbWrites } from './writeStore.js';

declare const self: ServiceWorkerGlobalScope;

/** Background Sync (Chromium): not in TypeScript's lib. */
interface SyncEvent extends ExtendableEvent {
  readonly tag: string;
}
interface SyncManager {
  register(tag: string): Promise<void>;
}

/** Creates and wires the worker; call it during the worker script's first evaluation. */
export function startAuthWorker(options: StorefrontAuthOptions, listener: ListenerOptions): AuthWorker {
  const scope = self;
  const resolved = resolveOptions(options, scope.location.href);
  // `worker` is only called back once the database is open, after the declaration below has run.
  const hooks = { lost: (how: 'deleted' | 'closed') => worker.forgetMemoryCopy(how), settleWrites: () => worker.settleWrites() };
  const open = databaseOpener(hooks);
  // One tag per base URL: the browser fires it once it is online, with or without a page open.
  const syncTag = `storefront-auth:${resolved.baseUrl}`;
  // One timer: the next replay is due when the queue's head's back-off ends, if the worker still runs then.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const worker = new AuthWorker(resolved, {
    fetch: workerFetch,
    now: () => Date.now(),
    storage: indexedDbStorage(resolved.baseUrl, hooks, open),
    toPages: postToWindows(scope.clients),
    // A production build has no log lines to send (debugBuild.ts); the standalone worker loads its debug build for `debug=1`.
    log: DEBUG_BUILD && resolved.debug ? (message) => console.debug(`[storefront-auth] ${message}`) : undefined,
    writes: indexedDbWrites(resolved.baseUrl, open),
    online: () => scope.navigator.onLine,
    requestSync: () => void (scope.registration as ServiceWorkerRegistration & { sync?: SyncManager }).sync?.register(syncTag).catch(() => {}),
    wakeIn: (ms, wake) => {
      clearTimeout(timer);
      timer = setTimeout(wake, ms);
    },
  });
  listenForMessages(scope, worker, listener);
  // Listeners must be added while the script first runs; with the option off there is nothing to replay.
  if (resolved.offlineWrites) {
    scope.addEventListener('sync', (event) => {
      const { tag } = event as SyncEvent;
      if (tag === syncTag) (event as SyncEvent).waitUntil(worker.writes?.sync() ?? Promise.resolve());
    });
  }
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
