/**
 * Spree 5.4+'s Store API (docs/servers.md, "Spree 5's Store API"; docs/behaviour.md, "The
 * spree-v3 preset"), under
 * `{baseUrl}/api/v3/store`: a publishable key on every request, JSON login, refresh and logout,
 * HS256 JWTs whose only lifetime is their `exp`, strictly rotated refresh tokens with idempotent
 * replay, flat cart documents with an `id` that the cart paths use, and `x-spree-token` for the
 * guest's cart.
 */
import { DEBUG_BUILD } from '../../shared/debugBuild.js';
import { StorefrontAuthError } from '../../shared/errors.js';
import { isRecord } from '../../shared/protocol.js';
import { jwtExpiry } from '../jwt.js';
import { serverTimeAt } from '../serverClock.js';
import { isUnderPrefix } from '../requestRules.js';
import { SEALED } from '../sealedTokens.js';
import { jsonObject, LAST_DATE_MS, parseJson, type Session, type TokenReply } from '../tokenResponse.js';
import { cartWriteIn, firstString, type CartWriteTable, type Dialect, type HeldCart, type RequestKind, type WireRequest } from '../dialect.js';
import { rateLimited, refusedGrant } from './storefrontV2.js';

/** The Store API's paths under the base URL, where it is mounted at `/api/v3/store`. */
const P = {
  carts: '/api/v3/store/carts',
  orders: '/api/v3/store/orders',
  customers: '/api/v3/store/customers',
  me: '/api/v3/store/customers/me',
  wishlists: '/api/v3/store/wishlists',
  passwordResets: '/api/v3/store/password_resets',
  login: '/api/v3/store/auth/login',
  // Spree 5.4.0–5.4.4 only: answers as login does (`{"provider":"email", …}` needs no social login);
  // 5.6 has no such route (404).
  oauthCallback: '/api/v3/store/auth/oauth/callback',
  refresh: '/api/v3/store/auth/refresh',
  logout: '/api/v3/store/auth/logout',
} as const;

/** The Store API's paths, relative to the base URL. */
export const V3_PATHS = P;

/**
 * The cart writes the offline queue may carry, under `/carts`: Spree 5.6's items and discount codes.
 * Every one is queued with an `Idempotency-Key`, so what a write does decides nothing here.
 */
export const V3_CART_WRITES: CartWriteTable = [
  ['POST', /^\/[^/]+\/items$/, 'adds'],
  ['PATCH', /^\/[^/]+\/items\/[^/]+$/, 'sets'],
  ['DELETE', /^\/[^/]+\/items\/[^/]+$/, 'sets'],
  ['POST', /^\/[^/]+\/discount_codes$/, 'sets'],
  ['DELETE', /^\/[^/]+\/discount_codes\/[^/]+$/, 'sets'],
];

/** The header of the guest's cart token; Spree reads it case-insensitively. */
const CART_TOKEN_HEADER = 'x-spree-token';

