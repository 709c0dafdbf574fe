// The reference storefront: an in-memory Spree-like storefront API (shop.mjs) and Doorkeeper-like
// OAuth endpoints (tokens.mjs) on one node:http server, plus static files (static.mjs), a request
// log, canned replies ("overrides") and test controls. What passes against it should pass against
// a real Spree shop; docs/servers.md lists the behaviours it copies. The spree-v3 flavour answers
// Spree 5.4+'s Store API instead (storeApiV3.mjs; docs/servers.md, "Spree 5's Store API").
import http from 'node:http';
import { createShop } from './shop.mjs';
import { serveStatic } from './static.mjs';
import { DEFAULT_V3_ACCESS_TOKEN_LIFETIME, createStoreApiV3 } from './storeApiV3.mjs';
import { TokenStore, parseTokenParams, revokeEndpoint, tokenEndpoint } from './tokens.mjs';
import { clientIp, refreshTokenIn, v3Control } from './v3Server.mjs';

/**
 * @typedef {object} StorefrontOptions
 * @property {number} [port]                 default 0: an ephemeral port
 * @property {string} [host]                 default '127.0.0.1'
 * @property {number} [accessTokenLifetime]  seconds, default 7200 (spree-v3: 3600); fractions allowed (reported as
 *           given; spree-v3's `exp` is whole seconds, so its JWTs live between lifetime - 1 and lifetime seconds)
 * @property {'doorkeeper' | 'strict'} [rotation]  default 'doorkeeper'
 * @property {import('./tokens.mjs').Revocation} [revocation]  default 'all'; 'doorkeeper-5.5' ignores
 *           revoke requests for a pair whose access token has expired
 * @property {'store' | 'spree' | 'spree-v3'} [flavour]   header and OAuth path names; default 'store'.
 *           'spree-v3' serves Spree 5.4+'s Store API under {basePath}/api/v3/store instead of v2 and OAuth
 * @property {string} [publishableKey]       spree-v3: the X-Spree-Api-Key every route needs; default 'pk_test_storefront_auth'
 * @property {string} [jwtSecret]            spree-v3: the HS256 secret; default random per start
 * @property {Partial<import('./v3RateLimits.mjs').RateLimits>} [rateLimits]  spree-v3: per-IP limits per window
 *           (seconds); default Spree's: login 5, refresh 10, logout 10, register 3, passwordReset 3, window 60
 * @property {string} [basePath]             prefix of the API and OAuth paths, e.g. '/store'; default ''
 * @property {boolean} [keepAlive]           default true; false answers every request with `Connection: close`. A browser
 *           sends a request again by itself when a reused keep-alive connection closes before any answer (Chromium
 *           does, whatever the method), so a test that drops an answer (an override's `drop`) turns it off to see
 *           the network error a client sees on a fresh connection
 * @property {number} [clockOffset]          seconds the server's clock reads ahead of the machine's (negative: behind); default 0.
 *           Every answer's `Date` reads it, and spree-v3 writes and checks its JWTs' `exp` by it
 * @property {import('./static.mjs').StaticMount[]} [static]  file mounts for GET/HEAD the API does not claim
 *
 * @typedef {object} LoggedRequest
 * @property {string} method
 * @property {string} path     pathname as received, without basePath when under it
 * @property {string} search   '' or '?…', as received
 * @property {{ authorization?: string, orderToken?: string, host?: string, origin?: string, contentType?: string, range?: string, referer?: string, apiKey?: string, idempotencyKey?: string }} headers
 *           orderToken is the flavour's order token header (spree-v3: x-spree-token); each is undefined when
 *           absent; apiKey (X-Spree-Api-Key) and idempotencyKey (Idempotency-Key) only under spree-v3. `host` tells
 *           apart the origins one server answers under (127.0.0.1 and localhost), and a test that
 *           redirects to a second storefront reads there whether a credential header followed
 * @property {number} at       Date.now() on receipt
 * @property {string} [body]   for POST, PATCH and PUT
 * @property {number} [status] the status answered, set once the response has been sent
 * @property {number} [answeredAt] Date.now() once the response has been sent (the bench's storm timeline)
 * @property {string} [refreshToken] spree-v3, /auth/* calls: the JSON body's refresh_token as received
 * @property {boolean} [dropped]  the answer was dropped (socket destroyed): by an override's `drop`, or spree-v3's dropRefreshAnswers
 * @property {boolean} [replayed] spree-v3: answered from the idempotency cache (Idempotent-Replayed: true)
 *
 * @typedef {object} Stats
 * @property {number} tokenRequests     requests to the token path other than preflights, on receipt
 * @property {number} passwordGrants    of which grant_type=password, on receipt (overridden ones too)
 * @property {number} refreshGrants     of which grant_type=refresh_token, on receipt (before any delay)
 * @property {number} refreshSuccesses  refresh grants answered 200 by the normal handling
 * @property {number} invalidGrants     400 invalid_grant answers of the normal handling
 * @property {number} revocations       revoke requests handled (not overridden)
 * @property {number} revocationsIgnored  of which answered 200 but changed nothing: unknown or already
 *           revoked token, missing `token`, or an expired access token under revocation 'doorkeeper-5.5'
 * @property {number} refusedBearers    API requests answered 401 by refuseEveryBearer (spree-v3: bearers
 *           treated as absent by it)
 * @property {number} [rotations]         spree-v3: refresh tokens rotated (dropped answers included, replays not)
 * @property {number} [refusedRefreshes]  spree-v3: refreshes answered 401 invalid_refresh_token
 * @property {number} [rateLimited]       spree-v3: 429s answered by rate limiting, real or forced (not replays)
 * @property {number} [idempotentReplays] spree-v3: answers replayed from the idempotency cache
 * @property {number} [droppedAnswers]    spree-v3: refresh answers dropped after rotating
 *
 * @typedef {object} OverrideReply
 * @property {number} [status]            default 200
 * @property {Record<string, string>} [headers]
 * @property {string | object} [body]     objects are sent as JSON
 * @property {number} [delayMs]           wait this long first
 * @property {number} [times]             how many requests it answers, default 1
 * @property {boolean} [passThrough]      after the delay, handle the request normally
 * @property {boolean} [keepQuery]        a redirect that carries on the query it received: the request's query is appended to `Location`
 * @property {Array<string | Buffer>} [chunks]  a streamed answer instead of `body`: headers at once (no Content-Length),
 *           then each chunk written on its own, `everyMs` apart (default 0), and the answer ended after the last
 * @property {Buffer} [raw]            the answer's bytes as they are, written on the socket, which is then closed
 * @property {number} [everyMs]           the pause before each chunk after the first
 * @property {boolean} [forever]          with `chunks`: starts over after the last chunk, until the client goes away
 * @property {boolean} [ranges]           honours a request's `Range: bytes=first-last` (either end may be missing) on
 *           `body`: 206 with that part and `Content-Range`, as a file server does; `If-Range` is ignored
 * @property {boolean} [drop]             no answer: the socket is destroyed, so the client sees a network error. With
 *           `passThrough` the request is handled first (a write is applied, spree-v3 keeps the answer under its
 *           Idempotency-Key) and only the answer is lost
 *
 * @typedef {object} Storefront
 * @property {string} url      'http://host:port', no trailing slash, no basePath
 * @property {string} apiUrl   url + basePath
 * @property {number} port
 * @property {() => Promise<void>} close  stops the server and drops every connection
 * @property {{ username: string, password: string }} user  the demo user's credentials
 * @property {LoggedRequest[]} requests   every request in order of receipt, preflights included, /__control/ excluded
 * @property {() => Stats} stats
 * @property {() => void} clearLog        empties requests and zeroes stats
 * @property {() => void} revokeAllTokens
 * @property {() => void} expireAllAccessTokens
 * @property {(method: string, path: string, reply?: OverrideReply) => void} override
 *           the next `times` requests with that method and pathname (without basePath) get `reply`
 * @property {() => void} clearOverrides
 * @property {(on: boolean) => void} refuseEveryBearer
 *           while on, every request with an `Authorization: Bearer <token>` header to an API endpoint
 *           that authenticates (not public, not unknown) is 401 "The access token was revoked", the
 *           token store untouched; the token endpoint keeps issuing and refreshing. Overrides come first
 * @property {ReadonlyMap<string, import('./shop.mjs').User>} users     by id (read-only for tests)
 * @property {ReadonlyMap<string, import('./shop.mjs').Cart>} carts     by order token (read-only)
 * @property {ReadonlyMap<string, import('./tokens.mjs').TokenPair>} tokens  pairs by access and by refresh token (read-only)
 * @property {number} accessTokenLifetime  seconds, as in effect
 * @property {import('./storeApiV3.mjs').StoreApiV3Controls | null} v3  spree-v3's own test controls; null otherwise
 */

