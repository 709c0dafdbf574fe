import type { Session } from './tokenResponse.js';

/** How long before expiry a bearer is refreshed, at most (docs/behaviour.md, "Refresh"). */
export const REFRESH_MARGIN_MS = 30_000;

/** The margin for a given lifetime: 30 s, or a tenth of the lifetime if that is shorter. */
export function refreshMargin(lifetimeMs: number): number {
  return Math.min(REFRESH_MARGIN_MS, lifetimeMs / 10);
}

/** True when the access token expires within its margin, so it is refreshed before use. */
export function isRefreshDue(session: Pick<Session, 'expiresAt' | 'lifetimeMs'>, now: number): boolean {
  return session.expiresAt - now <= refreshMargin(session.lifetimeMs);
}
