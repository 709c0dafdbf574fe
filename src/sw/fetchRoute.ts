/**
 * Which fetches storefront-auth answers, independent of any router: the standalone worker's own
 * fetch listener uses it directly, and `installStorefrontAuth` registers the same match and answer
 * as Workbox routes on the app's router. The standalone worker has no other routes, so it leaves
 * Workbox's router out (about 0.9 KB gzip) and matches here as that router would.
 */
import type { KeepAlive, RequestPath } from './requestPath.js';
import type { Decision } from './requestRules.js';

/** The methods a storefront API is called with; Workbox routes are per method, so they name them. */
export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** The part of the request path a route needs. */
export type Answering = Pick<RequestPath, 'match' | 'handle'>;

/**
 * The request path's decision for `request`, in Workbox's `params` form: the decision, `undefined`
 * when it is made once the credentials are loaded (`match` said `true`), or `null` when
 * storefront-auth leaves the request alone, so that it never reaches `respondWith`.
 */
export function matchFetch(requests: Answering, request: Request, url: URL): Decision | undefined | null {
  if (!(METHODS as readonly string[]).includes(request.method)) return null;
  const matched = requests.match(request, url);
  return matched === true ? undefined : matched;
}

/** The response for a fetch event, or `undefined` to leave it to the browser (no `respondWith`). */
export function answerFetch(requests: Answering, request: Request, keepAlive: KeepAlive): Promise<Response> | undefined {
  const url = new URL(request.url);
  const decision = matchFetch(requests, request, url);
  return decision === null ? undefined : requests.handle(request, url, decision, keepAlive);
}
