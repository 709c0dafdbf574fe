/**
 * Composes storefront-auth with Serwist (the maintained successor of Workbox): Serwist's `Serwist`
 * and `Router` accept only routes of their own `Route` class (an `instanceof` check), not Workbox's,
 * but they take a route's parts (a match callback, a handler, a method) as well. This hands them those.
 */
import type { Route } from 'workbox-routing/Route.js';
import type { HTTPMethod } from 'workbox-routing/utils/constants.js';
import type { RouteHandlerObject, RouteMatchCallback } from 'workbox-core/types.js';

/** What `installStorefrontAuth` needs of a router: Workbox's `Router` has it, `serwistRouter` makes one. */
export interface RouteRegistry {
  registerRoute(route: Route): void;
}

/** The part of a Serwist `Serwist` (or Serwist `Router`) that registers a route from its parts. */
export interface SerwistRoutes {
  registerRoute(capture: RouteMatchCallback, handler: RouteHandlerObject, method?: HTTPMethod): unknown;
}

/**
 * A router for `installStorefrontAuth({ router: serwistRouter(serwist) })` that registers each of
 * its routes on `serwist`, so one fetch listener (Serwist's) serves the app's routes and these.
 */
export function serwistRouter(serwist: SerwistRoutes): RouteRegistry {
  if (typeof serwist?.registerRoute !== 'function') {
    throw new TypeError('serwistRouter(serwist) needs a Serwist instance or Router: an object with registerRoute(capture, handler, method)');
  }
  return {
    // Workbox's Route already wrapped a handler function as { handle }, which Serwist accepts as it is.
    registerRoute: (route) => void serwist.registerRoute(route.match, route.handler, route.method),
  };
}
