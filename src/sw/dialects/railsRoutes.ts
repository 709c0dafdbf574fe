/**
 * How the servers of every preset route a path: Spree (v2's Storefront API and Spree 5's Store API)
 * and Doorkeeper are Rails applications, and Rails normalises a path before it routes it.
 */

/**
 * `path` as Rails routes it (ActionDispatch, `Journey::Router::Utils.normalize_path`): runs of `/`
 * squeezed and a trailing `/` dropped, so that `POST /api/v2/storefront/cart/` is the cart creation
 * Spree takes it for and `//store_oauth/token` the token grant. A format extension goes too: every
 * route of Spree and Doorkeeper ends in Rails' optional `(.:format)` (a segment of anything but `/`,
 * `.` and `?`), so `POST /spree_oauth/token.json` is the token grant. For classification only: the
 * request goes out as the page wrote it.
 */
export function routedPath(path: string): string {
  // A page asks for the same few paths again and again, and each call reads its path here once or twice.
  if (path === last[0]) return last[1];
  const routed = path
    .replace(/\/+/g, '/')
    .replace(/\/$/, '')
    .replace(/([^/])\.[^/.]+$/, '$1');
  last = [path, routed];
  return routed;
}

/** The last path `routedPath` read, and how Rails routes it. */
let last: readonly [path: string, routed: string] = ['', ''];
