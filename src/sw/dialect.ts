/**
 * One server's wire protocol behind one interface, so that a new server is a new file: its paths,
 * header names, grant bodies, response shapes and the fields to seal, as Workbox puts each strategy
 * behind `Strategy`. The request path, the refresher and the bridge actions speak only of cart
 * tokens, bearers and grants; each dialect in `dialects/` says how its server spells them. Adding a
 * server is adding a dialect file and its tests.
 */
import type { PresetName } from '../shared/presetName.js';
import { isRecord } from '../shared/protocol.js';
import type { Session, TokenReply } from './tokenResponse.js';

/** What kind of storefront request this is, for the credential table; `null` for anything else. */
export type RequestKind =
  /** Creates a cart: a guest's gets nothing, and the response brings the cart token. */
  | 'cartCreate'
  /** A call on a cart or an order the cart token opens (v2's cart and checkout). */
  | 'cartOrCheckout'
  /** A call only the bearer opens (the account, the user's carts and wishlists). */
  | 'account'
  /** A call whose successful answer is a token response (grants, registration, password reset). */
  | 'tokenGrant'
  /** Revokes a token (v2's revoke endpoint, v3's logout): a page's own is the worker's logout. */
  | 'revocation';

/**
 * A cart write the offline queue may carry: one that `adds` (applied twice, it adds twice: a second
 * line, a larger quantity) or one that `sets` (applied twice, the cart is as after once: a quantity
 * set, a line removed, a coupon applied or removed).
 */
export type CartWrite = 'adds' | 'sets';

/** A dialect's cart writes: the method, the path under its cart prefix, and what the write does. */
export type CartWriteTable = ReadonlyArray<readonly [method: string, path: RegExp, write: CartWrite]>;

/** The guest cart credential, the number shown to the shopper, and the cart's id where paths use it (v3). */
export interface HeldCart {
  token: string;
  number: string;
  /** The id in the server's cart paths (`/carts/{id}`); absent for servers whose paths need none (v2). */
  id?: string;
}

/** The tokens of a pair, as revocation needs them. */
export type TokenPair = Pick<Session, 'accessToken' | 'refreshToken'>;

/** One of the worker's own requests, as the dialect spells it; outbound.ts sends it under the base URL. */
export interface WireRequest {
  method: 'GET' | 'POST' | 'PATCH';
  /** The path under the base URL, with its query. */
  path: string;
  /** Names the request in messages: never a query, which may hold a token. */
  label: string;
  headers: Record<string, string>;
  body?: string | URLSearchParams;
}

/** How a page's own request body names a token (a refresh grant's or a revocation's), read from its text. */
export interface PageBody {
  /** The request's path under the base URL. */
  path: string;
  contentType: string | null;
  text: string;
}

/** A server's wire protocol. Pure: every member is a value or a function of plain values. */
export interface Dialect {
  readonly name: PresetName;
  /**
   * Every path prefix under the base URL that the worker may touch: the rest of the base gets
   * nothing, so it may go straight to the network (static routes).
   */
  readonly routePrefixes: readonly string[];
  /** The header that carries the guest's cart token. */
  readonly cartTokenHeader: string;
  /**
   * True when a signed-in shopper's cart calls carry the cart token beside the bearer: Spree 5
   * treats an expired bearer there as a guest's, so the cart token keeps the call working.
   */
  readonly cartTokenWithBearer: boolean;
  /**
   * True when an answer of `status` to a request of `kind` carrying a bearer shows the server took
   * that bearer (a refreshed one on probation is then confirmed). `cartTokenBeside`: a cart token went
   * with it, the worker's or the page's own. Spree 5 serves a refused JWT as a guest's where one is
   * optional, so there only some answers show it; Doorkeeper answers a refused bearer 401 anywhere.
   */
  bearerAccepted(kind: RequestKind, cartTokenBeside: boolean, status: number): boolean;
  /**
   * True where the server replays a refresh retried with the same `Idempotency-Key` (Spree 5): the
   * key is then stored with the refresh token before the grant goes out, so that whichever worker
   * retries a rotation whose answer was lost carries it.
   */
  readonly idempotentRefresh: boolean;
  /** The query parameter in which a page may send the cart token (v2's association), or `null`. */
  readonly cartTokenQuery: string | null;
  /** The token response's fields: the access token's and the refresh token's names. */
  readonly tokenFields: { readonly access: string; readonly refresh: string };
  /** The field that holds a cart's or an order's token: sealed as `sealed:order` wherever it is not a known value. */
  readonly cartTokenField: string;
  /**
   * The path prefixes whose answers hold another token in that field (v3's wishlists: a share token),
   * which reaches the page as sent there; known values are still sealed wherever they stand.
   */
  readonly otherTokenPrefixes: readonly string[];
  /** How the server refuses a refresh token, for a page's own sealed refresh once the session has ended. */
  readonly refusedRefresh: { readonly status: number; readonly body: Record<string, unknown> };
  /** What the server answers a revocation with, for a page's own one that the worker carried out. */
  readonly revocationAnswer: { readonly status: number; readonly body: string | null };

