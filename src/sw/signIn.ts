/**
 * "This sign-in": what a login starts (the bridge's, or a page's own password grant, registration or
 * password reset that the worker keeps), a logout ends, and refreshes (the worker's or a page's)
 * continue. Its id is stored with the session (`Credentials.signInId`), so every worker of the origin
 * agrees on it; a queued write made signed in carries it and is sent under no other (writeIdentity.ts).
 */
import type { Credentials } from './credentialStorage.js';
import type { HeldCart } from './dialect.js';
import type { Session } from './tokenResponse.js';

/**
 * The sign-in of a session stored by a release that gave sign-ins no id: a record holds one session,
 * and every login since has an id, so this names that one session alone.
 */
const EARLIER_SIGN_IN = '';

/** The sign-in `held` is under, or `null` for a guest. */
export function currentSignIn(held: Credentials): string | null {
  return held.session === null ? null : (held.signInId ?? EARLIER_SIGN_IN);
}

/**
 * The sign-in whose pair `session` is, as it is sent: `now`'s when `now` holds that pair (a due
 * refresh hands back the pair storage holds, which a login elsewhere may have replaced), else
 * `before`'s, the sign-in held when the request came.
 */
export function signInOf(session: Session, now: Credentials, before: Credentials): string | null {
  return currentSignIn(now.session?.accessToken === session.accessToken ? now : before);
}

/**
 * `previous` with `session` kept from a token response: the sign-in goes on when the grant spent the
 * refresh token held (`spentRefreshToken`, a page's own refresh), else a new one starts with `newId()`.
 * Any refresh back-off ends with the new pair. One that starts from a guest holding a cart takes the
 * cart along, whoever took it before (that sign-in has ended: the cart is a guest's again); a login
 * over another sign-in, as another shopper, takes nothing.
 */
export function withSession(previous: Credentials, session: Session, spentRefreshToken: string | null, newId: () => string): Credentials {
  const continues = spentRefreshToken !== null && previous.session?.refreshToken === spentRefreshToken;
  const { signInId: earlier, ...rest } = previous;
  const signInId = continues ? earlier : newId();
  const next: Credentials = signInId === undefined ? { ...rest, session, backoff: null } : { ...rest, session, backoff: null, signInId };
  if (previous.session === null && previous.cart !== null && signInId !== undefined) next.cartTakenBy = signInId;
  return next;
}

/**
 * `previous` holding a new `cart`, which no sign-in took along yet, unless it is a guest's (`guest`)
 * landing signed in: that sign-in takes it along, as one held at its login.
 */
export function withCart(previous: Credentials, cart: HeldCart, guest: boolean): Credentials {
  const { cartTakenBy: _replaced, cartAssigningUntil: _assigning, ...rest } = previous;
  const taker = guest ? currentSignIn(previous) : null;
  return taker === null ? { ...rest, cart } : { ...rest, cart, cartTakenBy: taker };
}

/**
 * `next` marked as assigning its cart until `until` where it took a cart along that `previous` did
 * not hold taken by the same sign-in (a login from a guest, a guest's cart landing signed in).
 */
export function assigningFrom(previous: Credentials, next: Credentials, until: number): Credentials {
  const taken = next.cartTakenBy !== undefined && (next.cartTakenBy !== previous.cartTakenBy || next.cart !== previous.cart);
  return taken ? { ...next, cartAssigningUntil: until } : next;
}

/**
 * `held` with the mark of an assignment of `cart` by sign-in `takenBy` ended (`assigningFrom`); as it
 * is when another cart is held, or another sign-in took it along since (its assignment is under way).
 */
export function assignmentEnded(held: Credentials, cart: HeldCart, takenBy: string | undefined): Credentials {
  if (held.cartAssigningUntil === undefined || held.cart?.number !== cart.number || held.cartTakenBy !== takenBy) return held;
  const { cartAssigningUntil: _ended, ...rest } = held;
  return rest;
}
