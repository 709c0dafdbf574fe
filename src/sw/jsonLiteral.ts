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

/** The decoded text of a literal whose units from `a` to `b` are ASCII (or text) and valid JSON; null otherwise. */
export function quickDecode(units: string, a: number, b: number, isText: boolean): string | null {
  const raw = units.slice(a, b);
  if (!isText && /[^\0-\x7f]/.test(raw)) return null;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return null;
  }
}

/**
 * A literal's units from `a` to `b`, decoded, each character mapped back to its units. An escape
 * JSON does not know stands for itself, as does a backslash at the end; a run of units past ASCII is
 * decoded as one (sealStream.ts: a UTF-8 sequence), each of its characters mapped to the whole run.
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
      let j = i + 1;
      while (j < b && units.charCodeAt(j) >= 0x80) j++;
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

/** How many backslashes end the units from `a` to `end`. */
export function trailingBackslashes(text: string, a: number, end: number): number {
  let count = 0;
  while (end - count > a && text.charCodeAt(end - count - 1) === 92) count++;
  return count;
}