/** Names that differ between this API's own (`store`) and Spree's (docs/servers.md). */
const FLAVOURS = {
  store: { orderTokenHeader: 'X-Store-Order-Token', tokenPath: '/store_oauth/token', revokePath: '/store_oauth/revoke' },
  spree: { orderTokenHeader: 'X-Spree-Order-Token', tokenPath: '/spree_oauth/token', revokePath: '/spree_oauth/revoke' },
  // Spree 5.4+'s Store API has no OAuth paths: its auth endpoints are under /api/v3/store (storeApiV3.mjs).
  'spree-v3': { orderTokenHeader: 'x-spree-token', tokenPath: null, revokePath: null },
};

const API_TYPE = 'application/vnd.api+json; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';
const BODY_METHODS = new Set(['POST', 'PATCH', 'PUT']);
/** A bearer with a token; Doorkeeper reads `Bearer ` with nothing after it as no token at all (a guest). */
const BEARER = /^Bearer\s+\S/i;
/** Spree's answer to a revoked bearer (docs/servers.md, "Spree's storefront endpoints"). */
const REFUSED_BEARER = { status: 401, headers: { 'Content-Type': API_TYPE }, body: { error: 'The access token was revoked' } };
/** How many requests `GET /__control/requests` lists. */
const RECENT_REQUESTS = 20;

