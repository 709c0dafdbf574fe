/**
 * Revoking a pair at the server (docs/behaviour.md, "The page API"), where the dialect can: at
 * logout, and for a pair a refresh brought after the shopper logged out. Best effort: a failure
 * leaves the tokens to expire, and nothing waits on it but the worker's `keepAlive`.
 */
import { DEBUG_BUILD } from '../shared/debugBuild.js';
import { carriedPair, MAX_TOKEN_BODY_CHARS, type TokenPair } from './dialect.js';
import type { ResolvedOptions } from './options.js';
import type { SendOwn } from './outbound.js';
import { parseJson, type Session } from './tokenResponse.js';

/** What revoking needs; I/O is handed in. */
export interface RevocationContext {
  options: Pick<ResolvedOptions, 'dialect'>;
  send: SendOwn;
  now: () => number;
  log: ((message: string) => void) | undefined;
}

/**
 * Revokes `session` so that neither token works afterwards. Where the server ignores the revocation
 * of a pair whose access token has expired (Doorkeeper 5.5, docs/servers.md, "Doorkeeper, the token
 * endpoint"), such a pair is first refreshed, its new bearer used once (which, under Doorkeeper's
 * rotation, revokes the old pair), and the new pair revoked. Never rejects.
 */
export async function revokeSession(context: RevocationContext, session: Session, pendingKey?: string, held?: true): Promise<void> {
  const { options, send, now } = context;
  const { dialect } = options;
  if (dialect.revoke(session).length === 0) return;
  // Once per pair in a worker: a logout and a late write's check may both find the same pair forgotten.
  let revoking = revokedBy.get(send);
  if (revoking === undefined) revokedBy.set(send, (revoking = new Set()));
  if (revoking.has(session.refreshToken)) return;
  revoking.add(session.refreshToken);
  // A rotation whose answer was lost (its key still kept with the refresh token it spent): the server
  // rotated strictly, so the live refresh token is in that answer, which it replays under the key.
  // Replayed and revoked too, or the pair it issued would be left live (docs/behaviour.md, "The
  // spree-v3 preset").
  if (pendingKey !== undefined && dialect.idempotentRefresh) {
    try {
      const reply = await send(dialect.refreshGrant(session.refreshToken, pendingKey), { maxChars: MAX_TOKEN_BODY_CHARS });
      const rotated = reply.status >= 200 && reply.status < 300 ? carriedPair(dialect, parseJson(reply.text)) : null;
      if (rotated !== null) await revokePair(context, rotated);
    } catch {
      // Lost again: revoke what is known.
    }
  }
  let pair: TokenPair = session;
  const touch = dialect.touchAfterRefresh;
  // A held pair, refreshed, whose bearer no resource has taken yet: Doorkeeper revokes the pair it
  // replaced only on that first use, so the old refresh token would outlive the logout. Used once first.
  if (held && !session.confirmed && touch) await send(touch(session.accessToken)).catch(() => {});
  if (session.expiresAt <= now() && touch !== null) {
    try {
      const reply = await send(dialect.refreshGrant(session.refreshToken, crypto.randomUUID()), { maxChars: MAX_TOKEN_BODY_CHARS });
      // Any success minted a pair, one the worker would refuse to keep included (no `expires_in`, a
      // `token_type` other than Bearer): nobody else holds it, so it is the one to end. A refusal
      // carries none: the refresh token is already dead.
      const fresh = reply.status < 300 ? carriedPair(dialect, parseJson(reply.text)) : null;
      if (fresh !== null && fresh.accessToken === '') {
        // A refresh token alone: no bearer to use once (it would go out empty), so the old pair,
        // which a server may still take back, is revoked beside the new token.
        await revokePair(context, session);
        pair = fresh;
      } else if (fresh !== null) {
        pair = fresh;
        await send(touch(fresh.accessToken));
      }
    } catch {
      // The refresh or the touch failed: revoke what is known.
    }
  }
  if (DEBUG_BUILD) context.log?.('revoking the pair');
  await revokePair(context, pair);
}

/** The refresh tokens each worker (by its own `send`) has revoked, or is revoking. */
const revokedBy = new WeakMap<SendOwn, Set<string>>();

/**
 * Revokes the pair in a successful token response the worker refused to keep (malformed, expired on
 * arrival, not a session), where the dialect can: a pair the server issued is never abandoned live,
 * its refresh token good for weeks. Never rejects.
 */
export async function revokeRefused(context: RevocationContext, text: string): Promise<void> {
  const pair = text.length > MAX_TOKEN_BODY_CHARS ? null : carriedPair(context.options.dialect, parseJson(text));
  if (pair === null) return;
  if (DEBUG_BUILD) context.log?.('revoking the pair of a token response that was not kept');
  await revokePair(context, pair);
}

/** Sends the dialect's revocation of `pair`, best effort. */
function revokePair(context: RevocationContext, pair: TokenPair): Promise<unknown> {
  return Promise.all(context.options.dialect.revoke(pair).map((wire) => context.send(wire).catch(() => undefined)));
}
