/**
 * Whether the worker can ever control this page. A registration controls the pages whose URL starts
 * with its scope URL (Service Workers, "Match Service Worker Registration"), so a page outside the
 * scope stays uncontrolled however long it waits, and a reload changes nothing. A worker served
 * from a folder (`/js/storefront-auth-sw.js`) may only be given a scope in that folder unless its
 * response carries `Service-Worker-Allowed`, which is what a site putting the worker beside its
 * other scripts usually misses.
 */

/** Why a worker registered for `scope` can never control the page at `pageUrl`, or `null` when it can. */
export function scopeRefusal(pageUrl: string, scope: string): string | null {
  let scopeUrl: string;
  try {
    scopeUrl = new URL(scope, pageUrl).href;
  } catch {
    // `register` refuses such a scope itself, with the browser's reason.
    return null;
  }
  if (pageUrl.startsWith(scopeUrl)) return null;
  return `This page (${pageUrl}) is outside the worker's scope ${scopeUrl}: serve the worker from the site's root, or with the header "Service-Worker-Allowed: /" and scope "/".`;
}
