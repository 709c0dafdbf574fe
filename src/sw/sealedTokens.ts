/**
 * Sealed tokens (docs/security.md, "How sealing works"): the responses the page reads carry
 * placeholders instead of tokens, and placeholders the page sends back to the base URL are swapped
 * for the real values on the way out. Pure functions of text and values, so they are tested in
 * Node.
 */

/** The placeholders, fixed by the contract. */
export const SEALED = Object.freeze({ cart: 'sealed:cart', access: 'sealed:access', refresh: 'sealed:refresh' });

/** The bearer header value a page sends back for the access token. */
export const SEALED_BEARER = 'Bearer sealed:access';

/**
 * True when an `Authorization` value is the bearer placeholder: its scheme in any case and followed by
 * any run of spaces, as HTTP reads an auth scheme (RFC 9110, 11.1), the placeholder itself as written.
 * Read otherwise, `bearer sealed:access` would be the page's own credential and reach the server.
 */
export function isSealedBearer(authorization: string | null): boolean {
  return authorization === SEALED_BEARER || (authorization !== null && /^bearer +sealed:access$/i.test(authorization) && authorization.endsWith(SEALED.access));
}

/**
 * The URL with a `{param}=sealed:cart` query (v2's `guest_order_token`, the cart association)
 * swapped for the real cart token, or `null` when the URL carries no such placeholder. Only that
 * value changes: the rest of the URL stays as the page wrote it, byte for byte.
 */
export function unsealQuery(url: string, cartToken: string | null, param: string | null): string | null {
  // Most requests carry no such query: skip reading their URL. Without a cart the placeholder goes
  // out as it is: worthless, and the server says so.
  if (param === null || cartToken === null || !url.includes(`${param}=`)) return null;
  const start = url.indexOf('?');
  const hash = url.indexOf('#');
  if (start < 0 || (hash >= 0 && hash < start)) return null;
  const end = hash < 0 ? url.length : hash;
  let changed = false;
  const parts = url.slice(start + 1, end).split('&').map((part) => {
    const equals = part.indexOf('=');
    if (equals < 0 || formDecoded(part.slice(0, equals)) !== param || formDecoded(part.slice(equals + 1)) !== SEALED.cart) return part;
    changed = true;
    return `${part.slice(0, equals)}=${encodeURIComponent(cartToken)}`;
  });
  return changed ? `${url.slice(0, start + 1)}${parts.join('&')}${url.slice(end)}` : null;
}

/** A query component decoded as a form decodes it (`+` is a space); `null` when it is malformed. */
function formDecoded(component: string): string | null {
  try {
    return decodeURIComponent(component.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}
