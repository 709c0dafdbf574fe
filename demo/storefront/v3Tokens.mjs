// The spree-v3 flavour's credentials: HS256 JWTs as Spree's JwtAuthentication issues and checks
// them, and opaque refresh tokens with strict rotation (docs/servers.md, "The JWT and the refresh
// token").
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

/** `has_secure_token`'s alphabet: base58, no 0, O, I or l. */
const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
/** Spree's `refresh_token_expiry` default. */
export const REFRESH_TOKEN_LIFETIME_MS = 30 * 24 * 3600 * 1000;
/** The refresh token's length (inferred in the facts: `has_secure_token`'s default). */
const REFRESH_TOKEN_LENGTH = 24;

/** A random base58 string, as Rails' `has_secure_token` makes. @param {number} length */
export function base58Token(length) {
  const bytes = randomBytes(length);
  return Array.from(bytes, (byte) => BASE58[byte % 58]).join('');
}

const base64url = (/** @type {string | Buffer} */ value) => Buffer.from(value).toString('base64url');

/** @param {string} secret @param {string} input */
const hs256 = (secret, input) => createHmac('sha256', secret).update(input).digest();

/**
 * Signs claims as an HS256 JWT.
 * @param {Record<string, unknown>} claims @param {string} secret
 */
export function signJwt(claims, secret) {
  const input = `${base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${base64url(JSON.stringify(claims))}`;
  return `${input}.${hs256(secret, input).toString('base64url')}`;
}

/**
 * The claims of a JWT that passes Spree's checks (signature, HS256, `exp` with no leeway, `iss`,
 * `aud`), or null. ruby-jwt treats a token as expired once `exp <= Time.now.to_i`.
 * @param {string} jwt @param {string} secret @param {number} now epoch ms
 * @returns {Record<string, any> | null}
 */
export function verifyJwt(jwt, secret, now) {
  const [header, payload, signature, extra] = jwt.split('.');
  if (!header || !payload || signature === undefined || extra !== undefined) return null;
  const expected = hs256(secret, `${header}.${payload}`);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    if (JSON.parse(Buffer.from(header, 'base64url').toString()).alg !== 'HS256') return null;
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (typeof claims.exp !== 'number' || claims.exp <= Math.floor(now / 1000)) return null;
    return claims.iss === 'spree' && audiences.includes('store_api') ? claims : null;
  } catch {
    return null;
  }
}

/**
 * The token of an `Authorization` header as Spree's `extract_token` reads it: only after the exact,
 * case-sensitive prefix `Bearer `, and then the last whitespace-separated part (Ruby's `split(' ')`).
 * @param {string | undefined} header @returns {string | null}
 */
export function bearerToken(header) {
  if (!header?.startsWith('Bearer ')) return null;
  return header.split(/[ \t\n\v\f\r]+/).filter(Boolean).at(-1) ?? null;
}

/**
 * @typedef {object} RefreshTokenRow
 * @property {string} token
 * @property {number} userId
 * @property {number} expiresAt  epoch ms
 */

/** JWTs and refresh tokens for one storefront. */
export class V3Tokens {
  /** Live refresh tokens; a rotated or revoked one is deleted, as Spree destroys its row. @type {Map<string, RefreshTokenRow>} */
  refreshTokens = new Map();
  /** The `jti` of every JWT issued, for the `expireAllAccessTokens` test control. @type {Set<string>} */
  #issued = new Set();
  /** JWTs the test control has expired early. @type {Set<string>} */
  #expired = new Set();

  /** @param {{ secret: string, lifetime: number, now?: () => number }} options lifetime in seconds; `now` the server's clock, epoch ms */
  constructor({ secret, lifetime, now = Date.now }) {
    this.secret = secret;
    this.lifetime = lifetime;
    this.now = now;
  }

  /**
   * A JWT and a fresh refresh token for a user. `exp` is whole epoch seconds, as Spree's
   * `jwt_expiration.seconds.from_now.to_i`: a token lives between `lifetime - 1` and `lifetime` seconds.
   * @param {number} userId
   */
  issue(userId) {
    const now = this.now();
    const jti = randomUUID();
    this.#issued.add(jti);
    const claims = { user_id: userId, user_type: 'customer', jti, iss: 'spree', aud: 'store_api', exp: Math.floor(now / 1000 + this.lifetime) };
    const row = { token: base58Token(REFRESH_TOKEN_LENGTH), userId, expiresAt: now + REFRESH_TOKEN_LIFETIME_MS };
    this.refreshTokens.set(row.token, row);
    return { token: signJwt(claims, this.secret), refresh_token: row.token };
  }

  /**
   * The user id of a valid customer JWT in an `Authorization: Bearer` header, or null. Spree takes a
   * missing `user_type`, or any but `admin`, for a customer; an admin is looked up among admin users,
   * of which the reference has none.
   * @param {string | undefined} header
   */
  userIdFrom(header) {
    const token = bearerToken(header);
    const claims = token ? verifyJwt(token, this.secret, this.now()) : null;
    if (!claims || claims.user_type === 'admin' || !Number.isInteger(claims.user_id)) return null;
    return this.#expired.has(claims.jti) ? null : /** @type {number} */ (claims.user_id);
  }

  /**
   * Strict rotation: the old row is destroyed and a new pair issued in one step, no grace.
   * @param {string} refreshToken @returns {{ userId: number, pair: { token: string, refresh_token: string } } | null}
   */
  rotate(refreshToken) {
    const row = this.refreshTokens.get(refreshToken);
    if (!row) return null;
    this.refreshTokens.delete(refreshToken);
    if (this.now() >= row.expiresAt) return null;
    return { userId: row.userId, pair: this.issue(row.userId) };
  }

  /** Logout: destroys that one row. @param {string} refreshToken @returns {boolean} whether it existed */
  revoke(refreshToken) {
    return this.refreshTokens.delete(refreshToken);
  }

  /** A password reset: every refresh token of the user. @param {number} userId */
  revokeUser(userId) {
    for (const [token, row] of this.refreshTokens) if (row.userId === userId) this.refreshTokens.delete(token);
  }

  /** Test control: every refresh token (Spree has no JWT revocation, so JWTs live on until `exp`). */
  revokeAll() {
    this.refreshTokens.clear();
  }

  /** Test control: every JWT issued so far counts as expired, as if its `exp` had passed. */
  expireAll() {
    for (const jti of this.#issued) this.#expired.add(jti);
  }
}
