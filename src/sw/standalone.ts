/**
 * The standalone worker, `dist/storefront-auth-sw.js`: reads its options from its own URL
 * (`?base=…&preset=…`), and takes control of the page that registered it without a reload. Fetches
 * reach it through Workbox's `Router` and the same routes as `installStorefrontAuth`'s; where the
 * browser has static routing, only the storefront's paths start it at all (staticRoutes.ts).
 *
 * The production build carries codes and short messages only (debugBuild.ts); with `debug=1` in its
 * URL it runs the debug build beside it, `storefront-auth-sw.debug.js`, instead of itself, as
 * Workbox's loader picks its `.dev.js` files for `debug: true`.
 */
import { Router } from 'workbox-routing/Router.js';
import { DEBUG_BUILD } from '../shared/debugBuild.js';
import { isStorefrontAuthError } from '../shared/errors.js';
import { optionsFromQuery } from './options.js';
import { startAuthWorker } from './startAuthWorker.js';
import { staticRoutes } from './staticRoutes.js';
import { addStaticRoutes } from './storefrontAuthRoutes.js';
import { workboxRoutes } from './workboxRoutes.js';

declare const self: ServiceWorkerGlobalScope;

/** The debug build's file name; it must sit beside the production worker. */
const DEBUG_SCRIPT = 'storefront-auth-sw.debug.js';

const scope = self;
const options = optionsFromQuery(scope.location.search);

try {
  if (DEBUG_BUILD || options.debug !== true || !runDebugBuild()) start();
} catch (error) {
  // A refused setting is named as the site wrote it, in this worker's URL (`base "…"`), not as
  // installStorefrontAuth's option: the name before its quoted value, or (the production build's
  // message for a missing key) the whole message after the prefix.
  if (isStorefrontAuthError(error)) error.message = error.message.replace(/baseUrl(?= ")/, 'base').replace(/publishableKey(?= "|$)/, 'key');
  throw error;
}

function start(): void {
  const claim = (): Promise<void> => scope.clients.claim();
  const { requests, options: resolved } = startAuthWorker(options, { claim });
  const log = DEBUG_BUILD && resolved.debug ? (message: string) => console.debug(`[storefront-auth] ${message}`) : undefined;
  const router = new Router();
  for (const route of workboxRoutes(requests)) router.registerRoute(route);
  if (DEBUG_BUILD && log !== undefined) {
    // Counted in the debug log, so that a test can tell which requests still start the worker.
    let fetchEvents = 0;
    scope.addEventListener('fetch', (event) => log(`fetch event ${++fetchEvents}: ${event.request.method} ${new URL(event.request.url).pathname}`));
  }
  // No route matches a request that needs nothing, and Router then does not call respondWith.
  router.addFetchListener();
  scope.addEventListener('install', (event) => {
    // Fixed at install: a change of base or preset is a new worker URL (its query), so a new version with its own routes.
    addStaticRoutes(event, staticRoutes(resolved.base, resolved.dialect.routePrefixes), log);
    void scope.skipWaiting();
  });
  scope.addEventListener('activate', (event) => event.waitUntil(claim()));
}

/**
 * Runs the debug build in this worker (`importScripts` keeps `self.location`, so it reads the same
 * query); false when it cannot be fetched, and this build then serves without the log.
 */
function runDebugBuild(): boolean {
  try {
    scope.importScripts(new URL(DEBUG_SCRIPT, scope.location.href).href);
    return true;
  } catch (error) {
    // A script that fails to load throws a NetworkError; one that throws while it runs is not caught here.
    if (!(error instanceof DOMException && error.name === 'NetworkError')) throw error;
    console.warn(`storefront-auth: debug=1 needs ${DEBUG_SCRIPT} beside this worker`);
    return false;
  }
}
