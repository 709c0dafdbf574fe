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
import { METHODS } from './fetchRoute.js';
import type { Decision } from './requestRules.js';
import type { StorefrontAuthOptions } from './options.js';
import { startAuthWorker } from './startAuthWorker.js';

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

/** Adds storefront-auth's routes and message listener to this worker; takes over nothing else. */
export function installStorefrontAuth(options: InstallOptions = {}): void {
  const { router } = options;
  const register = router === undefined ? registerRoute : (route: Route) => router.registerRoute(route);
  const { requests } = startAuthWorker(options, {});
  const match: RouteMatchCallback = ({ request, url }) => requests.match(request, url);
  // `params` is what `match` returned for this very request: its decision, or none (`true` arrives as
  // undefined), as `matchFetch` (fetchRoute.ts) hands it to the standalone worker's listener.
  const handler: RouteHandlerCallback = ({ request, url, params, event }) =>
    requests.handle(request as Request, url, params as Decision | undefined, (work) => event.waitUntil(work));
  for (const method of METHODS) register(new Route(match, handler, method));
}
