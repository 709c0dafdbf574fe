/**
 * Normalises a base URL to `origin + path` without a trailing slash, query or fragment, so that the
 * page and the worker name the same base the same way (it keys storage and the broadcast channel).
 * Returns `null` for anything that is not an absolute http(s) URL after resolving against `relativeTo`.
 *
 * Only two spellings are read: an `http://` or `https://` URL, or a path from the site's root (`/…`,
 * `//host`). Anything else would resolve as a path relative to the page, so a host written without
 * its scheme (`127.0.0.1:8790`, `api.shop.example`) would quietly become a path on the site's own
 * origin and every call would miss the API; it is refused instead.
 */
export function normalizeBaseUrl(input: string, relativeTo: string): string | null {
  // The URL parser strips leading spaces and control characters first, so this does too.
  if (!/^[\0- ]*(https?:\/\/|\/)/i.test(input)) return null;
  let url: URL;
  try {
    url = new URL(input, relativeTo);
  } catch {
    return null;
  }
  if (!/^https?:$/.test(url.protocol) || url.username || url.password) return null;
  return url.origin + url.pathname.replace(/\/+$/, '');
}

/** Why `input` is refused as a base URL, naming the setting, in words the page and the worker share. */
export function baseUrlRefusal(input: string): string {
  return `baseUrl ${JSON.stringify(input)} is not an http:// or https:// URL (nor a path from the site's root, "/…").`;
}