/** The browser preflights any request with an Authorization or custom header (docs/cors.md). */
const PREFLIGHT = {
  status: 204,
  headers: {
    'Access-Control-Allow-Methods': 'GET, POST, PATCH, PUT, DELETE, OPTIONS',
    'Access-Control-Allow-Headers': 'Authorization, Content-Type, X-Store-Order-Token, X-Spree-Order-Token',
    'Access-Control-Max-Age': '600',
  },
};

/** The Store API's headers, which a host app's CORS set-up must allow and expose (docs/servers.md, "CORS"). */
const V3_PREFLIGHT = {
  status: 204,
  headers: {
    ...PREFLIGHT.headers,
    'Access-Control-Allow-Headers':
      'Content-Type, X-Spree-Api-Key, Authorization, x-spree-token, Idempotency-Key, x-spree-locale, x-spree-currency, x-spree-country, x-spree-channel',
  },
};
// `Date` too, which a CORS response hides unless exposed: a client judges a JWT's lifetime by the server's clock.
const V3_EXPOSED = 'Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, Idempotent-Replayed, Date';

/** @param {string | undefined} origin @param {string} [exposed] */
function corsHeaders(origin, exposed = 'WWW-Authenticate') {
  return origin ? { 'Access-Control-Allow-Origin': origin, Vary: 'Origin', 'Access-Control-Expose-Headers': exposed } : {};
}

/**
 * @param {http.ServerResponse} res
 * @param {{ status: number, headers?: Record<string, string>, body?: unknown }} reply
 * @param {Record<string, string>} cors @param {boolean} head
 */
function send(res, { status, headers = {}, body }, cors, head) {
  if (res.headersSent || res.destroyed) return;
  const payload = body === undefined ? '' : typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  res.statusCode = status;
  for (const [name, value] of Object.entries({ ...cors, ...headers })) res.setHeader(name, value);
  if (status === 204 || status === 304) return void res.end();
  if (!res.hasHeader('Content-Length')) res.setHeader('Content-Length', Buffer.byteLength(payload));
  res.end(head ? undefined : payload);
}

/**
 * A streamed answer: the headers at once (chunked, no Content-Length), then each chunk as a write of
 * its own, `everyMs` apart; with `forever`, over and over until the client goes away.
 * @param {http.ServerResponse} res
 * @param {{ status: number, headers?: Record<string, string> }} reply
 * @param {Record<string, string>} cors
 * @param {{ chunks?: Array<string | Buffer>, everyMs?: number, forever?: boolean }} stream
 */
