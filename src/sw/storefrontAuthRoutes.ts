/**
 * The static routes for storefront-auth's options, for a worker's `install` handler. The standalone
 * worker adds them itself; `installStorefrontAuth` adds none (the app owns its install) and an app
 * adds them in its own handler, after the rules for what its worker serves (docs/behaviour.md,
 * "Page loads do not wait for the worker").
 */
import { DEBUG_BUILD } from '../shared/debugBuild.js';
import { resolveOptions, type StorefrontAuthOptions } from './options.js';
import { staticRoutes, type RouterRule } from './staticRoutes.js';

declare const self: ServiceWorkerGlobalScope;

/**
 * The rules for `InstallEvent.addRoutes`: navigations, other origins and every path that gets no
 * credential go straight to the network; only the storefront paths under `baseUrl` start the worker.
 * The last rule sends everything else to the network, so an app adds its own rules first (say,
 * `{ condition: { urlPattern: { pathname: '/*' } }, source: 'fetch-event' }` for its precached files).
 */
export function storefrontAuthRoutes(options: StorefrontAuthOptions = {}): RouterRule[] {
  const { base, dialect } = resolveOptions(options, self.location.href);
  return staticRoutes(base, dialect.routePrefixes);
}

/** An install event of a browser with static routing (Chromium 123 and later). */
interface RoutingInstallEvent extends ExtendableEvent {
  addRoutes(rules: RouterRule | RouterRule[]): Promise<void>;
}

/**
 * Adds `rules` where the browser has static routing, and nothing elsewhere. A browser that refuses
 * them leaves the worker as it was without them, its fetch handler serving everything: the install
 * goes on, and the debug build says why.
 */
export function addStaticRoutes(event: ExtendableEvent, rules: RouterRule[], log?: (message: string) => void): void {
  if (!('addRoutes' in event)) return;
  let added: Promise<void>;
  try {
    // Called during the event's dispatch, where the spec allows it.
    added = (event as RoutingInstallEvent).addRoutes(rules);
  } catch (error) {
    added = Promise.reject(error);
  }
  // Waited for, but never failing the install.
  event.waitUntil(
    added.catch((error: unknown) => {
      if (DEBUG_BUILD) log?.(`static routes refused, every request reaches the fetch handler: ${String(error)}`);
    }),
  );
}
