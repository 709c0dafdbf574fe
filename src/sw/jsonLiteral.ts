/**
 * JSON string literals as the seal scanner reads them, in units that may be cut anywhere: where a
 * literal closes, an escape cut in two at its end, and its decoded text with each character mapped
 * back to the units it came from, so that a value found in what the page parses is replaced where
 * it stands in what the server sent. Pure functions of strings.
 */
import { TEXT_UNITS, type Units } from './sealSpellings.js';

/** An escape the body was cut inside of, at the end of a literal's units. */
const DANGLING = /\\(?:u[0-9a-fA-F]{0,3})?$/;

/** The escapes JSON knows besides `\u`, and what each stands for. */
const SHORT_ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/** A literal's decoded text, with the units each of its characters came from: `at` (first) and `after` (past the last). */
export interface Decoded {
  readonly text: string;
  readonly at: readonly number[];
  readonly after: readonly number[];
}

/**
 * The decoded text of a literal whose units from `a` to `b` are valid JSON; null otherwise. Units
 * past ASCII are decoded first, all at once: no byte past ASCII decodes to a quote or a backslash,
 * so the escapes read the same, and a sequence that is no character decodes as `decodeLiteral`'s does.
 */
export function quickDecode(units: string, a: number, b: number, spelling: Units): string | null {
  let raw = units.slice(a, b);
  if (spelling !== TEXT_UNITS && /[^\0-\x7f]/.test(raw)) raw = spelling.text(raw);
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return null;
  }
}

/**
 * A literal's units from `a` to `b`, decoded, each character mapped back to its units. An escape
 * JSON does not know stands for itself, as does a backslash at the end; units past ASCII are decoded
 * a UTF-8 sequence at a time (sealStream.ts), each character mapped to its own sequence, so that a
 * value that ends or starts with one is replaced without the characters beside it.
 */
export function decodeLiteral(units: string, a: number, b: number, spelling: Units): Decoded {
  let text = '';
  const at: number[] = [];
  const after: number[] = [];
  const add = (chars: string, from: number, to: number): void => {
    text += chars;
    for (let i = 0; i < chars.length; i++) at.push(from), after.push(to);
  };
  for (let i = a; i < b; ) {
    const code = units.charCodeAt(i);
    if (code === 92 && i + 1 < b) {
      const escape = units[i + 1] ?? '';
      const hex = units.slice(i + 2, i + 6);
      if (escape === 'u' && i + 6 <= b && /^[0-9a-fA-F]{4}$/.test(hex)) {
        add(String.fromCharCode(parseInt(hex, 16)), i, i + 6);
        i += 6;
        continue;
      }
      const short = SHORT_ESCAPES[escape];
      if (short !== undefined) {
        add(short, i, i + 2);
        i += 2;
        continue;
      }
    }
    if (code >= 0x80 && spelling !== TEXT_UNITS) {
      const j = Math.min(b, i + sequenceLength(units, i));
      add(spelling.text(units.slice(i, j)), i, j);
      i = j;
      continue;
    }
    add(units[i] ?? '', i, i + 1);
    i++;
  }
  return { text, at, after };
}

/**
 * Where the literal open before `from` closes: its first quote after an even run of backslashes
 * (counted back to `stop`); -1 for none yet.
 */
export function closingQuote(text: string, from: number, stop = 0): number {
  for (let quote = text.indexOf('"', from); quote >= 0; quote = text.indexOf('"', quote + 1)) {
    if (trailingBackslashes(text, stop, quote) % 2 === 0) return quote;
  }
  return -1;
}

/** How many units at the end of a literal's units from `a` to `end` are an escape cut in two (`\`, `\u`, `\u0`…). */
export function danglingEscape(text: string, a: number, end: number): number {
  const match = DANGLING.exec(text.slice(Math.max(a, end - 6), end));
  if (match === null) return 0;
  // The backslash starts an escape only after an even run of backslashes (`\\` is one).
  return trailingBackslashes(text, a, end - match[0].length) % 2 === 0 ? match[0].length : 0;
}

/**
 * How many units the UTF-8 sequence at `i` spans: its lead byte's count, as far as continuation
 * bytes follow (a unit past U+00FF stands for a byte from 0x80 to 0x9F, one, sealStream.ts); 1 for
 * a byte that leads none.
 */
function sequenceLength(units: string, i: number): number {
  const expected = leads(units.charCodeAt(i));
  let n = 1;
  while (n < expected && isContinuation(units.charCodeAt(i + n))) n++;
  return n;
}

/** How many bytes a UTF-8 sequence whose first byte is the unit `code` spans; 1 for a byte that leads none. */
function leads(code: number): number {
  return code >= 0x100 || code < 0xc0 ? 1 : code >= 0xf0 ? 4 : code >= 0xe0 ? 3 : 2;
}

/** A UTF-8 continuation byte (0x80 to 0xBF) as a unit: its own code, or past U+00FF for 0x80 to 0x9F. */
function isContinuation(code: number): boolean {
  return (code >= 0x80 && code < 0xc0) || code > 0xff;
}

/**
 * How many units at the end of the units from `a` to `end` are a UTF-8 sequence cut in two (its lead
 * byte and fewer continuation bytes than it names): no character yet, decoded only once it is whole.
 * None for units that are text.
 */
export function danglingSequence(units: string, a: number, end: number, spelling: Units): number {
  if (spelling === TEXT_UNITS) return 0;
  for (let i = end - 1; i >= Math.max(a, end - 3); i--) {
    const code = units.charCodeAt(i);
    if (isContinuation(code)) continue;
    return end - i < leads(code) ? end - i : 0;
  }
  return 0;
}

/** How many backslashes end the units from `a` to `end`. */
export function trailingBackslashes(text: string, a: number, end: number): number {
  let count = 0;
  while (end - count > a && text.charCodeAt(end - count - 1) === 92) count++;
  return count;
}