async function streamReply(res, { status, headers = {} }, cors, { chunks = [], everyMs = 0, forever = false }) {
  res.statusCode = status;
  for (const [name, value] of Object.entries({ ...cors, ...headers })) res.setHeader(name, value);
  res.flushHeaders();
  do {
    for (const [i, chunk] of chunks.entries()) {
      if (i > 0 || forever) await new Promise((resolve) => setTimeout(resolve, everyMs));
      if (res.destroyed || res.writableEnded) return;
      res.write(chunk);
    }
  } while (forever && !res.destroyed);
  res.end();
}

/**
 * `reply` cut to the byte range a `Range` header asks for (RFC 9110 14.2, one range: `bytes=first-`,
 * `bytes=first-last`, `bytes=-suffix`): 206 with `Content-Range`, or 416 when it starts past the end.
 * @param {{ status: number, headers?: Record<string, string>, body?: unknown }} reply
 * @param {string | undefined} range
 */
function ranged(reply, range) {
  const match = /^bytes=(\d*)-(\d*)$/.exec(range ?? '');
  if (!match || (match[1] === '' && match[2] === '')) return reply;
  const body = reply.body === undefined ? Buffer.alloc(0) : Buffer.isBuffer(reply.body) ? reply.body : Buffer.from(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body));
  const size = body.length;
  const first = match[1] === '' ? Math.max(0, size - Number(match[2])) : Number(match[1]);
  const last = match[1] === '' || match[2] === '' ? size - 1 : Math.min(size - 1, Number(match[2]));
  if (first >= size || first > last) return { status: 416, headers: { ...reply.headers, 'Content-Range': `bytes */${size}` }, body: '' };
  return { status: 206, headers: { ...reply.headers, 'Content-Range': `bytes ${first}-${last}/${size}` }, body: body.subarray(first, last + 1) };
}

/** @param {http.IncomingMessage} req */
async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Starts the reference storefront.
 * @param {StorefrontOptions} [options]
 * @returns {Promise<Storefront>}
 */
