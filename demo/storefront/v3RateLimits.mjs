// Spree's per-IP limits on the auth endpoints, as they answer after the fix in commit 38dc897
// (docs/servers.md, "Rate limits"): a fixed window per (bucket, IP), as Rails' `rate_limit` counts
// in its cache, and a 429 with Retry-After once a bucket is over.

/**
 * @typedef {'login' | 'refresh' | 'logout' | 'register' | 'passwordReset'} Bucket
 * @typedef {Record<Bucket, number> & { window: number }} RateLimits  requests per window; window in seconds
 * @typedef {{ times?: number, forMs?: number, retryAfter?: number }} ForcedLimit
 * @typedef {import('./tokens.mjs').Reply} Reply
 */

/** Spree's defaults (`spree/api/lib/spree/api/configuration.rb`); the window is 60 s. */
export const DEFAULT_RATE_LIMITS = Object.freeze({ login: 5, refresh: 10, logout: 10, register: 3, passwordReset: 3, window: 60 });

/** @param {number} limit @param {number} retryAfter seconds @returns {Reply} */
export function rateLimitReply(limit, retryAfter) {
  return {
    status: 429,
    headers: { 'Retry-After': String(retryAfter), 'X-RateLimit-Limit': String(limit), 'X-RateLimit-Remaining': '0' },
    body: { error: { code: 'rate_limit_exceeded', message: 'Too many requests. Please retry later.' } },
  };
}

export class RateLimiter {
  /** @type {Map<string, { count: number, resetAt: number }>} */
  #windows = new Map();
  /** The test control's forced 429s on refresh. @type {{ left: number, until: number, retryAfter: number } | null} */
  #forced = null;

  /** @param {Partial<RateLimits>} [limits] */
  constructor(limits = {}) {
    /** @type {RateLimits} */
    this.limits = { ...DEFAULT_RATE_LIMITS };
    this.set(limits);
  }

  /** Changes some limits (unknown names refused) and starts every window afresh. @param {Partial<RateLimits>} limits */
  set(limits) {
    for (const [name, value] of Object.entries(limits ?? {})) {
      if (!(name in DEFAULT_RATE_LIMITS)) throw new TypeError(`Unknown rate limit ${name}; expected one of ${Object.keys(DEFAULT_RATE_LIMITS).join(', ')}`);
      if (!(typeof value === 'number' && value > 0)) throw new TypeError(`Rate limit ${name} must be a positive number`);
      this.limits[/** @type {keyof RateLimits} */ (name)] = value;
    }
    this.reset();
  }

  /** Forgets every count and any forced 429. */
  reset() {
    this.#windows.clear();
    this.#forced = null;
  }

  /**
   * Test control: the next `times` refreshes, or every refresh for `forMs`, are 429 with
   * `Retry-After: retryAfter` (default: the window). With neither, one refresh.
   * @param {ForcedLimit} [forced]
   */
  forceRefreshLimit({ times, forMs, retryAfter } = {}) {
    this.#forced = {
      left: times ?? (forMs === undefined ? 1 : Infinity),
      until: forMs === undefined ? Infinity : Date.now() + forMs,
      retryAfter: retryAfter ?? Math.ceil(this.limits.window),
    };
  }

  /**
   * Counts a request; a 429 reply once the bucket is over its limit, else null.
   * @param {Bucket} bucket @param {string} scope the client IP
   * @returns {Reply | null}
   */
  hit(bucket, scope) {
    const limit = this.limits[bucket];
    const forced = this.#forced;
    if (bucket === 'refresh' && forced && forced.left > 0 && Date.now() < forced.until) {
      forced.left--;
      return rateLimitReply(limit, forced.retryAfter);
    }
    const now = Date.now();
    const key = `${bucket}\n${scope}`;
    let current = this.#windows.get(key);
    if (!current || now >= current.resetAt) this.#windows.set(key, (current = { count: 0, resetAt: now + this.limits.window * 1000 }));
    current.count++;
    return current.count > limit ? rateLimitReply(limit, Math.ceil(this.limits.window)) : null;
  }
}
