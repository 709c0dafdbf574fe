/**
 * Wires storefront-auth into a service worker: Workbox routes for the requests it handles, and the
 * message listener for the bridge. Call it during the worker script's first evaluation (browsers
 * only deliver fetch and message events to listeners added then), before the app's own routes if
 * those could match the storefront API, since Workbox uses the first route that matches.
 */
import { Route } from 'workbox-routing/Route.js';
import { registerRoute } from 'workbox-routing/registerRoute.js';
import type { Router } from 'workbox-routing/Router.js';
import type { RouteHandlerCallback, RouteMatchCallback } from 'workbox-core/types.js';
import { postToWindows } from './announcer.js';
import { AuthWorker } from './authWorker.js';
import type { Decision } from './requestRules.js';
import { indexedDbStorage } from './credentialStorage.js';
import { listenForMessages, type ListenerOptions } from './messageListener.js';
import { resolveOptions, type StorefrontAuthOptions } from './options.js';

/**
 * What `installStorefrontAuth` needs of a router. Workbox's `Router` has it, and so has Serwist's
 * `Serwist` (9.5): its `registerRoute` checks a route's shape (`match`, `handler.handle`, `method`),
 * not its class, so it serves these Workbox routes through its own fetch listener.
 */
export interface RouteRegistry {
  registerRoute(route: Route): void;
}

/** `installStorefrontAuth`'s options: the worker options plus the Workbox router to register on. */
export interface InstallOptions extends StorefrontAuthOptions {
  /**
   * The app's Workbox `Router`, or a Serwist app's `Serwist` instance; Workbox's default router
   * (which listens for fetches) when absent.
   */
  router?: Router | RouteRegistry;
}

declare const self: ServiceWorkerGlobalScope;

/** Workbox routes are per method; these are the methods a storefront API is called with. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** Adds storefront-auth's routes and message listener to this worker; takes over nothing else. */
export function installStorefrontAuth(options: InstallOptions = {}): void {
  const { router } = options;
  install(options, router === undefined ? registerRoute : (route) => router.registerRoute(route), {});
}

/**
 * `installStorefrontAuth` on any router (the standalone worker keeps a private one, so it needs
 * neither Workbox's default router nor `registerRoute`), with the standalone worker's extra powers
 * (claiming pages on request).
 */
export function install(options: StorefrontAuthOptions, register: (route: Route) => void, listener: ListenerOptions): void {
  const scope = self;
  const resolved = resolveOptions(options, scope.location.href);
  // `worker` is only called back once the database is open, after the declaration below has run.
  const storage = indexedDbStorage(resolved.baseUrl, { lost: (how) => worker.forgetMemoryCopy(how), settleWrites: () => worker.settleWrites() });
  const worker = new AuthWorker(resolved, {
    // Called unbound: the worker's fetch throws "Illegal invocation" as a method of another object.
    fetch: (input, init) => scope.fetch(input, init),
    now: () => Date.now(),
    storage,
    toPages: postToWindows(scope.clients),
    log: resolved.debug ? (message) => console.debug(`[storefront-auth] ${message}`) : undefined,
  });
  const match: RouteMatchCallback = ({ request, url }) => worker.requests.match(request, url);
  // `params` is what `match` returned for this very request: its decision, or none (`true` arrives as undefined).
  const handler: RouteHandlerCallback = ({ request, url, params, event }) =>
    worker.requests.handle(request as Request, url, params as Decision | undefined, (work) => event.waitUntil(work));
  for (const method of METHODS) register(new Route(match, handler, method));
  listenForMessages(scope, worker, listener);
  // A new release waits for its first request to open the database (and so to upgrade its schema):
  // until it serves the pages, the release it replaces still uses the database. Browsers without
  // `self.serviceWorker` load at once.
  const state = (scope.serviceWorker as ServiceWorker | undefined)?.state;
  if (state === undefined || state === 'activated') worker.preload();
}
