/**
 * The Storefront API v2 wire shape (docs/servers.md, "The storefront API v2" and "Doorkeeper,
 * the token endpoint"), shared by the `store` and
 * `spree` dialects, which differ only in names: JSON:API cart documents, form-encoded OAuth grants
 * at a token path, Doorkeeper's token responses (`expires_in` in seconds) and errors.
 */
import { DEBUG_BUILD } from '../../shared/debugBuild.js';
import { StorefrontAuthError } from '../../shared/errors.js';
import type { PresetName } from '../../shared/presetName.js';
import { isRecord } from '../../shared/protocol.js';
import { isUnderPrefix } from '../requestRules.js';
import { SEALED } from '../sealedTokens.js';
import { jsonObject, LAST_DATE_MS, parseJson, type Session, type TokenReply } from '../tokenResponse.js';
import { cartWriteIn, firstString, type CartWriteTable, type Dialect, type HeldCart, type PageBody, type RequestKind, type WireRequest } from '../dialect.js';

/** The storefront paths, relative to the base URL. */
export const V2_PATHS = Object.freeze({
  cart: '/api/v2/storefront/cart',
  checkout: '/api/v2/storefront/checkout',
  account: '/api/v2/storefront/account',
});

/**
 * The cart writes the offline queue may carry, under the cart path. Only `add_item`
 * adds: sent twice, it is a second line, so it is queued only when it never left.
 */
export const V2_CART_WRITES: CartWriteTable = [
  ['POST', /^\/add_item$/, 'adds'],
  ['PATCH', /^\/set_quantity$/, 'sets'],
  ['DELETE', /^\/remove_line_item\/[^/]+$/, 'sets'],
  ['PATCH', /^\/apply_coupon_code$/, 'sets'],
  ['DELETE', /^\/remove_coupon_code(?:\/[^/]+)?$/, 'sets'],
];

/** What names a v2 server's wire details. */
export interface V2Names {
  name: PresetName;
  /** The header that carries a guest's cart token. */
  orderTokenHeader: string;
  /** The OAuth token path, under the base URL. */
  tokenPath: string;
  /** Where tokens are revoked at logout (RFC 7009), or `null` when the server has no such path. */
  revokePath: string | null;
}

