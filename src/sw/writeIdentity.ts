/**
 * Whose a queued write is: it is never sent as someone else. It belongs to the cart it was made on
 * and, when made signed in, to that sign-in (signIn.ts). A guest's write whose cart the shopper
 * took along into a sign-in still belongs to that one sign-in: it goes with its bearer, never with
 * that of a shopper who signs in after it.
 */
import type { Credentials } from './credentialStorage.js';
import type { QueuedWrite } from './queuedWrite.js';
import { currentSignIn } from './signIn.js';

/** True while `write` may be sent with what is held: the same cart and the same sign-in, or for a guest's write, the one that took the cart along. */
export function belongsTo(write: Pick<QueuedWrite, 'cart' | 'signInId'>, held: Credentials): boolean {
  if (held.cart?.number !== write.cart) return false;
  const signIn = currentSignIn(held);
  return write.signInId === signIn || (write.signInId === null && held.cartTakenBy === signIn);
}
