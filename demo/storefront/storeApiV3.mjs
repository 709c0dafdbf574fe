// The spree-v3 flavour: Spree 5.4+'s Store API under /api/v3/store, answering as docs/servers.md,
// "Spree 5's Store API", says. One request goes through Spree's order of checks: request size, the
// JWT where one is required (prepended, so before the key), the publishable key, the JSON body,
// idempotency, the per-IP rate limit, then the action. server.mjs owns HTTP, the log and CORS.
import { randomBytes } from 'node:crypto';
import { IdempotencyCache, MAX_IDEMPOTENCY_KEY_LENGTH } from './v3Idempotency.mjs';
import { RateLimiter } from './v3RateLimits.mjs';
import { cartJson, createV3Shop, customerJson, decodeId, orderJson, page, productJson } from './v3Shop.mjs';
import { V3Tokens, base58Token, bearerToken } from './v3Tokens.mjs';

/** Where the Store API lives, under the server's basePath. */
export const V3_PREFIX = '/api/v3/store';
/** The flavour's publishable key unless `publishableKey` is given. */
export const DEFAULT_PUBLISHABLE_KEY = 'pk_test_storefront_auth';
/** Spree's `jwt_expiration` default, seconds. */
export const DEFAULT_V3_ACCESS_TOKEN_LIFETIME = 3600;
/** `request_size_limit.rb`. */
const MAX_BODY_BYTES = 100 * 1024;
const PASSWORD_RESET_LIFETIME_MS = 6 * 3600 * 1000;
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * @typedef {import('./tokens.mjs').Reply & { drop?: boolean, delayMs?: number, raised?: boolean }} V3Reply  `drop`: destroy the
 *   socket instead of answering; `delayMs`: answer only this long after the work was done; `raised`: see `raised()`
 * @typedef {{ method: string, path: string, headers: Record<string, string | string[] | undefined>, body: string, ip: string }} V3Request
 * @typedef {import('./v3Shop.mjs').Customer} Customer
 * @typedef {import('./v3Shop.mjs').Order} Order
 * @typedef {{ user: Customer | null, headers: V3Request['headers'], input: Record<string, any>, scope: string }} Context
 * @typedef {'none' | 'optional' | 'required'} JwtUse
 * @typedef {import('./v3RateLimits.mjs').Bucket} Bucket
 * @typedef {'rotations' | 'refreshSuccesses' | 'refusedRefreshes' | 'invalidGrants' | 'rateLimited' | 'idempotentReplays'
 *   | 'droppedAnswers' | 'revocations' | 'revocationsIgnored' | 'refusedBearers'} Counter
 */

/**
 * `{"error":{"code","message","details"?}}` (K/error_handler.rb).
 * @param {number} status @param {string} code @param {string} message @param {object} [details]
 * @returns {V3Reply}
 */
function fail(status, code, message, details) {
  return { status, body: { error: details ? { code, message, details } : { code, message } } };
}
/**
 * An error Spree raises (RecordNotFound, CanCan::AccessDenied) rather than renders: its rescue_from
 * renders it outside the Idempotent around_action, whose cache write never runs, so it is not kept.
 * @param {V3Reply} reply @returns {V3Reply}
 */
const raised = (reply) => ({ ...reply, raised: true });
const ok = (/** @type {number} */ status, /** @type {unknown} */ body) => ({ status, body });
const AUTH_REQUIRED = () => fail(401, 'authentication_required', 'Authentication required');
const DENIED = () => raised(fail(403, 'access_denied', 'You are not authorized to access this resource'));
// RecordNotFound's codes by model (error_handler.rb, determine_not_found_code).
const CART_NOT_FOUND = () => raised(fail(404, 'cart_not_found', 'Cart not found'));
const ORDER_NOT_FOUND = () => raised(fail(404, 'order_not_found', 'Order not found'));
const VARIANT_NOT_FOUND = () => raised(fail(404, 'variant_not_found', 'Variant not found'));
const LINE_ITEM_NOT_FOUND = () => raised(fail(404, 'line_item_not_found', 'Line item not found'));
const present = (/** @type {unknown} */ value) => typeof value === 'string' && value !== '';
/** Rails' `blank?` on a JSON value: null, false, a string of whitespace, an empty array or object. @param {unknown} value */
const blank = (value) => value == null || value === false || (typeof value === 'string' && value.trim() === '') || (typeof value === 'object' && Object.keys(value).length === 0);
const header = (/** @type {V3Request['headers']} */ headers, /** @type {string} */ name) => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * Devise's checks on a new password; `{ field: [messages] }`, empty when fine.
 * @param {Record<string, any>} input @returns {Record<string, string[]>}
 */