/** A v2 dialect with `names`. */
export function storefrontV2(names: V2Names): Dialect {
  const { tokenPath, revokePath } = names;
  const form = { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' };
  // Labels are the paths, without a query: no token ever reaches a message.
  const grant = (fields: Record<string, string>): WireRequest => ({ method: 'POST', path: tokenPath, label: tokenPath, headers: form, body: new URLSearchParams(fields) });
  return {
    name: names.name,
    routePrefixes: [V2_PATHS.cart, V2_PATHS.checkout, V2_PATHS.account, tokenPath, ...(revokePath === null ? [] : [revokePath])],
    cartTokenHeader: names.orderTokenHeader,
    cartTokenWithBearer: false,
    // An expired or revoked bearer is answered 401, whatever goes beside it.
    bearerAccepted: (_kind, _cartTokenBeside, status) => status !== 401,
    // Doorkeeper keeps no idempotency keys (its grace window covers a retried refresh).
    idempotentRefresh: false,
    cartTokenQuery: 'guest_order_token',
    tokenFields: { access: 'access_token', refresh: 'refresh_token' },
    cartTokenField: 'token',
    otherTokenPrefixes: [],
    // Doorkeeper's refusal (docs/servers.md, "Doorkeeper, the token endpoint"): the page's SDK sees
    // the session has ended.
    refusedRefresh: { status: 400, body: { error: 'invalid_grant', error_description: 'The provided authorization grant is invalid.' } },
    // RFC 7009 2.2: the server answers 200 whether or not the token was valid; Doorkeeper sends `{}`.
    revocationAnswer: { status: 200, body: '{}' },

    classify(path: string, method: string): RequestKind | null {
      if (path === V2_PATHS.cart && method === 'POST') return 'cartCreate';
      if (isUnderPrefix(path, V2_PATHS.cart) || isUnderPrefix(path, V2_PATHS.checkout)) return 'cartOrCheckout';
      if (isUnderPrefix(path, V2_PATHS.account)) return 'account';
      if (method !== 'POST') return null;
      if (path === tokenPath) return 'tokenGrant';
      return path === revokePath ? 'revocation' : null;
    },
    queueableWrite: (path, method) => cartWriteIn(V2_CART_WRITES, V2_PATHS.cart, path, method),
    // Doorkeeper and Spree 4's v2 keep no idempotency keys.
    idempotencyKeys: false,

    passwordGrant: (username, password) => grant({ grant_type: 'password', username, password }),
    // Doorkeeper keeps no idempotency keys: a retry is a new grant, which its grace window allows.
    refreshGrant: (refreshToken) => grant({ grant_type: 'refresh_token', refresh_token: refreshToken }),
    judgeTokenReply,
    readTokenBody,
    sealedTokenBody(session: Session, now: number) {
      return {
        access_token: SEALED.access,
        token_type: 'Bearer',
        // Seconds left, never 0: a client treats an `expires_in` of 0 as already expired.
        expires_in: Math.max(1, Math.floor((session.expiresAt - now) / 1000)),
        refresh_token: SEALED.refresh,
        created_at: Math.floor(now / 1000),
      };
    },
    pageRefreshToken(body: PageBody) {
      const fields = formOrJson(body);
      return fields['grant_type'] === 'refresh_token' ? firstString(fields['refresh_token']) : null;
    },
    pageRevokedToken: (body) => firstString(formOrJson(body)['token']),

    createCart: () => ({
      method: 'POST',
      // docs/servers.md, "Creating a cart": the sparse fieldset asks for the two fields the worker
      // keeps.
      path: `${V2_PATHS.cart}?${new URLSearchParams({ 'fields[cart]': 'number,token' })}`,
      label: V2_PATHS.cart,
      headers: { 'Content-Type': 'application/vnd.api+json' },
    }),
    readCart: readCartDocument,
    associate(cart: HeldCart, accessToken: string) {
      // The guest token travels in the query, so the label names the path alone.
      const path = `${V2_PATHS.cart}/associate`;
      return {
        method: 'PATCH',
        path: `${path}?${new URLSearchParams({ guest_order_token: cart.token })}`,
        label: path,
        headers: { Authorization: `Bearer ${accessToken}`, 'Content-Type': 'application/vnd.api+json' },
      };
    },

    revoke(pair) {
      if (revokePath === null) return [];
      return [pair.accessToken, pair.refreshToken].filter((token) => token).map((token) => ({ method: 'POST', path: revokePath, label: revokePath, headers: {}, body: new URLSearchParams({ token }) }));
    },
    // Doorkeeper 5.5 answers the revocation of an expired pair `200 {}` and changes nothing; a
    // refreshed bearer's first use on a resource revokes the pair it replaced
    // (docs/servers.md, "Doorkeeper, the token endpoint").
    touchAfterRefresh:
      revokePath === null ? null : (accessToken) => ({ method: 'GET', path: V2_PATHS.account, label: V2_PATHS.account, headers: { Authorization: `Bearer ${accessToken}` } }),
  };
}

/**
 * Reads the cart token and number from a cart document (docs/servers.md, "Creating a cart"): the
 * token at `data.attributes.token`, else `data.token`; the number at `data.attributes.number`, else
 * `data.number`. Returns `null` when the token is missing or not a non-empty string. The number is
 * `''` when missing: a page's creation may ask for the token alone (`fields[cart]=token`), and a
 * cart the worker does not keep would lose its token to the page and the worker both.
 */
export function readCartDocument(body: unknown): HeldCart | null {
  if (!isRecord(body) || !isRecord(body['data'])) return null;
  const data = body['data'];
  const attributes = isRecord(data['attributes']) ? data['attributes'] : {};
  const token = firstString(attributes['token'], data['token']);
  const number = firstString(attributes['number'], data['number']);
  return token === null ? null : { token, number: number ?? '' };
}

/**
 * Reads a successful token response body (docs/servers.md, "Tokens"), or returns `null`
 * when it is not of that shape: no access or refresh token, `expires_in` not a positive number (nor
 * one that ends past the last time a `Date` holds), or a `token_type` other than Bearer.
 */
export function readTokenBody(body: unknown, receivedAt: number): Session | null {
  if (!isRecord(body)) return null;
  const { access_token: accessToken, refresh_token: refreshToken, expires_in: expiresIn, token_type: tokenType } = body;
  if (typeof accessToken !== 'string' || accessToken === '') return null;
  if (typeof refreshToken !== 'string' || refreshToken === '') return null;
  if (typeof expiresIn !== 'number' || !Number.isFinite(expiresIn) || expiresIn <= 0) return null;
  if (typeof tokenType !== 'string' || tokenType.toLowerCase() !== 'bearer') return null;
  const lifetimeMs = expiresIn * 1000;
  if (!(receivedAt + lifetimeMs <= LAST_DATE_MS)) return null;
  return { accessToken, refreshToken, expiresAt: receivedAt + lifetimeMs, lifetimeMs, confirmed: true };
}

/**
 * Judges a token endpoint's answer to a grant the worker sent: the new session, or a
 * `StorefrontAuthError` saying what the server said (Doorkeeper's `400 invalid_grant` and
 * `invalid_request`: docs/servers.md, "Doorkeeper, the token endpoint") or what was wrong with the
 * response.
 */
export function judgeTokenReply(reply: TokenReply, grant: 'password' | 'refresh'): Session {
  const { status } = reply;
  const body = parseJson(reply.text);
  const ok = status >= 200 && status < 300;
  const session = ok ? readTokenBody(body, reply.receivedAt) : null;
  if (session !== null) return session;
  const error = isRecord(body) && typeof body['error'] === 'string' ? body['error'] : null;
  if (!ok) {
    if (status === 400 && error === 'invalid_grant') throw refusedGrant(grant, status);
    if (status === 400 && (error === 'invalid_request' || error === 'unsupported_grant_type')) {
      throw new StorefrontAuthError('invalid_request', DEBUG_BUILD ? `The token endpoint refused the request as ${error}.` : error, { status });
    }
    if (status === 429) throw rateLimited(status);
  }
  if (!DEBUG_BUILD) throw new StorefrontAuthError('bad_response', `token response ${status}`, { status });
  const what = error === null ? (body === undefined ? 'a body that is not JSON' : 'no OAuth error') : `error ${JSON.stringify(error)}`;
  throw new StorefrontAuthError(
    'bad_response',
    ok
      ? `The token endpoint answered ${status} without a valid token response (access_token, refresh_token, token_type Bearer, expires_in > 0); check baseUrl and preset.`
      : `The token endpoint answered ${status} with ${what}; check the server, baseUrl and preset.`,
    { status },
  );
}

/** A refused grant: a wrong password, or a refresh token the server no longer honours. */
export function refusedGrant(grant: 'password' | 'refresh', status: number): StorefrontAuthError {
  const message = !DEBUG_BUILD
    ? `${grant} grant refused`
    : grant === 'password'
      ? 'Wrong username or password; ask the shopper to try again.'
      : 'The refresh token was refused, so the session has ended; ask the shopper to sign in again.';
  return new StorefrontAuthError('invalid_grant', message, { status });
}

/** A grant the server turned away for now (429): a failure, not a refusal, retried after its `Retry-After`. */
export function rateLimited(status: number): StorefrontAuthError {
  return new StorefrontAuthError('network_error', DEBUG_BUILD ? 'The token endpoint is rate limiting this shopper (429); nothing changed, try again in a minute.' : 'rate limited', { status });
}

/** The fields of a page's grant or revocation the worker reads. */
const FORM_FIELDS = ['grant_type', 'refresh_token', 'token'];

/** A body's fields, by its content type: JSON, a multipart form (a page's `FormData`), else form-encoded, as Rails reads each. */
function formOrJson(body: PageBody): Record<string, unknown> {
  const type = body.contentType?.toLowerCase() ?? '';
  if (type.includes('json')) return jsonObject(body.text);
  const form = type.includes('multipart/form-data') ? null : new URLSearchParams(body.text);
  return Object.fromEntries(FORM_FIELDS.map((name) => [name, form === null ? multipartField(body.text, name) : form.get(name)]));
}

/**
 * The first field `name` of a multipart form (RFC 7578): a part whose disposition names it (a file
 * part names a filename after it), its value from the blank line to the next boundary line.
 */
function multipartField(text: string, name: string): string | null {
  return new RegExp(`(?:^|\\n)content-disposition:[ \\t]*form-data;[ \\t]*name="${name}"\\r\\n(?:[^\\r\\n]+\\r\\n)*\\r\\n([^\\r]*)\\r\\n--`, 'i').exec(text)?.[1] ?? null;
}
