/**
 * The Workbox routes through which fetches reach storefront-auth, the same in both entry points:
 * `installStorefrontAuth` registers them on the app's router, the standalone worker on a `Router`
 * of its own. A request they do not match gets no route, and Workbox's `Router` then does not call
 * `respondWith`: the browser sends it untouched (docs/behaviour.md, "What the worker does to
 * requests").
 */
import { Route } from 'workbox-routing/Route.js';
import type { RouteHandlerCallback, RouteMatchCallback } from 'workbox-core/types.js';
import type { PageDecision, RequestPath } from './requestPath.js';

/** The methods a storefront API is called with; Workbox routes are per method, so they name them. */
export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** The part of the request path the routes need. */
export type Answering = Pick<RequestPath, 'match' | 'handle'>;

/** One route per method, matching and answering as the request path decides. */
export function workboxRoutes(requests: Answering): Route[] {
  // `null` (leave it alone) is falsy, so Workbox finds no route; a decision or `true` (decide once
  // the credentials are loaded) matches.
  const match: RouteMatchCallback = ({ request, url }) => requests.match(request, url);
  // `params` is what `match` returned for this very request: its decision, or none (Workbox hands
  // `true` on as undefined), which `handle` then makes once the credentials are loaded.
  const handler: RouteHandlerCallback = ({ request, url, params, event }) =>
    requests.handle(request as Request, url, params as PageDecision | undefined, (work) => event.waitUntil(work));
  return METHODS.map((method) => new Route(match, handler, method));
}
