/**
 * The demo worker's own route for the product list: the network first, and the copy saved from the
 * last successful answer when the network fails, so the shop shows its products offline. The copy
 * carries `X-Demo-Saved-Copy` for the page to say that the API could not be reached. Only public,
 * credential-free answers are saved: storefront-auth's routes answer cart, checkout and account
 * calls before this one could, and this route matches the product list alone.
 */
import type { RouteHandlerCallback } from 'workbox-core/types.js';

/** The header on a saved copy: when the copy was saved (ISO 8601). */
export const SAVED_COPY_HEADER = 'X-Demo-Saved-Copy';

/** The route's handler, and `warm` to save a first copy before any page asks. */
export interface SavedCopyRoute {
  handler: RouteHandlerCallback;
  /** Fetches `url` with `headers` and saves a copy; best effort, never rejects (for `install`'s waitUntil). */
  warm(url: string, headers?: Readonly<Record<string, string>>): Promise<void>;
}

/** Network first; on a network error, the saved copy if there is one, else the error. */
export function savedCopyWhenOffline(cacheName: string): SavedCopyRoute {
  const save = async (request: Request, response: Response): Promise<void> => {
    if (!response.ok) return;
    const headers = new Headers(response.headers);
    headers.set(SAVED_COPY_HEADER, new Date().toISOString());
    const copy = new Response(await response.clone().blob(), { status: response.status, statusText: response.statusText, headers });
    await (await caches.open(cacheName)).put(request, copy);
  };
  return {
    async handler({ request, event }) {
      let response: Response;
      try {
        response = await fetch(request);
      } catch (error) {
        const saved = await caches.match(request, { cacheName });
        if (saved === undefined) throw error;
        return saved;
      }
      // The page need not wait for the write; the worker stays alive until it is done. A failed
      // write only means no offline copy, so it is dropped rather than left unhandled.
      event.waitUntil(save(request, response).catch(() => {}));
      return response;
    },
    async warm(url, headers = {}) {
      const request = new Request(url, { headers });
      await fetch(request).then((response) => save(request, response)).catch(() => {});
    },
  };
}
