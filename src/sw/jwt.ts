/**
 * Reads a JWT's expiry (RFC 7519 4.1.4, `exp`: seconds since the epoch) without checking its
 * signature: the worker does not hold the server's key, and only needs to know when to refresh.
 * The server checks the signature on every request.
 */
import { isRecord } from '../shared/protocol.js';

/** The token's `exp` in epoch ms, or `null` when the token is no JWT or carries no finite `exp`. */
export function jwtExpiry(token: string): number | null {
  const parts = token.split('.');
  if (parts.length !== 3 || parts.includes('')) return null;
  const claims = decodeSegment(parts[1] as string);
  if (!isRecord(claims)) return null;
  const exp = claims['exp'];
  return typeof exp === 'number' && Number.isFinite(exp) && exp > 0 ? exp * 1000 : null;
}

/** A base64url segment (RFC 7515 2, no padding) decoded as UTF-8 JSON, or `undefined`. */
function decodeSegment(segment: string): unknown {
  if (!/^[A-Za-z0-9_-]+$/.test(segment)) return undefined;
  try {
    const binary = atob(segment.replace(/-/g, '+').replace(/_/g, '/'));
    const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) as unknown;
  } catch {
    return undefined;
  }
}
