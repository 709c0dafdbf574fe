/**
 * Which credential a request gets (CONTRACT.md, "What the worker does to requests"), as pure
 * functions of the URL, the method and the credentials held, so they are tested in Node.
 */
import type { ResolvedOptions } from './options.js';
import type { Preset } from './presets.js';

/** The storefront paths the worker cares about, relative to the base URL. */
export const STOREFRONT_PATHS = Object.freeze({
  cart: '/api/v2/storefront/cart',
  checkout: '/api/v2/storefront/checkout',
  account: '/api/v2/storefront/account',
});

/**
 * Every path prefix, relative to the base, under which `classifyRequest` may touch a request: what
 * the worker's static routes send to its fetch handler (staticRoutes.ts). Everything else goes
 * straight to the network, so a prefix missing here is a request the worker never sees.
 */
export function routePrefixes(preset: Pick<Preset, 'tokenPath' | 'revokePath'>): string[] {
  const { tokenPath, revokePath } = preset;
  return [...Object.values(STOREFRONT_PATHS), tokenPath, ...(revokePath === null ? [] : [revokePath])];
}

/** What kind of storefront request this is; `null` for anything the worker never touches. */
export type RequestKind = 'cartCreate' | 'cartOrCheckout' | 'account' | 'tokenGrant';

/** The credential the worker adds. */
export type Credential = 'bearer' | 'orderToken';

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
export function pathUnderBase(url: URL, base: ResolvedOptions['base']): string | null {
  if (url.origin !== base.origin) return null;
  if (base.path === '') return url.pathname;
  if (url.pathname === base.path) return '';
  return url.pathname.startsWith(base.path + '/') ? url.pathname.slice(base.path.length) : null;
}

/** True when `path` is `prefix` or below it on a segment boundary (`/cart`, `/cart/x`, never `/cartography`). */
export function isUnderPrefix(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(prefix + '/');
}

/** Classifies a request by URL and method alone; `null` means the worker leaves it alone. */
export function classifyRequest(url: URL, method: string, options: Pick<ResolvedOptions, 'base' | 'preset'>): RequestKind | null {
  const path = pathUnderBase(url, options.base);
  if (path === null) return null;
  if (path === STOREFRONT_PATHS.cart && method === 'POST') return 'cartCreate';
  if (isUnderPrefix(path, STOREFRONT_PATHS.cart) || isUnderPrefix(path, STOREFRONT_PATHS.checkout)) return 'cartOrCheckout';
  if (isUnderPrefix(path, STOREFRONT_PATHS.account)) return 'account';
  if (path === options.preset.tokenPath && method === 'POST') return 'tokenGrant';
  return null;
}

/**
 * Which credential a request gets from what is held now: the one rule, used when the request is
 * matched and again at send time once a refusal has made the shopper a guest. `null`: none.
 */
export function credentialFor(kind: RequestKind, held: HeldCredentials, page: PageHeaders): Credential | null {
  // A token grant carries nothing; a guest's cart creation neither: the response brings the new token.
  if (kind !== 'tokenGrant' && held.signedIn) return page.authorization ? null : 'bearer';
  return kind === 'cartOrCheckout' && held.hasCart && !page.orderToken && !page.authorization ? 'orderToken' : null;
}

/**
 * Decides the credential and capture for a classified request. Returns `null` when there is
 * nothing to do, so the worker does not call `respondWith` and the browser sends it untouched.
 */
export function decideRequest(kind: RequestKind, held: HeldCredentials, page: PageHeaders): Decision | null {
  const capture = kind === 'cartCreate' ? 'cart' : kind === 'tokenGrant' ? 'token' : null;
  const credential = credentialFor(kind, held, page);
  return credential === null && capture === null ? null : { kind, credential, capture };
}
