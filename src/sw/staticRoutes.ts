/**
 * The static routes of Chromium's static routing API (`InstallEvent.addRoutes`, Chrome 123), which
 * the browser evaluates before it starts the worker: every request the worker would never touch
 * goes straight to the network, so page loads never wait for a stopped worker (docs/behaviour.md,
 * "Page loads do not wait for the worker"). A pure function of the base and the path prefixes,
 * tested in Node.
 *
 * The rule syntax, as Chromium implements it: the first rule whose condition matches wins, and a
 * request no rule matches goes to the fetch handler. A condition's keys must all match; `or` (Chrome
 * 123) stands alone in its condition; `not` came only in Chrome 127, so these rules do without it,
 * and without regular-expression groups in a URL pattern, which Chromium refuses. Chromium limits a
 * worker's rules to 1024 conditions in all, nested at most 10 deep: these use 3 per prefix and at most 6 more.
 */

/** A source of the static routing API: where a matching request is answered from. */
export type RouterSource = 'network' | 'fetch-event' | 'cache' | 'race-network-and-fetch-handler';

/** A URL pattern as a `URLPatternInit` dictionary; a component left out inherits from the worker's URL, or is `*` once one left of it is given. */
export interface RouterUrlPattern {
  protocol?: string;
  hostname?: string;
  port?: string;
  pathname?: string;
}

/** A condition of the static routing API (the ServiceWorker spec's `RouterCondition`). */
export interface RouterCondition {
  urlPattern?: RouterUrlPattern | string;
  requestMode?: RequestMode;
  requestMethod?: string;
  requestDestination?: RequestDestination;
  runningStatus?: 'running' | 'not-running';
  or?: RouterCondition[];
  not?: RouterCondition;
}

/** One rule of `InstallEvent.addRoutes`. */
export interface RouterRule {
  condition: RouterCondition;
  source: RouterSource;
}

/** The base URL as the worker resolves it: origin, and path without a trailing slash. */
export interface RouteBase {
  origin: string;
  path: string;
  /** True when the base is on the worker's own origin: a no-cors request to it is then readable by the page. */
  sameOrigin?: boolean;
}

/**
 * The rules for a worker that touches only requests under `base` whose path (relative to the base)
 * is one of `prefixes` or below one on a segment boundary, as requestRules.ts matches them:
 *  1. navigations go to the network, and so do no-cors requests where the base is on another
 *     origin (their answers are opaque to the page, and they cannot carry a header); a same-origin
 *     no-cors request is read by the page, so the worker handles it under a storefront prefix;
 *  2. the storefront prefixes under the base reach the fetch handler, and so does a path under the
 *     base holding `//`;
 *  3. everything else goes to the network: other origins, the site's own files, and the paths
 *     under the base that get nothing.
 */
export function staticRoutes(base: RouteBase, prefixes: readonly string[]): RouterRule[] {
  const { protocol, hostname, port } = new URL(base.origin);
  const origin = { protocol: protocol.slice(0, -1), hostname: escapePattern(hostname), port };
  const storefront = [...new Set(prefixes)].flatMap((prefix): RouterCondition[] => {
    const pathname = escapePattern(base.path + prefix);
    // The prefix itself and anything below it; never a longer segment (`/cartography`). With a
    // format extension too, which the servers route as the prefix itself (dialects/railsRoutes.ts).
    return [{ urlPattern: { ...origin, pathname } }, { urlPattern: { ...origin, pathname: `${pathname}/*` } }, { urlPattern: { ...origin, pathname: `${pathname}.*` } }];
  });
  // A path holding `//`, which Rails routes as if squeezed (requestRules.ts `routedPath`,
  // `squeezedUnderBase`): it may be a grant or a creation under no prefix as written, and a run before
  // or inside the base path (`//store/store_oauth/token` for `/store`) is under the base to the
  // servers too. (Any other path holding `//` reaches the handler as well, which leaves it alone.)
  if (storefront.length > 0) storefront.push({ urlPattern: { ...origin, pathname: '*//*' } });
  return [
    { condition: base.sameOrigin === true ? { requestMode: 'navigate' } : { or: [{ requestMode: 'navigate' }, { requestMode: 'no-cors' }] }, source: 'network' },
    ...(storefront.length === 0 ? [] : [{ condition: { or: storefront }, source: 'fetch-event' } satisfies RouterRule]),
    // Every URL of every origin, each component named so that none inherits the worker's origin.
    { condition: { urlPattern: { protocol: '*', hostname: '*', port: '*', pathname: '*' } }, source: 'network' },
  ];
}

/** `text` with URL pattern syntax (`:name`, `*`, groups, modifiers) escaped, so that it matches itself only. */
export function escapePattern(text: string): string {
  return text.replace(/[\\:*(){}+?]/g, '\\$&');
}
