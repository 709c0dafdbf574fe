/**
 * The seal scanner (CONTRACT.md, "Sealed tokens"): seals a response by what the worker knows, not by
 * where it expects a token. Each known value becomes its placeholder wherever it stands in what the
 * page can read: a whole JSON string, part of a longer one (a URL, an error message), URL-encoded,
 * in any JSON spelling (`\/`, `\u0063`), or in text that is no JSON at all. The token of any other
 * cart or order (an account's order list) becomes `sealed:order`. Pure functions of text, so they
 * are tested in Node; nothing here throws.
 *
 * How: each JSON string literal is decoded, compared, and re-encoded only when it changed; every
 * other byte stays as the server sent it. Text without a backslash (most responses) takes a fast
 * path: there each literal's raw text is its decoded text, so the values are replaced in the text
 * as a whole.
 *
 * Limits, chosen: URL-encoded means `encodeURIComponent`'s spelling, with `!'()*` encoded or not
 * and either hex case; a mix of encoded and plain characters, and double encoding, are not
 * recognised. A body cut off inside a literal is decoded as far as it can be; one that ends in the
 * first `PARTIAL_MIN` or more characters of a known value has that tail sealed too. Another order's
 * token used as an object key is not recognised: only the values of the plan's `fields` are.
 */

/** The placeholder of any other cart's or order's token; never swapped back (the bearer reaches those orders). */
export const SEALED_ORDER = 'sealed:order';

/** The fewest characters of a known value, at the very end of a cut-off body, that are sealed as that value. */
export const PARTIAL_MIN = 8;

/** What to seal in a response: the values the worker knows, and the fields that hold tokens. */
export interface SealPlan {
  /** `[real, placeholder]` pairs; where two values overlap, the longer one wins. */
  readonly values: readonly (readonly [real: string, placeholder: string])[];
  /**
   * Field names, each with the placeholder its string value becomes unless it is a known value or a
   * placeholder: the dialect's cart and order token field (`token`) `sealed:order`; a token
   * response's `access_token` `sealed:access`, even when the worker could not read the response (cut off).
   */
  readonly fields: Readonly<Record<string, string>>;
}

/** A known value's spellings, longest value first, each with its placeholder; `any` finds them all at once. */
type Spelled = Array<[spelling: string, placeholder: string, real: string]> & { any?: RegExp; by?: Map<string, string>; leads?: string[] };

/** A colon after white space, where a key's literal ends (sticky: tested at one position). */
const COLON = /\s*:/y;

/** Spellings by plan, so the values a worker holds are spelled once, not on every response. */
const plans = new Map<string, Spelled>();

/** Field patterns by field list, for the fast path. */
const fieldPatterns = new Map<string, RegExp>();

/** The text with every known value sealed, or `null` when nothing changed. */
export function sealText(text: string, plan: SealPlan): string | null {
  const spelled = spell(plan.values);
  const fields = new Map(Object.entries(plan.fields));
  const sealed = text.includes('\\') ? sealLiterals(text, spelled, fields) : sealPlain(text, spelled, fields);
  return sealed === text ? null : sealed;
}

/** True when a header value holds one of `reals`, as it is or URL-encoded: such a header is dropped. */
export function headerHoldsSecret(value: string, reals: readonly string[]): boolean {
  return sealText(value, { values: reals.map((real) => [real, '']), fields: {} }) !== null;
}

/** The spellings to look for, longest value first, so a value that holds another one wins. */
function spell(values: SealPlan['values']): Spelled {
  const key = values.map((pair) => pair.join('\n')).join('\n\n');
  let spelled = plans.get(key);
  if (spelled !== undefined) return spelled;
  spelled = [];
  for (const [real, placeholder] of [...values].sort((a, b) => b[0].length - a[0].length)) {
    if (real === '') continue;
    const encoded = encodeURIComponent(real);
    // RFC 3986 strictly (`!'()*` too), a form (`+` for a space: URLSearchParams, PHP, Ruby), and
    // Python's `quote`, which leaves `/` as it is.
    const encodings = [encoded, encoded.replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`), new URLSearchParams({ v: real }).toString().slice(2), encoded.replace(/%2F/g, '/')];
    for (const spelling of new Set([real, ...encodings, ...encodings.map(lowerHex)])) spelled.push([spelling, placeholder, real]);
  }
  // A worker holds a handful of values at a time; older plans are forgotten wholesale.
  if (plans.size > 16) plans.clear();
  plans.set(key, spelled);
  return spelled;
}

function lowerHex(encoded: string): string {
  return encoded.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase());
}

/**
 * `text` with each spelling of a known value replaced by its placeholder, in one pass of one regular
 * expression (alternatives longest value first, so a value that holds another one wins).
 */
function replaceKnown(text: string, spelled: Spelled): string {
  if (spelled.length === 0) return text;
  if (spelled.any === undefined) {
    spelled.by = new Map(spelled.map(([spelling, placeholder]) => [spelling, placeholder]));
    spelled.any = new RegExp([...spelled.by.keys()].map(escapeRegExp).join('|'), 'g');
  }
  const { any, by } = spelled;
  any.lastIndex = 0;
  return any.test(text) ? text.replace(any, (spelling) => by?.get(spelling) ?? spelling) : text;
}

/** The fast path: no backslash, so literals are their own decoded text. */
function sealPlain(text: string, spelled: Spelled, fields: ReadonlyMap<string, string>): string {
  let out = text;
  if (fields.size > 0) {
    // `"field": "value"`: without a backslash a literal followed by `:` is a key.
    const names = [...fields.keys()].map(escapeRegExp).join('|');
    let pattern = fieldPatterns.get(names);
    if (pattern === undefined) fieldPatterns.set(names, (pattern = new RegExp(`("(${names})"\\s*:\\s*)"([^"]*)("?)`, 'g')));
    out = out.replace(pattern, (match, key: string, name: string, value: string, close: string) => {
      const sealed = fieldValue(value, spelled, fields.get(name) ?? SEALED_ORDER);
      return sealed === null ? match : `${key}"${sealed}${close}`;
    });
  }
  return sealCutTail(replaceKnown(out, spelled), spelled);
}

