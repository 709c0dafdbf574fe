/**
 * Whose a queued write is: it is never sent as someone else. It belongs to the cart it was made on
 * and, when made signed in, to that sign-in (signIn.ts). A guest's write whose cart the shopper
 * took along into a sign-in still belongs: it goes with the bearer.
 */
import type { Credentials } from './credentialStorage.js';
import type { QueuedWrite } from './queuedWrite.js';
import { currentSignIn } from './signIn.js';

/** True while `write` may be sent with what is held: the same cart and, for a signed-in write, the same sign-in. */
export function belongsTo(write: Pick<QueuedWrite, 'cart' | 'signInId'>, held: Credentials): boolean {
  if (held.cart?.number !== write.cart) return false;
  return write.signInId === null || write.signInId === currentSignIn(held);
}
