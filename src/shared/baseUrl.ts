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

/**
 * Why an `http://` base URL is refused for a site served over `https://` (`relativeTo`): browsers
 * block such calls as mixed content, the page's and the worker's alike, so every call would fail as
 * if offline, naming nothing. A loopback host is trustworthy over http, and not blocked (`localhost.`
 * with its root dot too, as Secure Contexts reads it). Null when
 * `baseUrl` (normalised) is not refused.
 */
export function mixedContentRefusal(baseUrl: string, relativeTo: string): string | null {
  const { protocol, hostname } = new URL(baseUrl);
  if (protocol !== 'http:' || !relativeTo.startsWith('https:') || /^(?:(?:.+\.)?localhost\.?|127(?:\.\d+){3}|\[::1\])$/i.test(hostname)) return null;
  return `baseUrl ${JSON.stringify(baseUrl)} is http:// on an https:// site: browsers block it (mixed content); use https://.`;
}

/** Why an option that must be a string is refused when it is another kind of value; null when it is a string or absent. */
export function notAStringRefusal(name: string, value: unknown): string | null {
  return value === undefined || typeof value === 'string' ? null : `${name} must be a string.`;
}

/**
 * Why an on/off option is refused when it is not `true` or `false`: `sealTokens: 'false'` read as
 * written would seal, `offlineWrites: 'true'` would keep nothing, each quietly. Null when a boolean or absent.
 */
export function notABooleanRefusal(options: object, ...names: string[]): string | null {
  for (const name of names) if (![undefined, true, false].includes((options as Record<string, unknown>)[name] as never)) return `${name} must be true or false.`;
  return null;
}
