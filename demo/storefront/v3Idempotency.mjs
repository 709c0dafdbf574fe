// Spree's Idempotent concern (docs/servers.md, "Every request"): a mutating request with an
// `Idempotency-Key` has its answer (below 500) kept for 24 h per (publishable key, key); the same
// request again gets that answer with `Idempotent-Replayed: true`, another request under the same key 422.
import { createHash } from 'node:crypto';

/** How long an answer is kept. */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
/** The longest key Spree accepts. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
const MUTATING = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

/** @typedef {import('./tokens.mjs').Reply} Reply */

/** Answers kept under (publishable key, Idempotency-Key). */
export class IdempotencyCache {
  /** @type {Map<string, { fingerprint: string, reply: Reply, expiresAt: number }>} */
  #entries = new Map();

  /** Whether a request takes part: a mutating method with the header. @param {string} method @param {string | undefined} key */
  static applies(method, key) {
    return MUTATING.has(method) && typeof key === 'string' && key !== '';
  }

  /** What must match for a replay: method, path and body. @param {string} method @param {string} path @param {string} body */
  static fingerprint(method, path, body) {
    return createHash('sha256').update(`${method}\n${path}\n${body}`).digest('hex');
  }

  /**
   * The kept answer for this key: `{ replay }` when the request matches, `{ reused: true }` when the
   * key was used for another request, null when the key is new or its answer has expired.
   * @param {string} scope @param {string} key @param {string} fingerprint
   * @returns {{ replay: Reply } | { reused: true } | null}
   */
  lookup(scope, key, fingerprint) {
    const entry = this.#entries.get(`${scope}\n${key}`);
    if (!entry || Date.now() >= entry.expiresAt) return null;
    if (entry.fingerprint !== fingerprint) return { reused: true };
    return { replay: { ...entry.reply, headers: { ...entry.reply.headers, 'Idempotent-Replayed': 'true' } } };
  }

  /** Keeps an answer below 500. @param {string} scope @param {string} key @param {string} fingerprint @param {Reply} reply */
  store(scope, key, fingerprint, reply) {
    if (reply.status >= 500) return;
    this.#entries.set(`${scope}\n${key}`, { fingerprint, reply, expiresAt: Date.now() + IDEMPOTENCY_TTL_MS });
  }

  clear() {
    this.#entries.clear();
  }
}
