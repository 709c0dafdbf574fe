/** What the page may know of the credentials: never a token (CONTRACT.md, "AuthState"). */
export interface AuthState {
  signedIn: boolean;
  /** When the access token expires, in epoch milliseconds; `null` when signed out. */
  accessTokenExpiresAt: number | null;
  cart: { number: string } | null;
}

/** The state of a visitor who holds nothing. */
export const GUEST_STATE: AuthState = Object.freeze({ signedIn: false, accessTokenExpiresAt: null, cart: null });
