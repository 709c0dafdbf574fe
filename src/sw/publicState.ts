import type { AuthState } from '../shared/state.js';
import type { Credentials } from './credentialStorage.js';

/** What the page may see of the credentials: whether signed in, until when, the cart number, and how many writes wait to be sent. */
export function publicState({ session, cart }: Credentials, pendingWrites = 0): AuthState {
  return {
    signedIn: session !== null,
    accessTokenExpiresAt: session?.expiresAt ?? null,
    cart: cart === null ? null : cart.id === undefined ? { number: cart.number } : { number: cart.number, id: cart.id },
    pendingWrites,
  };
}
