// The OAuth side of the reference storefront: the token store and the token and revoke endpoints,
// answering as Doorkeeper (the gem behind Spree's /spree_oauth) does. See docs/servers.md,
// "Doorkeeper, the token endpoint".
import { randomBytes } from 'node:crypto';

/**
 * One access token and the refresh token issued with it. Doorkeeper keeps both in one record, so
 * revoking either revokes the pair.
 * @typedef {object} TokenPair
 * @property {string} accessToken
 * @property {string} refreshToken
 * @property {string} userId
 * @property {number} family      id shared by every pair descended from the same password grant
 * @property {number} createdAt   epoch ms
 * @property {number} expiresAt   epoch ms; the access token is expired from then on
 * @property {boolean} revoked
 * @property {boolean} refreshUsed          strict rotation: the refresh token has been spent
 * @property {TokenPair | null} previous    doorkeeper rotation: the pair to revoke on first use
 */

/**
 * What a bearer header amounts to: no (or an unknown) bearer is a guest (docs/servers.md, "Spree's
 * storefront endpoints": a bearer the server has never seen is treated as a guest).
 * @typedef {{ kind: 'guest' } | { kind: 'expired' } | { kind: 'revoked' } | { kind: 'user', userId: string, pair: TokenPair }} Authentication
 */

/** @typedef {{ status: number, headers?: Record<string, string>, body: unknown }} Reply */

/**
 * How the revoke endpoint treats a pair (docs/servers.md, "Doorkeeper, the token endpoint"):
 * - 'all': posting either token revokes the pair, expired or not.
 * - 'doorkeeper-5.5': only a pair whose access token is still valid (Doorkeeper 5.5's
 *   `token.revoke if token.accessible?`); once the access token has expired, revoke changes nothing
 *   and the refresh token still refreshes, so a client that must end the session has to refresh first.
 * @typedef {'all' | 'doorkeeper-5.5'} Revocation
 */

const DESCRIPTIONS = {
  invalid_grant:
    'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
  unsupported_grant_type: 'The authorization grant type is not supported by the authorization server.',
  invalid_request: 'The request is missing a required parameter, includes an unsupported parameter value, or is otherwise malformed.',
};

/** Doorkeeper's token responses, success or error, are never cached. */
const NO_STORE = { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', Pragma: 'no-cache' };

/** A random, URL-safe token. */
export function randomToken(bytes = 32) {
  return randomBytes(bytes).toString('base64url');
}

export class TokenStore {
  /** Every pair, under both its access token and its refresh token. @type {Map<string, TokenPair>} */
  tokens = new Map();
  #families = 0;

  /** @param {{ lifetime: number, rotation: 'doorkeeper' | 'strict', revocation?: Revocation }} options */
  constructor({ lifetime, rotation, revocation = 'all' }) {
    this.lifetime = lifetime;
    this.rotation = rotation;
    this.revocation = revocation;
  }

  /**
   * Issues a new pair for a user, in a new family (password grant) or the family of `parent` (refresh).
   * @param {string} userId @param {TokenPair | null} parent
   */
  issue(userId, parent = null) {
    const now = Date.now();
    /** @type {TokenPair} */
    const pair = {
      accessToken: randomToken(),
      refreshToken: randomToken(),
      userId,
      family: parent ? parent.family : ++this.#families,
      createdAt: now,
      expiresAt: now + this.lifetime * 1000,
      revoked: false,
      refreshUsed: false,
      previous: parent && this.rotation === 'doorkeeper' ? parent : null,
    };
    this.tokens.set(pair.accessToken, pair);
    this.tokens.set(pair.refreshToken, pair);
    return pair;
  }

  /** @param {string} token */
  byAccessToken(token) {
    const pair = this.tokens.get(token);
    return pair?.accessToken === token ? pair : undefined;
  }

  /** @param {string} token */
  byRefreshToken(token) {
    const pair = this.tokens.get(token);
    return pair?.refreshToken === token ? pair : undefined;
  }

  /**
   * Authenticates a resource request from its `Authorization` header. Doorkeeper reports a revoked
   * token as revoked even when it has also expired. In doorkeeper rotation, the first successful use
   * of a refreshed access token revokes the pair it replaced (Doorkeeper's refresh_token_revoked_on_use).
   * @param {string | undefined} header
   * @returns {Authentication}
   */
  authenticate(header) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
    const pair = match ? this.byAccessToken(/** @type {string} */ (match[1])) : undefined;
    if (!pair) return { kind: 'guest' };
    if (pair.revoked) return { kind: 'revoked' };
    if (Date.now() >= pair.expiresAt) return { kind: 'expired' };
    if (pair.previous) {
      pair.previous.revoked = true;
      pair.previous = null;
    }
    return { kind: 'user', userId: pair.userId, pair };
  }

  /**
   * The refresh grant. Returns the new pair, or null for invalid_grant.
   * - doorkeeper: the old pair stays usable until the new access token is first used.
   * - strict (Auth0, Okta, Keycloak with rotation): a refresh token works once; a reuse revokes the
   *   whole family, logging the user out.
   * @param {string} refreshToken
   */
  refresh(refreshToken) {
    const pair = this.byRefreshToken(refreshToken);
    if (!pair || pair.revoked) return null;
    if (this.rotation === 'strict') {
      if (pair.refreshUsed) {
        this.revokeFamily(pair.family);
        return null;
      }
      pair.refreshUsed = true;
    }
    return this.issue(pair.userId, pair);
  }

  /** @param {number} family */
  revokeFamily(family) {
    for (const pair of this.tokens.values()) if (pair.family === family) pair.revoked = true;
  }

  /**
   * Revokes the pair of an access or refresh token (RFC 7009; unknown tokens are ignored). Under
   * 'doorkeeper-5.5' a pair whose access token has expired is left alone, refresh token included.
   * Revoking a pair never touches the pair it replaced: under doorkeeper rotation that one is only
   * revoked by the first use of the new access token, so revoking an unused new pair leaves the old
   * refresh token working (Doorkeeper revokes the previous refresh token only on use, in
   * `revoke_previous_refresh_token!`).
   * @param {string} token
   * @returns {boolean} whether a pair was revoked by this call (false: unknown, already revoked, or expired under 'doorkeeper-5.5')
   */
  revoke(token) {
    const pair = this.tokens.get(token);
    if (!pair || pair.revoked) return false;
    if (this.revocation === 'doorkeeper-5.5' && Date.now() >= pair.expiresAt) return false;
    pair.revoked = true;
    return true;
  }

  revokeAll() {
    for (const pair of this.tokens.values()) pair.revoked = true;
  }

  expireAll() {
    const now = Date.now();
    for (const pair of this.tokens.values()) pair.expiresAt = Math.min(pair.expiresAt, now);
  }
}

