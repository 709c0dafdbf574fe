/**
 * What the demo tells a shopper when something fails: short, human, and saying what to do. The
 * technical detail (error code, URL, the library's message) goes to the console, not the page.
 */
import { isStorefrontAuthError, type StorefrontAuthErrorCode } from '../../src/page/index.js';

/** The sentence for a failed action; `online` is `navigator.onLine` when it failed. */
export function shopperMessage(error: unknown, online: boolean): string {
  if (!isStorefrontAuthError(error)) {
    // fetch rejects with a TypeError when the request could not be sent; anything else is a bug.
    return error instanceof TypeError ? unreachableMessage(online) : 'Something went wrong on this page. Please reload and try again.';
  }
  if (error.code === 'network_error' || error.code === 'timeout') return unreachableMessage(online, error.code === 'timeout');
  return MESSAGES[error.code];
}

/** The sentence for an action that could not reach the shop: offline, or the shop not answering. */
export function unreachableMessage(online: boolean, slow = false): string {
  if (!online) return "You're offline. Your cart and sign-in are kept on this device; try again when you're back online.";
  return slow ? 'The shop is taking too long to answer. Please try again in a moment.' : "The shop can't be reached right now. Please try again in a moment.";
}

/**
 * Why `what` ("Your orders") is not shown: `status` is the shop's answer, `null` when it could not be
 * reached. A 401 or 403 to a signed-in call is the shop refusing the sign-in the worker holds (a
 * server that restarted and forgot its tokens treats the bearer as a guest's), not a network failure;
 * a 401 that a refused refresh followed ends the session by itself (`sessionexpired`).
 */
export function notLoadedMessage(what: string, status: number | null, online: boolean): string {
  if (status === null) return `${what} cannot be loaded now. ${unreachableMessage(online)}`;
  if (status === 401 || status === 403) return `${what} cannot be loaded: the shop did not accept your sign-in (it answered ${status}). Please sign out and sign in again.`;
  return `${what} cannot be loaded now (the shop answered ${status}). Please try again in a moment.`;
}

const MESSAGES: Record<Exclude<StorefrontAuthErrorCode, 'network_error' | 'timeout'>, string> = {
  invalid_grant: "That e-mail and password don't match. Please try again.",
  invalid_request: 'Something was missing from the request. Please check the form and try again.',
  bad_response: 'The shop sent an answer this page could not read. Please try again in a moment.',
  no_service_worker: "This browser can't run the shop's sign-in here (service workers are off or unsupported).",
  storage_unavailable: 'This browser cannot store your sign-in, so it lasts only while the page is open.',
};