  /** The kind of a request by its path under the base URL and its method; `null` leaves it alone. */
  classify(path: string, method: string): RequestKind | null;
  /**
   * The cart write `method` on `path` (under the base URL) is, for the offline queue; `null` for
   * every other request: cart creation, checkout, payment, account and token calls are never queued.
   */
  queueableWrite(path: string, method: string): CartWrite | null;
  /**
   * True where the server answers a write repeated under one `Idempotency-Key` with its first answer
   * (Spree 5's Store API), so that any queued write is safe to send again, whatever it does.
   */
  readonly idempotencyKeys: boolean;

  /** The password grant for a login. */
  passwordGrant(username: string, password: string): WireRequest;
  /** The refresh grant; `idempotencyKey` is the same for every retry of one rotation, where the server honours one. */
  refreshGrant(refreshToken: string, idempotencyKey: string): WireRequest;
  /** The session a grant of the worker's own brought, or a `StorefrontAuthError` saying what went wrong. */
  judgeTokenReply(reply: TokenReply, grant: 'password' | 'refresh'): Session;
  /**
   * The session in a successful token response that arrived at `receivedAt` (device ms), or `null`
   * when it is not one; `serverDate` is the answer's `Date`, where a lifetime is judged by the server's clock.
   */
  readTokenBody(body: unknown, receivedAt: number, serverDate?: number | null): Session | null;
  /** The body of a token response answering a page's own sealed refresh grant from the worker's pair. */
  sealedTokenBody(session: Session, now: number): Record<string, unknown>;
  /** The refresh token a page's own refresh grant carries, or `null` when the body is no refresh grant. */
  pageRefreshToken(body: PageBody): string | null;
  /** The token a page's own revocation names, or `null` when it names none. */
  pageRevokedToken(body: PageBody): string | null;

  /** Cart creation; the bearer is added by the caller when signed in. */
  createCart(): WireRequest;
  /** The cart in a cart document, or `null` when the document lacks a field the dialect needs (v2: the number may be `''`). */
  readCart(body: unknown): HeldCart | null;
  /** Assigns a guest cart to the signed-in user; `null` when the cart lacks what the server needs. */
  associate(cart: HeldCart, accessToken: string): WireRequest | null;

  /** The requests that revoke `pair` at logout (none where the server has no revocation); a token that is `''` (`carriedPair`) is skipped. */
  revoke(pair: TokenPair): WireRequest[];
  /**
   * Where the server ignores the revocation of a pair whose access token has expired (Doorkeeper
   * 5.5): the request that, sent once with a refreshed bearer, ends the old pair, so that the new
   * pair can then be revoked. `null` where revoking an expired pair works as it is.
   */
  readonly touchAfterRefresh: ((accessToken: string) => WireRequest) | null;
}

/** The write in `table` that `method` on `path` is, where `path` lies under `prefix`; else `null`. */
export function cartWriteIn(table: CartWriteTable, prefix: string, path: string, method: string): CartWrite | null {
  if (!path.startsWith(`${prefix}/`)) return null;
  const rest = path.slice(prefix.length);
  return table.find(([wanted, pattern]) => wanted === method && pattern.test(rest))?.[2] ?? null;
}

/**
 * Larger token responses are not token responses, whoever sent the grant. As large as a cart the
 * worker keeps (`MAX_HELD`): Spree's answer carries the whole customer, every saved address
 * included, and a few hundred of them pass 64 KiB.
 */
export const MAX_TOKEN_BODY_CHARS = 1 << 20;

/**
 * The pair a token response holds by the dialect's field names, whatever else is wrong with it (a
 * JWT without `exp`, an expiry already past): what to revoke when the worker refuses to keep it.
 * A token it lacks is `''` (RFC 6749 5.1 makes `refresh_token` optional; Doorkeeper omits it without
 * `use_refresh_token`): the one it has was issued all the same. `null` when it has neither.
 */
export function carriedPair(dialect: Pick<Dialect, 'tokenFields'>, body: unknown): TokenPair | null {
  if (!isRecord(body)) return null;
  const accessToken = firstString(body[dialect.tokenFields.access]) ?? '';
  const refreshToken = firstString(body[dialect.tokenFields.refresh]) ?? '';
  return accessToken || refreshToken ? { accessToken, refreshToken } : null;
}

/** The first of `values` that is a non-empty string, or `null`. */
export function firstString(...values: unknown[]): string | null {
  for (const value of values) if (typeof value === 'string' && value !== '') return value;
  return null;
}