function passwordErrors(input) {
  /** @type {Record<string, string[]>} */
  const errors = {};
  if (!present(input['password'])) errors['password'] = ["can't be blank"];
  else if (input['password'].length < 6) errors['password'] = ['is too short (minimum is 6 characters)'];
  if (input['password_confirmation'] !== undefined && input['password_confirmation'] !== input['password']) errors['password_confirmation'] = ["doesn't match Password"];
  return errors;
}

/** 422 validation_error with Rails' full messages. @param {Record<string, string[]>} errors */
function validationError(errors) {
  const human = (/** @type {string} */ field) => field.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());
  const message = Object.entries(errors).flatMap(([field, list]) => list.map((text) => `${human(field)} ${text}`)).join(', ');
  return fail(422, 'validation_error', message, errors);
}

/**
 * @param {{ publishableKey?: string, accessTokenLifetime?: number, jwtSecret?: string,
 *   rateLimits?: Partial<import('./v3RateLimits.mjs').RateLimits>, count: (name: Counter) => void,
 *   refusingBearers: () => boolean, now?: () => number }} options  `now`: the server's clock (epoch ms), which
 *   writes and checks the JWTs' `exp`
 */
export function createStoreApiV3({ publishableKey = DEFAULT_PUBLISHABLE_KEY, accessTokenLifetime = DEFAULT_V3_ACCESS_TOKEN_LIFETIME, jwtSecret = randomBytes(32).toString('hex'), rateLimits, count, refusingBearers, now = Date.now }) {
  const shop = createV3Shop();
  const tokens = new V3Tokens({ secret: jwtSecret, lifetime: accessTokenLifetime, now });
  const idempotency = new IdempotencyCache();
  const limiter = new RateLimiter(rateLimits);
  /** Password reset tokens. @type {Map<string, { userId: number, expiresAt: number }>} */
  const resetTokens = new Map();
  let dropRefreshes = 0;
  /** delayRefreshAnswers: how many rotating refreshes are still to answer late, and how late. */
  let delayRefreshes = { times: 0, ms: 0 };

  /** @param {number} userId @param {number} status @param {{ token: string, refresh_token: string }} [pair] */
  const signIn = (userId, status, pair = tokens.issue(userId)) => {
    const user = /** @type {Customer} */ (shop.users.get(userId));
    return ok(status, { ...pair, user: customerJson(user) });
  };
  /** @param {Customer} user */
  const issueResetToken = (user) => {
    const token = base58Token(20);
    resetTokens.set(token, { userId: user.id, expiresAt: Date.now() + PASSWORD_RESET_LIFETIME_MS });
    return token;
  };
  /** `order.user == user || token == order.token`; the header is read case-insensitively (Node lowercases names). @param {Order} order @param {Context} ctx */
  const canAccess = (order, ctx) => (ctx.user !== null && order.userId === ctx.user.id) || (present(header(ctx.headers, 'x-spree-token')) && header(ctx.headers, 'x-spree-token') === order.token);
  const touch = (/** @type {Order} */ order) => (order.updatedAt = new Date().toISOString());

  /**
   * A route on /carts/:id…: an incomplete cart (404 otherwise), then the access rule (403).
   * @param {(order: Order, ctx: Context, match: RegExpExecArray) => V3Reply} action @param {{ completed?: boolean }} [options]
   * @returns {(ctx: Context, match: RegExpExecArray) => V3Reply}
   */
  const onCart = (action, { completed = false } = {}) => (ctx, match) => {
    const order = shop.orders.get(decodeId(decodeURIComponent(match[1] ?? '')) ?? 0);
    if (!order || (order.state === 'complete' && !completed)) return CART_NOT_FOUND();
    return canAccess(order, ctx) ? action(order, ctx, match) : DENIED();
  };
  const COUPON_NOT_FOUND = () => fail(422, 'processing_error', "The coupon code you entered doesn't exist. Please try again.");
  /** Absent (1) or a positive integer. @param {unknown} quantity */
  const validQuantity = (quantity) => quantity === undefined || (Number.isInteger(quantity) && /** @type {number} */ (quantity) > 0);

  /** @type {Array<[string, string, JwtUse, Bucket | null, (ctx: Context, match: RegExpExecArray) => V3Reply]>} */
  const routes = [
    ['POST', '/auth/login', 'none', 'login', ({ input }) => {
      // `params[:provider].presence || 'email'`; only the email strategy is registered.
      const provider = blank(input['provider']) ? 'email' : String(input['provider']);
      if (provider !== 'email') return fail(400, 'invalid_provider', `Unsupported authentication provider: ${provider}`);
      if (!present(input['email'])) return (count('invalidGrants'), fail(401, 'authentication_failed', 'Email is required'));
      if (!present(input['password'])) return (count('invalidGrants'), fail(401, 'authentication_failed', 'Password is required'));
      const user = shop.findUser(input['email']);
      if (!user || user.password !== input['password']) return (count('invalidGrants'), fail(401, 'authentication_failed', 'Invalid email or password'));
      return signIn(user.id, 200);
    }],
    ['POST', '/auth/refresh', 'none', 'refresh', ({ input }) => {
      const refused = (/** @type {string} */ message) => (count('refusedRefreshes'), count('invalidGrants'), fail(401, 'invalid_refresh_token', message));
      if (!present(input['refresh_token'])) return refused('refresh_token is required');
      const rotated = tokens.rotate(input['refresh_token']);
      if (!rotated) return refused('Invalid or expired refresh token');
      count('rotations');
      // The pair the rotation issued: Spree creates one new row per rotation, not two.
      const reply = signIn(rotated.userId, 200, rotated.pair);
      if (dropRefreshes > 0) return (dropRefreshes--, count('droppedAnswers'), { ...reply, drop: true });
      count('refreshSuccesses');
      if (delayRefreshes.times > 0) return (delayRefreshes.times--, { ...reply, delayMs: delayRefreshes.ms });
      return reply;
    }],
    ['POST', '/auth/logout', 'none', 'logout', ({ input }) => {
      count('revocations');
      if (!(present(input['refresh_token']) && tokens.revoke(input['refresh_token']))) count('revocationsIgnored');
      return ok(204, undefined);
    }],
    ['POST', '/customers', 'none', 'register', ({ input }) => {
      const errors = passwordErrors(input);
      if (!present(input['email'])) errors['email'] = ["can't be blank"];
      else if (!/^[^@\s]+@[^@\s]+$/.test(input['email'])) errors['email'] = ['is invalid'];
      else if (shop.findUser(input['email'])) errors['email'] = ['has already been taken'];
      if (Object.keys(errors).length) return validationError(errors);
      const text = (/** @type {unknown} */ value) => (typeof value === 'string' ? value : '');
      const user = shop.addUser({ email: input['email'].trim(), password: input['password'], first_name: text(input['first_name']), last_name: text(input['last_name']), phone: present(input['phone']) ? input['phone'] : null, accepts_email_marketing: input['accepts_email_marketing'] === true });
      return signIn(user.id, 201);
    }],
    ['GET', '/customers/me', 'required', null, ({ user }) => ok(200, customerJson(/** @type {Customer} */ (user)))],
    ['PATCH', '/customers/me', 'required', null, ({ user: signedIn, input }) => {
      const user = /** @type {Customer} */ (signedIn);
      const changesEmail = present(input['email']) && input['email'] !== user.email;
      if ((changesEmail || input['password'] !== undefined) && input['current_password'] !== user.password) return fail(422, 'current_password_invalid', 'Current password is invalid');
      const errors = input['password'] !== undefined ? passwordErrors(input) : {};
      if (Object.keys(errors).length) return validationError(errors);
      for (const name of /** @type {const} */ (['email', 'first_name', 'last_name', 'phone'])) if (typeof input[name] === 'string') user[name] = input[name];
      if (typeof input['accepts_email_marketing'] === 'boolean') user.accepts_email_marketing = input['accepts_email_marketing'];
      if (input['password'] !== undefined) user.password = input['password']; // refresh tokens survive (facts, section 2)
      return ok(200, customerJson(user));
    }],
    ['GET', '/customers/me/orders', 'required', null, ({ user }) =>
      ok(200, page([...shop.orders.values()].filter((order) => order.userId === user?.id && order.state === 'complete').map(orderJson)))],
    ['POST', '/password_resets', 'none', 'passwordReset', ({ input }) => {
      const user = present(input['email']) ? shop.findUser(input['email']) : undefined;
      if (user) issueResetToken(user);
      return ok(202, { message: 'If an account exists for that email, password reset instructions have been sent.' });
    }],
    ['PATCH', '/password_resets/([^/]+)', 'none', 'passwordReset', ({ input }, match) => {
      const token = decodeURIComponent(match[1] ?? '');
      const reset = resetTokens.get(token);
      if (!reset || Date.now() >= reset.expiresAt) return fail(422, 'password_reset_token_invalid', 'Password reset token is invalid or has expired');
      const errors = passwordErrors({ ...input, password_confirmation: input['password_confirmation'] ?? input['password'] });
      if (Object.keys(errors).length) return validationError(errors);
      resetTokens.delete(token);
      /** @type {Customer} */ (shop.users.get(reset.userId)).password = input['password'];
      tokens.revokeUser(reset.userId);
      return signIn(reset.userId, 200);
    }],
    ['GET', '/products', 'none', null, () => ok(200, page(shop.products.map(productJson)))],
    ['GET', '/products/([^/]+)', 'none', null, (_ctx, match) => {
      const product = shop.findProduct(decodeURIComponent(match[1] ?? ''));
      return product ? ok(200, productJson(product)) : fail(404, 'record_not_found', 'Product not found');
    }],
    ['POST', '/carts', 'optional', null, ({ user, input }) => {
      const order = shop.newCart(user);
      if (present(input['email'])) order.email = input['email'];
      if (input['metadata'] && typeof input['metadata'] === 'object') order.metadata = input['metadata'];
      for (const item of Array.isArray(input['items']) ? input['items'] : []) shop.addItem(order, item?.variant_id, Number.isInteger(item?.quantity) ? item.quantity : 1);
      return ok(201, cartJson(order));
    }],
    ['GET', '/carts', 'required', null, ({ user }) =>
      ok(200, page([...shop.orders.values()].filter((order) => order.userId === user?.id && order.state === 'cart').map(cartJson)))],
    ['GET', '/carts/([^/]+)', 'optional', null, onCart((order) => ok(200, cartJson(order)))],
    ['PATCH', '/carts/([^/]+)', 'optional', null, onCart((order, { input }) => {
      if (present(input['email'])) order.email = input['email'];
      if (input['metadata'] && typeof input['metadata'] === 'object') order.metadata = input['metadata'];
      return (touch(order), ok(200, cartJson(order)));
    })],
    ['DELETE', '/carts/([^/]+)', 'optional', null, onCart((order) => (shop.orders.delete(order.id), ok(204, undefined)))],
    ['POST', '/carts/([^/]+)/items', 'optional', null, onCart((order, { input }) => {
      // Spree finds the variant before the add-item service sees the quantity.
      if (!shop.findVariant(input['variant_id'])) return VARIANT_NOT_FOUND();
      if (!validQuantity(input['quantity'])) return validationError({ quantity: ['must be greater than 0'] });
      shop.addItem(order, input['variant_id'], input['quantity'] ?? 1);
      return ok(201, cartJson(order));
    })],
    ['PATCH', '/carts/([^/]+)/items/([^/]+)', 'optional', null, onCart((order, { input }, match) => {
      const item = order.lineItems.find((line) => line.id === decodeId(match[2] ?? ''));
      if (!item) return LINE_ITEM_NOT_FOUND();
      if (!validQuantity(input['quantity'])) return validationError({ quantity: ['must be greater than 0'] });
      item.quantity = input['quantity'] ?? item.quantity;
      return (touch(order), ok(200, cartJson(order)));
    })],
    ['DELETE', '/carts/([^/]+)/items/([^/]+)', 'optional', null, onCart((order, _ctx, match) => {
      const before = order.lineItems.length;
      order.lineItems = order.lineItems.filter((line) => line.id !== decodeId(match[2] ?? ''));
      if (order.lineItems.length === before) return LINE_ITEM_NOT_FOUND();
      return (touch(order), ok(200, cartJson(order)));
    })],
    // DiscountCodesController: 201 with the cart when applied, 200 when removed. A failure is the coupon
    // handler's message given to render_errors as a String, whose code is then inferred: processing_error.
    ['POST', '/carts/([^/]+)/discount_codes', 'optional', null, onCart((order, { input }) => {
      const code = String(input['code'] ?? '').toUpperCase();
      if (!shop.coupons.has(code)) return COUPON_NOT_FOUND();
      if (!order.couponCodes.includes(code)) order.couponCodes.push(code);
      return (touch(order), ok(201, cartJson(order)));
    })],
    ['DELETE', '/carts/([^/]+)/discount_codes/([^/]+)', 'optional', null, onCart((order, _ctx, match) => {
      const code = decodeURIComponent(match[2] ?? '').toUpperCase();
      if (!order.couponCodes.includes(code)) return COUPON_NOT_FOUND();
      order.couponCodes = order.couponCodes.filter((applied) => applied !== code);
      return (touch(order), ok(200, cartJson(order)));
    })],
    ['POST', '/carts/([^/]+)/complete', 'optional', null, onCart((order) => {
      if (order.state !== 'complete') Object.assign(order, { state: 'complete', completedAt: new Date().toISOString() }), touch(order);
      return ok(200, orderJson(order));
    }, { completed: true })],
    // Spree 5.6: a JWT and the cart's token (c5a3273a). The cart is looked up among the incomplete
    // guest carts and the caller's own before any token check, so another user's cart is 404.
    ['PATCH', '/carts/([^/]+)/associate', 'required', null, ({ user: signedIn, headers }, match) => {
      const user = /** @type {Customer} */ (signedIn);
      const order = shop.orders.get(decodeId(decodeURIComponent(match[1] ?? '')) ?? 0);
      if (!order || order.state === 'complete' || (order.userId !== null && order.userId !== user.id)) return CART_NOT_FOUND();
      const token = header(headers, 'x-spree-token');
      if (!present(token) || token !== order.token) return DENIED();
      Object.assign(order, { userId: user.id, email: user.email });
      return (touch(order), ok(200, cartJson(order)));
    }],
    ['GET', '/orders/([^/]+)', 'optional', null, (ctx, match) => {
      const order = shop.orders.get(decodeId(decodeURIComponent(match[1] ?? '')) ?? 0);
      if (!order || order.state !== 'complete') return ORDER_NOT_FOUND();
      // Spree scopes the lookup: the JWT's user's orders, else the orders whose token is the header's,
      // else none; so a guest without the right token meets no order, 404, never 403.
      const token = header(ctx.headers, 'x-spree-token');
      const found = ctx.user ? order.userId === ctx.user.id : present(token) && token === order.token;
      return found ? ok(200, orderJson(order)) : ORDER_NOT_FOUND();
    }],
  ];
  const table = routes.map(([method, path, jwt, bucket, action]) => ({ method, pattern: new RegExp(`^${path}/?$`), jwt, bucket, action }));

  /** The signed-in customer, or null for no, a bad or an expired JWT (and for every bearer under refuseEveryBearer). @param {V3Request} request */
  function customer(request) {
    const authorization = header(request.headers, 'authorization');
    if (refusingBearers() && bearerToken(authorization)) return (count('refusedBearers'), null);
    const id = tokens.userIdFrom(authorization);
    return id === null ? null : (shop.users.get(id) ?? null);
  }

  /** @param {V3Request} request @returns {V3Reply} */
  function answer(request) {
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    if (Buffer.byteLength(request.body) > MAX_BODY_BYTES) return fail(413, 'request_too_large', 'Request body is too large');
    const path = request.path.startsWith(`${V3_PREFIX}/`) ? request.path.slice(V3_PREFIX.length) : null;
    /** @type {RegExpExecArray | null} */
    let match = null;
    const route = path === null ? undefined : table.find((candidate) => candidate.method === method && (match = candidate.pattern.exec(path)));
    if (!route || !match) return fail(404, 'record_not_found', 'The resource you were looking for could not be found');

    // The JWT check of JWT-required routes is prepended: it runs before the key check.
    const user = route.jwt === 'none' ? null : customer(request);
    if (route.jwt === 'required' && !user) return AUTH_REQUIRED();
    const key = header(request.headers, 'x-spree-api-key');
    if (key !== publishableKey) return fail(401, 'invalid_token', 'Valid API key required');

    /** @type {Record<string, any>} */
    let input = {};
    if (request.body.trim() !== '') {
      try {
        input = JSON.parse(request.body);
      } catch {
        return fail(400, 'invalid_request', 'Invalid JSON in request body');
      }
      if (!input || typeof input !== 'object' || Array.isArray(input)) return fail(400, 'invalid_request', 'Request body must be a JSON object');
    }

    const idempotencyKey = header(request.headers, 'idempotency-key');
    const idempotent = IdempotencyCache.applies(method, idempotencyKey);
    const fingerprint = IdempotencyCache.fingerprint(method, request.path, request.body);
    if (idempotent) {
      if (/** @type {string} */ (idempotencyKey).length > MAX_IDEMPOTENCY_KEY_LENGTH) return fail(400, 'invalid_request', `Idempotency-Key must be at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`);
      const found = idempotency.lookup(key, /** @type {string} */ (idempotencyKey), fingerprint);
      if (found && 'reused' in found) return fail(422, 'idempotency_key_reused', 'Idempotency-Key has already been used with a different request');
      if (found) return (count('idempotentReplays'), found.replay);
    }

    // The auth limits give `rate_limit` no `by:`, so Rails counts them by `remote_ip` alone.
    const limited = route.bucket ? limiter.hit(route.bucket, request.ip) : null;
    if (limited) count('rateLimited');
    const { raised: notKept, ...reply } = limited ?? route.action({ user, headers: request.headers, input, scope: key }, match);
    if (idempotent && !notKept) {
      const { drop: _drop, delayMs: _delayMs, ...kept } = reply;
      idempotency.store(key, /** @type {string} */ (idempotencyKey), fingerprint, kept);
    }
    return reply;
  }

  /** @param {V3Request} request @returns {V3Reply} */
  function handle(request) {
    const reply = answer(request);
    return { ...reply, headers: { 'Content-Type': JSON_TYPE, ...reply.headers } };
  }

  /** Test controls; see README.md "The spree-v3 flavour". */
  const controls = {
    publishableKey,
    jwtSecret,
    /** The next `count` refreshes rotate, then the socket is destroyed without an answer. */
    dropRefreshAnswers(/** @type {number} */ times = 1) {
      dropRefreshes = times;
    },
    /**
     * The next `times` refreshes that rotate do so at once (and keep their answer under their
     * Idempotency-Key), then answer `ms` later: the answer is on its way while the rotation is done.
     * @param {{ ms: number, times?: number }} delay
     */
    delayRefreshAnswers({ ms, times = 1 }) {
      if (!(Number.isFinite(ms) && ms >= 0 && Number.isInteger(times) && times >= 0)) throw new TypeError('Expected { ms >= 0, times?: N }');
      delayRefreshes = { times, ms };
    },
    /** @param {import('./v3RateLimits.mjs').ForcedLimit} [forced] */
    forceRefreshRateLimit: (forced) => limiter.forceRefreshLimit(forced),
    /** @param {Partial<import('./v3RateLimits.mjs').RateLimits>} limits */
    setRateLimits: (limits) => limiter.set(limits),
    resetRateLimits: () => limiter.reset(),
    get rateLimits() {
      return { ...limiter.limits };
    },
    /** A fresh password reset token for a user's email (the token Spree would send by email). @param {string} email */
    passwordResetToken(email) {
      const user = shop.findUser(email);
      if (!user) throw new TypeError(`No customer with email ${email}`);
      return issueResetToken(user);
    },
    clearIdempotency: () => idempotency.clear(),
    refreshTokens: tokens.refreshTokens,
  };

  return { handle, controls, tokens, users: shop.users, orders: shop.orders };
}

/** @typedef {ReturnType<typeof createStoreApiV3>['controls']} StoreApiV3Controls */
