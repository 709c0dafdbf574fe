/** What the page may know of the credentials: never a token (docs/behaviour.md, "The page API"). */
export interface AuthState {
  signedIn: boolean;
  /** When the access token expires, in epoch milliseconds; `null` when signed out. */
  accessTokenExpiresAt: number | null;
  /**
   * The cart held: its number, and its `id` where the server's cart paths use one (`spree-v3`:
   * `/carts/{id}`). Neither opens the cart: that takes the token, which stays in the worker.
   */
  cart: { number: string; id?: string } | null;
  /** How many cart writes wait in the offline queue for the network; 0 when the option is off. */
  pendingWrites: number;
}

/** The state of a visitor who holds nothing. */
export const GUEST_STATE: AuthState = Object.freeze({ signedIn: false, accessTokenExpiresAt: null, cart: null, pendingWrites: 0 });
