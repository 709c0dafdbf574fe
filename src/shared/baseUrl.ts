/**
 * Normalises a base URL to `origin + path` without a trailing slash, query or fragment, so that the
 * page and the worker name the same base the same way (it keys storage and the broadcast channel).
 * Returns `null` for anything that is not an absolute http(s) URL after resolving against `relativeTo`.
 */
export function normalizeBaseUrl(input: string, relativeTo: string): string | null {
  let url: URL;
  try {
    url = new URL(input, relativeTo);
  } catch {
    return null;
  }
  if (!/^https?:$/.test(url.protocol) || url.username || url.password) return null;
  return url.origin + url.pathname.replace(/\/+$/, '');
}