/**
 * What the value of an order field becomes: a known value's placeholder when it is one whole, else
 * `sealed:order` (another order's token, or one that merely starts like a known value); `null` for
 * an empty value or a placeholder, which stay.
 */
function fieldValue(value: string, spelled: Spelled, unknown: string): string | null {
  if (!isOther(value)) return null;
  return spelled.find(([spelling]) => spelling === value)?.[1] ?? unknown;
}

/** The general path: each literal decoded, sealed, and re-encoded only when it changed. */
function sealLiterals(text: string, spelled: Spelled, fields: ReadonlyMap<string, string>): string {
  // A field's name spelled with escapes is at most six times as long as the name.
  const longestField = Math.max(0, ...[...fields.keys()].map((field) => field.length * 6));
  // Text between literals (or after the last) shorter than the shortest spelling cannot hold one (JSON's `":"`, `","`).
  const shortest = Math.min(...spelled.map(([spelling]) => spelling.length));
  let out = '';
  let copied = 0;
  let at = 0;
  let field: string | undefined;
  const edit = (from: number, to: number, replacement: string): void => {
    out += text.slice(copied, from) + replacement;
    copied = to;
  };
  for (let start = text.indexOf('"'); ; start = text.indexOf('"', at)) {
    const stop = start < 0 ? text.length : start;
    if (stop - at >= shortest) {
      const between = text.slice(at, stop);
      const sealed = replaceKnown(between, spelled);
      if (sealed !== between) edit(at, stop, sealed);
    }
    if (start < 0) break;
    const end = literalEnd(text, start + 1);
    const closed = end < text.length;
    // A value right after `"field":` is another order's token, unless it is a known value.
    const valueOfField: string | undefined = field !== undefined && /^\s*:\s*$/.test(text.slice(at, start)) ? field : undefined;
    at = closed ? end + 1 : end;
    const inner = text.slice(start + 1, end);
    const cut = closed ? '' : (/\\(u[0-9a-fA-F]{0,3})?$/.exec(inner)?.[0] ?? '');
    // Decoding costs: a literal is decoded only where a known value may hide in it (a `\u` escape,
    // or the start of a spelling; `\/` and the short escapes leave that start in the raw text), or
    // where it may be a field's key or value.
    const decoded: string = valueOfField !== undefined || inner.length <= longestField || mayHold(inner, spelled) ? decodeLiteral(inner.slice(0, inner.length - cut.length)) : inner;
    let next = valueOfField !== undefined ? (fieldValue(decoded, spelled, valueOfField) ?? decoded) : replaceKnown(decoded, spelled);
    // A body cut off inside this literal: the start of a known value at its end is sealed too.
    if (!closed) next = sealCutTail(next, spelled);
    COLON.lastIndex = at;
    field = closed && COLON.test(text) ? fields.get(decoded) : undefined;
    if (next !== decoded) edit(start, at, closed ? JSON.stringify(next) : JSON.stringify(next).slice(0, -1) + cut);
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** Where the literal opened before `from` ends: its closing quote, or the end of a cut-off body. */
function literalEnd(text: string, from: number): number {
  for (let quote = text.indexOf('"', from); quote >= 0; quote = text.indexOf('"', quote + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 92) backslashes++;
    if (backslashes % 2 === 0) return quote;
  }
  return text.length;
}

/** True when the raw content of a literal may hold a known value once decoded. */
function mayHold(inner: string, spelled: Spelled): boolean {
  if (!inner.includes('\\') || inner.includes('\\u')) return true;
  spelled.leads ??= [...new Set(spelled.map(([spelling]) => spelling.slice(0, 3)))];
  return spelled.leads.some((lead) => inner.includes(lead));
}

/** A literal's content decoded (JSON escapes), or as it stands where it is not valid JSON. */
function decodeLiteral(inner: string): string {
  if (!inner.includes('\\')) return inner;
  try {
    return JSON.parse(`"${inner}"`) as string;
  } catch {
    return inner;
  }
}

/** True for a token of some other order: neither empty nor a placeholder. */
function isOther(value: string): boolean {
  return value !== '' && !value.startsWith('sealed:');
}

/**
 * A body that ends in the first `PARTIAL_MIN` or more characters of a known value (cut off): that
 * tail sealed, as the value whose start is longest; the first such value, longest first, on a tie.
 */
function sealCutTail(text: string, spelled: Spelled): string {
  let cut = '';
  let placeholder = '';
  for (const [, sealedAs, real] of spelled) {
    for (let length = Math.min(real.length - 1, text.length); length >= PARTIAL_MIN && length > cut.length; length--) {
      if (text.endsWith(real.slice(0, length))) {
        cut = real.slice(0, length);
        placeholder = sealedAs;
        break;
      }
    }
  }
  return cut === '' ? text : text.slice(0, text.length - cut.length) + placeholder;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
