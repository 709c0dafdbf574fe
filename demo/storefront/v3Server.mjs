// What server.mjs needs for the spree-v3 flavour beyond storeApiV3.mjs: its test controls over
// HTTP, the client IP the rate limits count by, and the refresh token the request log records.
import { isIP } from 'node:net';

/** @typedef {import('./tokens.mjs').Reply} Reply */

/** Addresses Rails' RemoteIp middleware trusts as proxies: loopback and private ranges. */
const TRUSTED_PROXY = /^(127\.|10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|::1$|::ffff:127\.|f[cd][0-9a-f]{2}:)/i;

/**
 * The client IP as Rails' `request.remote_ip` sees it: the peer, unless it is a trusted proxy, then
 * the last untrusted address of X-Forwarded-For. So a self-test can put requests in separate buckets.
 * @param {import('node:http').IncomingMessage} req
 */
export function clientIp(req) {
  const peer = req.socket.remoteAddress ?? '';
  const forwarded = req.headers['x-forwarded-for'];
  if (!TRUSTED_PROXY.test(peer) || typeof forwarded !== 'string') return peer;
  const chain = forwarded.split(',').map((part) => part.trim()).filter((part) => isIP(part) !== 0);
  return chain.reverse().find((address) => !TRUSTED_PROXY.test(address)) ?? chain.at(-1) ?? peer;
}

/** The `refresh_token` of a JSON body, as received, for the request log. @param {string} body */
export function refreshTokenIn(body) {
  try {
    const value = JSON.parse(body)?.refresh_token;
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The spree-v3 test controls over HTTP (never logged, never under basePath); null for other routes.
 * @param {import('./storeApiV3.mjs').StoreApiV3Controls} controls
 * @param {string} route `${method} ${pathname}`
 * @param {() => any} json the request body parsed, or undefined
 * @param {(result?: unknown) => Reply} ok @param {(error: string) => Reply} badRequest
 * @returns {Reply | null}
 */
export function v3Control(controls, route, json, ok, badRequest) {
  const input = () => json() ?? {};
  const count = (/** @type {unknown} */ value) => value === undefined || (Number.isInteger(value) && /** @type {number} */ (value) >= 0);
  try {
    switch (route) {
      case 'GET /__control/v3': return ok({ publishableKey: controls.publishableKey, rateLimits: controls.rateLimits });
      case 'POST /__control/drop-refresh-answers': {
        const { times } = input();
        if (!count(times)) return badRequest('Expected {"times": N}');
        return controls.dropRefreshAnswers(times ?? 1), ok();
      }
      case 'POST /__control/delay-refresh-answers': {
        const { ms, times } = input();
        return controls.delayRefreshAnswers({ ms, ...(times === undefined ? {} : { times }) }), ok();
      }
      case 'POST /__control/force-refresh-429': {
        const { times, forMs, retryAfter } = input();
        if (!count(times) || !(forMs === undefined || typeof forMs === 'number') || !(retryAfter === undefined || Number.isInteger(retryAfter))) {
          return badRequest('Expected {"times"?: N, "forMs"?: ms, "retryAfter"?: seconds}');
        }
        return controls.forceRefreshRateLimit({ times, forMs, retryAfter }), ok();
      }
      case 'POST /__control/rate-limits': return controls.setRateLimits(input()), ok({ rateLimits: controls.rateLimits });
      case 'POST /__control/reset-rate-limits': return controls.resetRateLimits(), ok();
      case 'POST /__control/password-reset-token': return ok({ token: controls.passwordResetToken(String(input().email)) });
    }
  } catch (error) {
    return badRequest(/** @type {Error} */ (error).message);
  }
  return null;
}
