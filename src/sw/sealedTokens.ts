/**
 * Sealed tokens (CONTRACT.md, "Sealed tokens"): the responses the page reads carry placeholders
 * instead of tokens, and placeholders the page sends back to the base URL are swapped for the real
 * values on the way out. Pure functions of text and values, so they are tested in Node.
 */
import { isRecord } from '../shared/protocol.js';
import type { Dialect } from './dialect.js';
import { parseJson } from './tokenResponse.js';

/** The placeholders, fixed by the contract. */
export const SEALED = Object.freeze({ cart: 'sealed:cart', access: 'sealed:access', refresh: 'sealed:refresh' });

/** The bearer header value a page sends back for the access token. */
export const SEALED_BEARER = `Bearer ${SEALED.access}`;

/**
 * A cart document's text with its token (where the dialect's documents hold it) replaced by
 * `sealed:cart` wherever it appears; `null` when the text is no cart document with a token, so
 * the response goes to the page untouched.
 */
export function sealCartDocument(text: string, dialect: Pick<Dialect, 'cartDocumentTokens' | 'cartTokenField'>): string | null {
  const body = parseJson(text);
  if (body === undefined) return sealFields(text, [dialect.cartTokenField], () => SEALED.cart);
  return sealValues(text, dialect.cartDocumentTokens(body), SEALED.cart);
}

/**
 * A token response's text with its access and refresh tokens (the dialect's `tokenFields`)
 * replaced by their placeholders; `null` when it carries neither.
 */
export function sealTokenResponse(text: string, fields: Dialect['tokenFields']): string | null {
  const body = parseJson(text);
  if (body === undefined) return sealFields(text, [fields.access, fields.refresh], (field) => (field === fields.access ? SEALED.access : SEALED.refresh));
  if (!isRecord(body)) return null;
  const access = sealValues(text, [body[fields.access]], SEALED.access);
  return sealValues(access ?? text, [body[fields.refresh]], SEALED.refresh) ?? access;
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

/**
 * The URL with a `{param}=sealed:cart` query (v2's `guest_order_token`, the cart association)
 * swapped for the real cart token, or `null` when the URL carries no such placeholder.
 */
export function unsealQuery(url: string, cartToken: string | null, param: string | null): string | null {
  // Most requests carry no such query: skip parsing their URL.
  if (param === null || !url.includes(`${param}=`)) return null;
  const parsed = new URL(url);
  if (parsed.searchParams.get(param) !== SEALED.cart) return null;
  // Without a cart the placeholder goes out as it is: worthless, and the server says so.
  if (cartToken === null) return null;
  parsed.searchParams.set(param, cartToken);
  return parsed.href;
}