export async function startStorefront(options = {}) {
  const { port = 0, host = '127.0.0.1', rotation = 'doorkeeper', revocation = 'all', flavour = 'store', static: mounts = [], keepAlive = true } = options;
  const isV3 = flavour === 'spree-v3';
  const accessTokenLifetime = options.accessTokenLifetime ?? (isV3 ? DEFAULT_V3_ACCESS_TOKEN_LIFETIME : 7200);
  if (!(rotation in { doorkeeper: 1, strict: 1 })) throw new TypeError(`rotation must be 'doorkeeper' or 'strict', not ${rotation}`);
  if (!(revocation in { all: 1, 'doorkeeper-5.5': 1 })) throw new TypeError(`revocation must be 'all' or 'doorkeeper-5.5', not ${revocation}`);
  if (!(flavour in FLAVOURS)) throw new TypeError(`flavour must be 'store', 'spree' or 'spree-v3', not ${flavour}`);
  if (!(Number.isFinite(accessTokenLifetime) && accessTokenLifetime > 0)) throw new TypeError('accessTokenLifetime must be a positive number of seconds');
  const clockOffset = options.clockOffset ?? 0;
  if (!Number.isFinite(clockOffset)) throw new TypeError('clockOffset must be a number of seconds');
  /** The server's clock, epoch ms. */
  const clock = () => Date.now() + clockOffset * 1000;
  const basePath = (options.basePath ?? '').replace(/\/+$/, '');
  if (basePath && !basePath.startsWith('/')) throw new TypeError(`basePath must start with '/': ${basePath}`);
  const names = FLAVOURS[flavour];
  const orderTokenHeader = names.orderTokenHeader.toLowerCase();

  const tokens = new TokenStore({ lifetime: accessTokenLifetime, rotation, revocation });
  const shop = createShop({ tokens, orderTokenHeader });
  /** @type {LoggedRequest[]} */
  const requests = [];
  /** @type {Array<{ method: string, path: string, reply: OverrideReply, left: number }>} */
  let overrides = [];
  /** @returns {Stats} */
  const zero = () => ({
    ...{ passwordGrants: 0, refreshGrants: 0, refreshSuccesses: 0, invalidGrants: 0, tokenRequests: 0, revocations: 0, revocationsIgnored: 0, refusedBearers: 0 },
    ...(isV3 ? { rotations: 0, refusedRefreshes: 0, rateLimited: 0, idempotentReplays: 0, droppedAnswers: 0 } : {}),
  });
  let counts = zero();
  /** refuseEveryBearer: a test control, so clearLog and clearOverrides leave it as it is. */
  let refusingBearers = false;
  const v3 = isV3
    ? createStoreApiV3({
        accessTokenLifetime,
        ...(options.publishableKey === undefined ? {} : { publishableKey: options.publishableKey }),
        ...(options.jwtSecret === undefined ? {} : { jwtSecret: options.jwtSecret }),
        ...(options.rateLimits === undefined ? {} : { rateLimits: options.rateLimits }),
        count: (name) => void (counts[name] = (counts[name] ?? 0) + 1),
        refusingBearers: () => refusingBearers,
        now: clock,
      })
    : null;
  const preflight = isV3 ? V3_PREFLIGHT : PREFLIGHT;
  const exposed = isV3 ? V3_EXPOSED : undefined;
  /** Pending delays, cancelled on close so a slow override never keeps the process alive. */
  const timers = new Set();
  const delay = (/** @type {number} */ ms) =>
    new Promise((resolve) => {
      const timer = setTimeout(() => (timers.delete(timer), resolve(undefined)), ms);
      timers.add(timer);
    });

  /** @param {string} method @param {string} path */
  function takeOverride(method, path) {
    const found = overrides.find((entry) => entry.method === method && entry.path === path);
    if (found && --found.left <= 0) overrides = overrides.filter((entry) => entry !== found);
    return found?.reply;
  }

  /** @param {OverrideReply} reply @param {string} path */
  function cannedReply(reply, path, search = '') {
    const headers = { ...reply.headers };
    if (reply.keepQuery && search) {
      const name = Object.keys(headers).find((candidate) => candidate.toLowerCase() === 'location');
      if (name) headers[name] = `${headers[name]}${headers[name].includes('?') ? `&${search.slice(1)}` : search}`;
    }
    if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) {
      headers['Content-Type'] = path.startsWith('/api/') && !isV3 ? API_TYPE : JSON_TYPE; // the Store API answers plain JSON
    }
    return { status: reply.status ?? 200, headers, body: reply.body };
  }

  /**
   * The last API and OAuth requests for the demo's live panel: which credential header each one
   * carried, by name only. The query is left out because it can hold a token (`guest_order_token`).
   */
  function recentApiRequests() {
    const isApi = (/** @type {string} */ path) => path.startsWith('/api/') || path === names.tokenPath || path === names.revokePath;
    return requests
      .filter((entry) => entry.method !== 'OPTIONS' && isApi(entry.path))
      .slice(-RECENT_REQUESTS)
      .map(({ method, path, at, headers }) => ({
        method,
        path,
        at,
        headers: [headers.authorization === undefined ? null : 'Authorization', headers.orderToken === undefined ? null : names.orderTokenHeader].filter((name) => name !== null),
      }));
  }

  /**
   * The test controls over HTTP, for a browser-driven demo or another process. Never logged.
   * @param {string} method @param {string} pathname @param {string} body
   */
  function control(method, pathname, body) {
    if (method === 'OPTIONS') return preflight;
    const ok = (/** @type {unknown} */ result = { ok: true }) => ({ status: 200, headers: { 'Content-Type': JSON_TYPE }, body: result });
    const badRequest = (/** @type {string} */ error) => ({ status: 400, headers: { 'Content-Type': JSON_TYPE }, body: { error } });
    const json = () => {
      try {
        return JSON.parse(body);
      } catch {
        return undefined;
      }
    };
    switch (`${method} ${pathname}`) {
      case 'POST /__control/revoke-all': return handle.revokeAllTokens(), ok();
      case 'POST /__control/expire-all': return handle.expireAllAccessTokens(), ok();
      case 'POST /__control/clear': return handle.clearLog(), ok();
      case 'POST /__control/clear-overrides': return handle.clearOverrides(), ok();
      case 'GET /__control/stats': return ok({ ...handle.stats(), requests: requests.length });
      case 'GET /__control/requests': return ok({ requests: recentApiRequests() });
      case 'POST /__control/override': {
        const input = json();
        if (typeof input?.method !== 'string' || typeof input?.path !== 'string') return badRequest('Expected {"method", "path", "reply"}');
        return handle.override(input.method, input.path, input.reply ?? {}), ok();
      }
      case 'POST /__control/refuse-bearers': {
        const input = json();
        if (typeof input?.on !== 'boolean') return badRequest('Expected {"on": true} or {"on": false}');
        return handle.refuseEveryBearer(input.on), ok();
      }
    }
    const v3Reply = v3 && v3Control(v3.controls, `${method} ${pathname}`, json, ok, badRequest);
    if (v3Reply) return v3Reply;
    return { status: 404, headers: { 'Content-Type': JSON_TYPE }, body: { error: 'Unknown control' } };
  }

  /** @param {http.IncomingMessage} req @param {http.ServerResponse} res */
  async function route(req, res) {
    const method = (req.method ?? 'GET').toUpperCase();
    const rawUrl = req.url ?? '/';
    const queryAt = rawUrl.indexOf('?');
    const pathname = queryAt < 0 ? rawUrl : rawUrl.slice(0, queryAt);
    const search = queryAt < 0 ? '' : rawUrl.slice(queryAt);
    const cors = corsHeaders(req.headers.origin, exposed);
    if (!keepAlive) res.setHeader('Connection', 'close');
    /** Set by an override's `drop`: whatever answers, the client gets no answer. */
    let dropAnswer = false;
    const respond = (/** @type {Parameters<typeof send>[1]} */ reply) => {
      if (!dropAnswer) return send(res, reply, cors, method === 'HEAD');
      entry.dropped = true;
      res.destroy();
    };
    // Node writes the machine's time; a server whose clock is off writes its own.
    if (clockOffset !== 0) res.setHeader('Date', new Date(clock()).toUTCString());

    if (pathname.startsWith('/__control/')) return respond(control(method, pathname, await readBody(req)));

    const underBase = !basePath || pathname === basePath || pathname.startsWith(`${basePath}/`);
    const path = underBase ? pathname.slice(basePath.length) || '/' : pathname;
    /** @type {LoggedRequest} */
    const entry = {
      method,
      path,
      search,
      headers: { authorization: req.headers.authorization, orderToken: /** @type {string | undefined} */ (req.headers[orderTokenHeader]), host: req.headers.host, origin: req.headers.origin, contentType: req.headers['content-type'], range: req.headers.range, referer: req.headers.referer },
      at: Date.now(),
    };
    if (isV3) Object.assign(entry.headers, { apiKey: req.headers['x-spree-api-key'], idempotencyKey: req.headers['idempotency-key'] });
    requests.push(entry); // before the body arrives, so the log keeps the order of receipt
    // Whatever answered (API, override, static file), so a test can tell a replayed request's two arrivals apart.
    res.once('finish', () => {
      entry.status = res.statusCode;
      entry.answeredAt = Date.now();
      if (isV3 && res.getHeader('Idempotent-Replayed') === 'true') entry.replayed = true;
    });
    const body = await readBody(req);
    if (BODY_METHODS.has(method)) entry.body = body;
    const v3Auth = isV3 && underBase && method === 'POST' ? /^\/api\/v3\/store\/auth\/(login|refresh|logout)\/?$/.exec(path)?.[1] : undefined;
    if (v3Auth) {
      entry.refreshToken = refreshTokenIn(body);
      // Counted on receipt, overridden or delayed or not, as the token requests of the other flavours.
      if (v3Auth !== 'logout') counts.tokenRequests++;
      if (v3Auth === 'login') counts.passwordGrants++;
      if (v3Auth === 'refresh') counts.refreshGrants++;
    }

    // Token requests are counted on receipt, overridden or delayed or not, so tests can count attempts.
    const isTokenPost = underBase && method === 'POST' && path === names.tokenPath;
    const tokenParams = isTokenPost ? parseTokenParams(req.headers['content-type'], body) : null;
    if (underBase && method !== 'OPTIONS' && path === names.tokenPath) counts.tokenRequests++;
    if (tokenParams?.['grant_type'] === 'password') counts.passwordGrants++;
    if (tokenParams?.['grant_type'] === 'refresh_token') counts.refreshGrants++;

    const override = takeOverride(method, path);
    if (override?.delayMs) await delay(override.delayMs);
    dropAnswer = override?.drop === true;
    // A review's raw answer: these bytes on the socket as they are (status line, headers, body), then the socket closed.
    if (override?.raw && !override.passThrough) {
      entry.status = 0;
      req.socket.end(override.raw);
      return;
    }
    if (override?.chunks && !override.passThrough) return streamReply(res, cannedReply(override, path, search), cors, override);
    if (override && !override.passThrough) return respond(ranged(cannedReply(override, path, search), override.ranges ? req.headers.range : undefined));

    if (method === 'OPTIONS') return respond(preflight);
    if (v3 && underBase && path.startsWith('/api/')) {
      const { drop, delayMs, ...reply } = v3.handle({ method, path, headers: req.headers, body, ip: clientIp(req) });
      // The work is done (a rotation committed and kept under its Idempotency-Key); the answer comes later.
      if (delayMs) await delay(delayMs);
      if (!drop) return respond(reply);
      // The server has done the work (rotated, kept the answer under its Idempotency-Key); the answer is lost.
      entry.dropped = true;
      return void res.destroy();
    }
    if (isTokenPost) {
      const reply = tokenEndpoint(tokens, shop.checkPassword, tokenParams);
      const error = /** @type {{ error?: string }} */ (reply.body).error;
      if (error === 'invalid_grant') counts.invalidGrants++;
      if (reply.status === 200 && tokenParams?.['grant_type'] === 'refresh_token') counts.refreshSuccesses++;
      return respond(reply);
    }
    if (underBase && method === 'POST' && path === names.revokePath) {
      counts.revocations++;
      const { revoked, ...reply } = revokeEndpoint(tokens, parseTokenParams(req.headers['content-type'], body));
      if (!revoked) counts.revocationsIgnored++;
      return respond(reply);
    }
    if (underBase && path.startsWith('/api/')) {
      // Checked before the token store sees the bearer, so a refused request never counts as the
      // first use of a refreshed access token (which would revoke the pair it replaced).
      if (refusingBearers && BEARER.test(req.headers.authorization ?? '') && shop.authenticates(method, path)) {
        counts.refusedBearers++;
        return respond(REFUSED_BEARER);
      }
      const reply = shop.handle({ method, path, query: new URLSearchParams(search), headers: req.headers, body });
      return respond({ ...reply, headers: { 'Content-Type': API_TYPE } });
    }
    if (method === 'GET' || method === 'HEAD') return respond(await serveStatic(mounts, pathname));
    return respond({ status: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: 'Not found' });
  }

  const server = http.createServer((req, res) => {
    route(req, res).catch((error) => {
      if (error?.code !== 'ERR_STREAM_PREMATURE_CLOSE' && error?.code !== 'ECONNRESET') console.error('storefront:', error);
      send(res, { status: 500, headers: { 'Content-Type': JSON_TYPE }, body: { error: 'Internal server error' } }, corsHeaders(req.headers.origin, exposed), false);
    });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => (server.off('error', reject), resolve(undefined)));
  });
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
  const demo = /** @type {import('./shop.mjs').User} */ (shop.users.get('1')); // the same in both shops

  /** @type {Storefront} */
  const handle = {
    url,
    apiUrl: url + basePath,
    port: address.port,
    close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
    user: { username: demo.email, password: demo.password },
    requests,
    stats: () => ({ ...counts }),
    clearLog() {
      requests.length = 0;
      counts = zero();
    },
    revokeAllTokens: () => (v3 ? v3.tokens.revokeAll() : tokens.revokeAll()),
    expireAllAccessTokens: () => (v3 ? v3.tokens.expireAll() : tokens.expireAll()),
    override(method, path, reply = {}) {
      overrides.push({ method: method.toUpperCase(), path, reply, left: reply.times ?? 1 });
    },
    clearOverrides() {
      overrides = [];
    },
    refuseEveryBearer(on) {
      refusingBearers = Boolean(on);
    },
    users: /** @type {any} */ (v3 ? v3.users : shop.users),
    carts: /** @type {any} */ (v3 ? v3.orders : shop.carts),
    tokens: /** @type {any} */ (v3 ? v3.tokens.refreshTokens : tokens.tokens),
    accessTokenLifetime,
    v3: v3 ? v3.controls : null,
  };
  return handle;
}
