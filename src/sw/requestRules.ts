/**
 * Which credential a request gets (docs/behaviour.md, "What the worker does to requests"), as pure
 * functions of the URL, the method and the credentials held, so they are tested in Node.
 */
import type { RequestKind } from './dialect.js';
import { routedPath } from './dialects/railsRoutes.js';
import type { ResolvedOptions } from './options.js';

export type { RequestKind };

/**
 * The credential the worker adds: the bearer, the cart token (in the dialect's header), or both,
 * where the dialect sends a signed-in shopper's cart calls with the cart token too (v3).
 */
export type Credential = 'bearer' | 'orderToken' | 'bearer+orderToken';

/** What the worker does with a request. */
export interface Decision {
  kind: RequestKind;
  /** The credential to add, or `null` to add none. */
  credential: Credential | null;
  /** Keep the cart token (`cart`) or the OAuth pair (`token`) from a successful response. */
  capture: 'cart' | 'token' | null;
}

/** The credentials held, reduced to what the decision needs. */
export interface HeldCredentials {
  signedIn: boolean;
  hasCart: boolean;
}

/** Which credential headers the page set itself; the page's own value always wins. */
export interface PageHeaders {
  authorization: boolean;
  orderToken: boolean;
}

/**
 * The path of `url` relative to the base, or `null` when `url` is not under the base: another
 * origin, or a path that only starts with the base path's text (`/store` never matches `/storefront`).
 */
export function pathUnderBase(url: Pick<URL, 'origin' | 'pathname'>, base: ResolvedOptions['base']): string | null {
  if (url.origin !== base.origin) return null;
  if (base.path === '') return url.pathname;
  if (url.pathname === base.path) return '';
  return url.pathname.startsWith(base.path + '/') ? url.pathname.slice(base.path.length) : null;
}

/**
 * The path of `url` under the base once runs of `/` are squeezed, as Rails (`normalize_path`),
 * Rack's `URLMap` and nginx (`merge_slashes`) route it: a `//` run before or inside the base path
 * (`//store/store_oauth/token` for the base `/store`) is under the base too. Judging only: a request
 * under the base this way alone gets no credential (`classifyRequest`).
 */
export function squeezedUnderBase(url: URL, base: ResolvedOptions['base']): string | null {
  return pathUnderBase({ origin: url.origin, pathname: url.pathname.replace(/\/+/g, '/') }, base);
}

/** True when `path` is `prefix` or below it on a segment boundary (`/cart`, `/cart/x`, never `/cartography`). */
export function isUnderPrefix(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(prefix + '/');
}

/**
 * True when a server may read `path` (a path under the base) as another path than the worker does:
 * a percent-encoded `/`, `\` or `.` (either case), or a `;` path parameter. Browsers send `..%2F` as
 * it is, but proxies (nginx) and frameworks decode it and resolve the `..`, and some treat `;` as
 * the end of a segment, so such a request may land outside the base URL after the worker judged it
 * inside. One scan for `%` and `;` on the warm path; the pattern runs only on a path holding `%`.
 */
export function mayDecodeElsewhere(path: string): boolean {
  return path.includes(';') || (path.includes('%') && ENCODED_SEPARATOR.test(path));
}

/** `%2F` (`/`), `%5C` (`\`) and `%2E` (`.`), in either case. */
const ENCODED_SEPARATOR = /%(?:2f|5c|2e)/i;

/**
 * Classifies a request by URL and method alone, in the dialect's terms; `null` means the worker
 * leaves it alone: outside the base URL, or a path a server may decode into another one, which goes
 * out as the page wrote it, with no credential and no placeholder swapped. The endpoints a dialect
 * names exactly (a cart creation, a token grant, a revocation) are recognised as the server routes
 * them: missed, the old cart token would go with a creation and a grant's real tokens reach the page.
 * The cart, checkout and account prefixes still match the path as written, so a `//` there gets
 * nothing, as before.
 */
export function classifyRequest(url: URL, method: string, options: Pick<ResolvedOptions, 'base' | 'dialect'>): RequestKind | null {
  const written = pathUnderBase(url, options.base);
  // A `//` run at the base path: under the base as Rails, Rack and nginx route it, but not as a
  // front that routes by prefix does (it may reach another application of the origin). So only
  // the endpoints that never get a credential are recognised there: a grant, whose answer is kept
  // and sealed, and a revocation, a page's own logout. No credential is added to it.
  const path = written ?? squeezedUnderBase(url, options.base);
  if (path === null || mayDecodeElsewhere(path)) return null;
  const { dialect } = options;
  const routed = routedPath(path);
  const kind = dialect.classify(routed, method);
  if (written === null) return kind === 'tokenGrant' || kind === 'revocation' ? kind : null;
  // Almost every path routes as written: classified once. Otherwise the prefix must match as
  // written too (a `//` gets nothing), and the kind is the one the server routes it as (v3's
  // `GET /carts/` is the user's cart list, as `GET /carts` is, never a cart call).
  if (routed === path || (kind !== 'cartOrCheckout' && kind !== 'account')) return kind;
  return dialect.classify(path, method) === null ? null : kind;
}

/**
 * Which credential a request gets from what is held now: the one rule, used when the request is
 * matched and again at send time once a refusal has made the shopper a guest. `null`: none.
 */
export function credentialFor(kind: RequestKind, held: HeldCredentials, page: PageHeaders, cartTokenWithBearer = false): Credential | null {
  // A token grant and a revocation carry nothing; a guest's cart creation neither: the response brings the new token.
  if (kind === 'tokenGrant' || kind === 'revocation') return null;
  const cartToken = kind === 'cartOrCheckout' && held.hasCart && !page.orderToken && !page.authorization;
  if (held.signedIn) return page.authorization ? null : cartToken && cartTokenWithBearer ? 'bearer+orderToken' : 'bearer';
  return cartToken ? 'orderToken' : null;
}

/**
 * Decides the credential and capture for a classified request. Returns `null` when there is
 * nothing to do, so the worker does not call `respondWith` and the browser sends it untouched.
 */
export function decideRequest(kind: RequestKind, held: HeldCredentials, page: PageHeaders, cartTokenWithBearer = false): Decision | null {
  const capture = kind === 'cartCreate' ? 'cart' : kind === 'tokenGrant' ? 'token' : null;
  const credential = credentialFor(kind, held, page, cartTokenWithBearer);
  // A revocation is read for placeholders (a page's own logout), so it reaches the handler too.
  return credential === null && capture === null && kind !== 'revocation' ? null : { kind, credential, capture };
}
