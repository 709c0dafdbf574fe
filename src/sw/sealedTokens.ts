/**
 * Sealed tokens (CONTRACT.md, "Sealed tokens"): the responses the page reads carry placeholders
 * instead of tokens, and placeholders the page sends back to the base URL are swapped for the real
 * values on the way out. Pure functions of text and values, so they are tested in Node.
 */
import { isRecord } from '../shared/protocol.js';
import { parseJson } from './tokenResponse.js';

/** The placeholders, fixed by the contract. */
export const SEALED = Object.freeze({ cart: 'sealed:cart', access: 'sealed:access', refresh: 'sealed:refresh' });

/** The bearer header value a page sends back for the access token. */
export const SEALED_BEARER = `Bearer ${SEALED.access}`;

/**
 * A cart document's text with its token (`data.attributes.token`, `data.token`) replaced by
 * `sealed:cart` wherever it appears; `null` when the text is no cart document with a token, so
 * the response goes to the page untouched.
 */
export function sealCartDocument(text: string): string | null {
  const body = parseJson(text);
  if (body === undefined) return sealFields(text, ['token'], () => SEALED.cart);
  if (!isRecord(body) || !isRecord(body['data'])) return null;
  const data = body['data'];
  const attributes = isRecord(data['attributes']) ? data['attributes'] : {};
  return sealValues(text, [attributes['token'], data['token']], SEALED.cart);
}

/**
 * A token response's text with `access_token` and `refresh_token` replaced by their placeholders;
 * `null` when it carries neither.
 */
export function sealTokenResponse(text: string): string | null {
  const body = parseJson(text);
  if (body === undefined) return sealFields(text, ['access_token', 'refresh_token'], (field) => (field === 'access_token' ? SEALED.access : SEALED.refresh));
  if (!isRecord(body)) return null;
  const access = sealValues(text, [body['access_token']], SEALED.access);
  return sealValues(access ?? text, [body['refresh_token']], SEALED.refresh) ?? access;
}

/**
 * Every occurrence of each token in `text` replaced by `placeholder`, token by token as JSON
 * encodes it, so that a token repeated elsewhere in the document (an included relationship) is
 * sealed too; `null` when no value is a non-empty string.
 */
function sealValues(text: string, values: unknown[], placeholder: string): string | null {
  let sealed: string | null = null;
  for (const value of values) {
    if (typeof value !== 'string' || value === '' || value === placeholder) continue;
    // JSON.stringify gives the token as it stands in the text, quotes and escapes included.
    sealed = (sealed ?? text).split(JSON.stringify(value)).join(JSON.stringify(placeholder));
  }
  return sealed;
}

/**
 * For text that is not JSON (truncated, or JSON with junk after it): each `"field": "value"` of the
 * named fields sealed where it stands, since the server meant it as a token; `null` when none is found.
 */
function sealFields(text: string, fields: string[], placeholder: (field: string) => string): string | null {
  const pattern = new RegExp(`"(${fields.join('|')})"(\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*"`, 'g');
  const sealed = text.replace(pattern, (_match, field: string, colon: string) => `"${field}"${colon}${JSON.stringify(placeholder(field))}`);
  return sealed === text ? null : sealed;
}

/** The body of a token response for a page's own sealed refresh grant, answered from the worker's pair. */
export function sealedTokenBody(expiresAt: number, now: number): Record<string, unknown> {
  return {
    access_token: SEALED.access,
    token_type: 'Bearer',
    // Seconds left, never 0: a client treats an `expires_in` of 0 as already expired.
    expires_in: Math.max(1, Math.floor((expiresAt - now) / 1000)),
    refresh_token: SEALED.refresh,
    created_at: Math.floor(now / 1000),
  };
}

/**
 * True when a grant body (form-encoded or JSON, by its content type) is a refresh grant carrying
 * the `sealed:refresh` placeholder: a page's SDK refreshing with the token it was given.
 */
export function isSealedRefreshGrant(contentType: string | null, body: string): boolean {
  let fields: Record<string, unknown>;
  if (contentType?.toLowerCase().includes('json')) {
    const parsed = parseJson(body);
    if (!isRecord(parsed)) return false;
    fields = parsed;
  } else {
    const form = new URLSearchParams(body);
    fields = { grant_type: form.get('grant_type'), refresh_token: form.get('refresh_token') };
  }
  return fields['grant_type'] === 'refresh_token' && fields['refresh_token'] === SEALED.refresh;
}

/**
 * The URL with a `guest_order_token=sealed:cart` query swapped for the real cart token (the cart
 * association), or `null` when the URL carries no such placeholder.
 */
export function unsealQuery(url: string, cartToken: string | null): string | null {
  // Most requests carry no such query: skip parsing their URL.
  if (!url.includes('guest_order_token=')) return null;
  const parsed = new URL(url);
  if (parsed.searchParams.get('guest_order_token') !== SEALED.cart) return null;
  // Without a cart the placeholder goes out as it is: worthless, and the server says so.
  if (cartToken === null) return null;
  parsed.searchParams.set('guest_order_token', cartToken);
  return parsed.href;
}
