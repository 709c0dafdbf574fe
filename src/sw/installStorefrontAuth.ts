/**
 * Wires storefront-auth into a service worker: Workbox routes for the requests it handles, and the
 * message listener for the bridge. Call it during the worker script's first evaluation (browsers
 * only deliver fetch and message events to listeners added then), before the app's own routes if
 * those could match the storefront API, since Workbox uses the first route that matches.
 */
import type { Route } from 'workbox-routing/Route.js';
import { registerRoute } from 'workbox-routing/registerRoute.js';
import type { Router } from 'workbox-routing/Router.js';
import { notABooleanRefusal } from '../shared/baseUrl.js';
import { StorefrontAuthError } from '../shared/errors.js';
import type { StorefrontAuthOptions } from './options.js';
import { startAuthWorker } from './startAuthWorker.js';
import { workboxRoutes } from './workboxRoutes.js';

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
  /**
   * Takes control of a page that asks for it: one loaded by a hard reload (Shift+Reload), which
   * bypasses service workers, so it starts uncontrolled and its calls carry no credential. Off by
   * default, since the app's worker decides its own life cycle; for a worker that claims pages
   * when it activates anyway (Workbox's `clientsClaim()`).
   */
  claimPages?: boolean;
}

/**
 * Adds storefront-auth's routes and message listener to this worker; takes over nothing else. It
 * adds no static routes (the app owns its install): `storefrontAuthRoutes` gives them to the app.
 */
export function installStorefrontAuth(options: InstallOptions = {}): void {
  const { router, claimPages } = options;
  // Read from an environment variable, `claimPages: 'true'` would quietly claim nothing, as the worker's own on/off options would.
  const refusal = notABooleanRefusal(options, 'claimPages');
  if (refusal !== null) throw new StorefrontAuthError('invalid_request', `storefront-auth: ${refusal}`);
  const register = router === undefined ? registerRoute : (route: Route) => router.registerRoute(route);
  const scope = self as unknown as ServiceWorkerGlobalScope;
  const { requests } = startAuthWorker(options, claimPages === true ? { claim: () => scope.clients.claim() } : {});
  for (const route of workboxRoutes(requests)) register(route);
}
