import type { AuthState } from '../shared/state.js';
import type { Credentials } from './credentialStorage.js';

/** What the page may see of the credentials: whether signed in, until when, and the cart number. */
export function publicState(credentials: Credentials): AuthState {
  return {
    signedIn: credentials.session !== null,
    accessTokenExpiresAt: credentials.session?.expiresAt ?? null,
    cart: credentials.cart === null ? null : credentials.cart.id === undefined ? { number: credentials.cart.number } : { number: credentials.cart.number, id: credentials.cart.id },
  };
}