/** A `spree-v3` dialect sending `publishableKey` on the worker's own requests. */
export function spreeV3(publishableKey: string): Dialect {
  if (publishableKey.trim() === '') {
    throw new StorefrontAuthError(
      'invalid_request',
      DEBUG_BUILD
        ? `storefront-auth: preset "spree-v3" needs publishableKey, the Store API's publishable key ("pk_…"; "key" in the worker's URL, data-publishable-key on the drop-in).`
        : `storefront-auth: publishableKey`,
    );
  }
  const json = { 'Content-Type': 'application/json', Accept: 'application/json', 'X-Spree-Api-Key': publishableKey };
  // Labels are the paths: no query, so no token, ever reaches a message.
  const post = (path: string, body: Record<string, unknown> | undefined, headers: Record<string, string> = json): WireRequest => ({
    method: 'POST',
    path,
    label: path,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return {
    name: 'spree-v3',
    routePrefixes: [P.carts, P.orders, P.customers, P.wishlists, P.passwordResets, P.login, P.oauthCallback, P.refresh, P.logout],
    cartTokenHeader: CART_TOKEN_HEADER,
    cartTokenWithBearer: true,
    // A refused JWT "counts as no user" where it is optional: a cart call with a cart token beside it
    // and a cart creation succeed as a guest's, and a cart or order path refuses a guest (403, 404)
    // as it would the shopper. None of those answers says anything of the bearer.
    bearerAccepted: (kind, cartTokenBeside, status) => status !== 401 && kind !== 'cartCreate' && !cartTokenBeside && (kind !== 'cartOrCheckout' || (status >= 200 && status < 300)),
    idempotentRefresh: true,
    cartTokenQuery: null,
    tokenFields: { access: 'token', refresh: 'refresh_token' },
    cartTokenField: 'token',
    // A wishlist's `token` is its share token (`has_secure_token`), no cart's or order's.
    otherTokenPrefixes: [P.wishlists],
    refusedRefresh: { status: 401, body: { error: { code: 'invalid_refresh_token', message: 'Invalid or expired refresh token' } } },
    // docs/servers.md, "Logout": logout answers 204 with an empty body, whatever the token.
    revocationAnswer: { status: 204, body: null },

    classify(path: string, method: string): RequestKind | null {
      if (path === P.carts) return method === 'POST' ? 'cartCreate' : 'account';
      // `/carts/{id}…` and `/orders/{id}`: the guest's token or the owner's JWT opens them.
      if (isUnderPrefix(path, P.carts) || isUnderPrefix(path, P.orders)) return 'cartOrCheckout';
      if (isUnderPrefix(path, P.me) || isUnderPrefix(path, P.wishlists)) return 'account';
      // Registration, a password reset and 5.4's OAuth callback answer with a token pair, as login does: the shopper is signed in.
      if ((path === P.login || path === P.oauthCallback || path === P.refresh || path === P.customers) && method === 'POST') return 'tokenGrant';
      if (isUnderPrefix(path, P.passwordResets) && path !== P.passwordResets && method === 'PATCH') return 'tokenGrant';
      return path === P.logout && method === 'POST' ? 'revocation' : null;
    },
    queueableWrite: (path, method) => cartWriteIn(V3_CART_WRITES, P.carts, path, method),
    // Spree's Idempotent concern replays the first answer (below 500) to a key for 24 h.
    idempotencyKeys: true,

    passwordGrant: (username, password) => post(P.login, { email: username, password }),
    // docs/servers.md, "Every request": Spree caches an answer below 500 under its key, so a retry
    // after a lost answer gets the rotation that already happened instead of spending a dead token.
    refreshGrant: (refreshToken, idempotencyKey) => post(P.refresh, { refresh_token: refreshToken }, { ...json, 'Idempotency-Key': idempotencyKey }),
    judgeTokenReply,
    readTokenBody,
    sealedTokenBody: (session) => ({ token: SEALED.access, refresh_token: SEALED.refresh, user: session.user ?? null }),
    pageRefreshToken: (body) => (body.path === P.refresh ? firstString(jsonObject(body.text)['refresh_token']) : null),
    pageRevokedToken: (body) => firstString(jsonObject(body.text)['refresh_token']),

    createCart: () => post(P.carts, undefined),
    readCart: readV3Cart,
    associate(cart: HeldCart, accessToken: string) {
      if (cart.id === undefined) return null;
      const path = `${P.carts}/${encodeURIComponent(cart.id)}/associate`;
      // Spree 5.6 wants both: the user's JWT and the guest's token (docs/servers.md, "The signed-in
      // cart").
      return { method: 'PATCH', path, label: `${P.carts}/…/associate`, headers: { ...json, Authorization: `Bearer ${accessToken}`, [CART_TOKEN_HEADER]: cart.token } };
    },

    // Spree cannot revoke a JWT: logout ends the refresh token, and the JWT lives until its `exp`.
    revoke: (pair) => (pair.refreshToken ? [post(P.logout, { refresh_token: pair.refreshToken })] : []),
    touchAfterRefresh: null,
  };
}

/** A flat cart document (`{ id, number, token, … }`), or `null` when any of the three is missing. */
export function readV3Cart(body: unknown): HeldCart | null {
  if (!isRecord(body)) return null;
  const id = firstString(body['id']);
  const token = firstString(body['token']);
  const number = firstString(body['number']);
  return id === null || token === null || number === null ? null : { id, token, number };
}

/**
 * Reads a successful Store API token response (`{ token, refresh_token, user }`, docs/servers.md,
 * "Signing in"), or `null`: the access token must be a JWT with an `exp`, the only lifetime the
 * server gives, still ahead unless `expired` allows one already past (then kept with a lifetime of
 * 0, due at once). Its lifetime is `exp` less the server's clock at the answer (its `Date`,
 * serverClock.ts), and the expiry is kept on the device's clock: a device clock off by any amount
 * neither refuses a login nor moves a refresh.
 */
export function readTokenBody(body: unknown, receivedAt: number, serverDate: number | null = null, expired = false): Session | null {
  if (!isRecord(body)) return null;
  const accessToken = firstString(body['token']);
  const refreshToken = firstString(body['refresh_token']);
  if (accessToken === null || refreshToken === null) return null;
  const exp = jwtExpiry(accessToken);
  if (exp === null) return null;
  const lifetimeMs = exp - serverTimeAt(receivedAt, serverDate);
  if ((lifetimeMs <= 0 && !expired) || !(receivedAt + lifetimeMs <= LAST_DATE_MS)) return null;
  const session: Session = { accessToken, refreshToken, expiresAt: receivedAt + lifetimeMs, lifetimeMs: Math.max(lifetimeMs, 0), confirmed: true };
  // Kept to answer a page's own sealed refresh in the server's shape; it holds no credential.
  if (isRecord(body['user'])) session.user = body['user'];
  return session;
}

/**
 * Judges the answer to a login or refresh the worker sent: 401 `authentication_failed` and
 * `invalid_refresh_token` are refusals (`invalid_grant`, status 401); a 429 is a failure to retry
 * after its `Retry-After`; anything else not a valid token response is `bad_response`. A refresh's
 * answer may hold a JWT already expired: Spree replays a rotation's first answer under its key for
 * 24 h, and its `refresh_token` is then the only live one, which the refresher spends at once.
 */
export function judgeTokenReply(reply: TokenReply, grant: 'password' | 'refresh'): Session {
  const { status } = reply;
  const body = parseJson(reply.text);
  const ok = status >= 200 && status < 300;
  const session = ok ? readTokenBody(body, reply.receivedAt, reply.serverDate, grant === 'refresh') : null;
  if (session !== null) return session;
  const code = isRecord(body) && isRecord(body['error']) ? body['error']['code'] : undefined;
  if (!ok) {
    if (status === 401 && (code === 'authentication_failed' || code === 'invalid_refresh_token')) throw refusedGrant(grant, status);
    if (status === 429) throw rateLimited(status);
    if (status === 400 || status === 422) throw new StorefrontAuthError('invalid_request', DEBUG_BUILD ? `The Store API refused the request (${status} ${String(code)}).` : `${status} ${String(code)}`, { status });
  }
  throw new StorefrontAuthError(
    'bad_response',
    !DEBUG_BUILD
      ? `token response ${status}`
      : ok
        ? `The Store API answered ${status} without a valid token response ({ token: a JWT with an exp still ahead, refresh_token }); check baseUrl and preset.`
        : `The Store API answered ${status} ${String(code)}${code === 'invalid_token' ? ': its publishable key was refused; check publishableKey' : ''}.`,
    { status },
  );
}