/**
 * The token request's parameters: Doorkeeper accepts form-encoded and JSON bodies (the Spree JS SDK
 * sends JSON). Returns null when a JSON body does not parse to an object.
 * @param {string | undefined} contentType @param {string} body
 * @returns {Record<string, unknown> | null}
 */
export function parseTokenParams(contentType, body) {
  if (/json/i.test(contentType ?? '')) {
    try {
      const parsed = JSON.parse(body || '{}');
      return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : null;
    } catch {
      return null;
    }
  }
  return Object.fromEntries(new URLSearchParams(body));
}

/**
 * Doorkeeper's error response: 400, `{ error, error_description }` and the same in WWW-Authenticate.
 * @param {keyof typeof DESCRIPTIONS} error @param {string} [description]
 * @returns {Reply}
 */
function oauthError(error, description = DESCRIPTIONS[error]) {
  const authenticate = `Bearer realm="Doorkeeper", error="${error}", error_description="${description}"`;
  return { status: 400, headers: { ...NO_STORE, 'WWW-Authenticate': authenticate }, body: { error, error_description: description } };
}

/** @param {unknown} value @returns {value is string} */
const present = (value) => typeof value === 'string' && value !== '';

/**
 * `POST {token path}`: the password and refresh_token grants.
 * @param {TokenStore} store
 * @param {(username: string, password: string) => { id: string } | undefined} checkPassword
 * @param {Record<string, unknown> | null} params
 * @returns {Reply}
 */
export function tokenEndpoint(store, checkPassword, params) {
  if (!params) return oauthError('invalid_request');
  const grantType = params['grant_type'];
  if (!present(grantType)) return oauthError('invalid_request', 'Missing required parameter: grant_type.');
  let pair;
  if (grantType === 'password') {
    const { username, password } = params;
    if (!present(username)) return oauthError('invalid_request', 'Missing required parameter: username.');
    if (!present(password)) return oauthError('invalid_request', 'Missing required parameter: password.');
    const user = checkPassword(username, password);
    if (!user) return oauthError('invalid_grant');
    pair = store.issue(user.id);
  } else if (grantType === 'refresh_token') {
    const refreshToken = params['refresh_token'];
    if (!present(refreshToken)) return oauthError('invalid_request', 'Missing required parameter: refresh_token.');
    pair = store.refresh(refreshToken);
    if (!pair) return oauthError('invalid_grant');
  } else {
    return oauthError('unsupported_grant_type');
  }
  return {
    status: 200,
    headers: NO_STORE,
    body: {
      access_token: pair.accessToken,
      token_type: 'Bearer',
      expires_in: store.lifetime,
      refresh_token: pair.refreshToken,
      created_at: Math.floor(pair.createdAt / 1000),
    },
  };
}

/**
 * `POST {revoke path}`: RFC 7009 revocation. Always 200 `{}`, known token or not, revoked or not
 * (Doorkeeper does the same for tokens of public clients, which Spree's are), so a client can never
 * tell from the answer whether the session ended; `revoked` tells the server's stats.
 * @param {TokenStore} store @param {Record<string, unknown> | null} params
 * @returns {Reply & { revoked: boolean }}
 */
export function revokeEndpoint(store, params) {
  const token = params?.['token'];
  const revoked = present(token) && store.revoke(token);
  return { status: 200, headers: NO_STORE, body: {}, revoked };
}
