/**
 * The seal scanner (CONTRACT.md, "Sealed tokens"): seals a response by what the worker knows, not by
 * where it expects a token. Each known value becomes its placeholder wherever it stands in what the
 * page can read: a whole JSON string, part of a longer one (a URL, an error message), URL-encoded,
 * in any JSON spelling (`\/`, `\u0063`), or in text that is no JSON at all. The `token` of any other
 * order (an account's order list) becomes `sealed:order`. Pure functions of text, so they are tested
 * in Node; nothing here throws.
 *
 * Output: every byte outside a replaced stretch stays as the server sent it; a replaced stretch of a
 * string literal is cut out in the server's own spelling (escapes included) and the placeholder,
 * JSON-escaped, stands in its place.
 *
 * Limits, chosen:
 * - URL encoders all leave `A-Z a-z 0-9 - _ .` as they are; any other character of a value is matched
 *   literally or as `%XX` (either hex case, UTF-8 bytes), and a space also as `+`. Double encoding
 *   (`%252B`) is not recognised.
 * - A body cut off inside a string literal: what can be decoded is decoded (an escape cut in half is
 *   left as it stands) and sealed as usual; a field of `orderFields` cut off becomes `sealed:order`; a body that
 *   ends in the first `PARTIAL_MIN` or more characters of a known value has that tail sealed too.
 *   Shorter cut-off pieces are left: they are no longer the token.
 * - Text with no backslash at all (most responses) takes a fast path that never walks the string
 *   literals: there the raw text is the decoded text, and `"token"` can only be a key.
 * - Order tokens used as object keys (`{"R1-token": {...}}`) are not recognised: only `orderFields`
 *   values are.
 */

/** The placeholder of any other cart's or order's token; never swapped back (the bearer reaches those orders). */
export const SEALED_ORDER = 'sealed:order';

/** What to seal in a response: the values the worker knows, and the fields that hold other orders' tokens. */
export interface SealPlan {
  /** `[real, placeholder]` pairs; where two values overlap, the longer one wins. */
  readonly values: readonly (readonly [real: string, placeholder: string])[];
  /** Field names (a dialect's, e.g. `token`) whose string value, unless a known value or a placeholder, becomes `sealed:order`. */
  readonly orderFields: readonly string[];
}

/** The fewest characters of a known value, at the very end of a cut-off body, that are sealed as that value. */
export const PARTIAL_MIN = 8;

/** One step of a value's spellings: a run every URL encoder leaves alone (`pct` empty), or one character that may be encoded. */
interface Unit {
  readonly lit: string;
  readonly pct: string;
}

/** A known value, prepared for one call: its spellings and where the scan last found it in the raw text. */
interface Known {
  readonly real: string;
  readonly rep: string;
  /** The leading run of characters every URL encoder leaves as they are: each spelling starts with it. */
  readonly lead: string;
  /** `null` when the value has one spelling only (all its characters stay as they are). */
  readonly units: readonly Unit[] | null;
  at: number;
  end: number;
  leadAt: number;
}

const SEALED_PREFIX = 'sealed:';
const NONE = Number.POSITIVE_INFINITY;

/** A placeholder as it stands inside a JSON string literal (placeholders are plain ASCII, but say so in code). */
function escapedForLiteral(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

/** True for `A-Z a-z 0-9 - _ .`: no URL encoder (encodeURIComponent, form, PHP, Ruby, Python, Go) changes them. */
function staysAsIs(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 45 || code === 95 || code === 46;
}

/** The plan's values ready to match, longest first (a value that holds another one must win). */
function prepare(plan: SealPlan): Known[] {
  const known: Known[] = [];
  for (const [real, placeholder] of plan.values) {
    if (real === '' || known.some((k) => k.real === real)) continue;
    let lead = 0;
    while (lead < real.length && staysAsIs(real.charCodeAt(lead))) lead++;
    known.push({ real, rep: escapedForLiteral(placeholder), lead: real.slice(0, lead), units: lead === real.length ? null : unitsOf(real), at: -1, end: -1, leadAt: -1 });
  }
  return known.sort((a, b) => b.real.length - a.real.length);
}

function unitsOf(real: string): Unit[] {
  const units: Unit[] = [];
  let run = '';
  for (const ch of real) {
    if (ch.length === 1 && staysAsIs(ch.charCodeAt(0))) {
      run += ch;
      continue;
    }
    if (run !== '') units.push({ lit: run, pct: '' });
    run = '';
    let pct: string;
    try {
      pct = encodeURIComponent(ch);
    } catch {
      pct = ch; // a lone surrogate has no UTF-8 spelling: only its literal one
    }
    // `!'()*~` are left as they are by encodeURIComponent but encoded by form and PHP encoders.
    if (pct === ch) pct = `%${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;
    units.push({ lit: ch, pct });
  }
  if (run !== '') units.push({ lit: run, pct: '' });
  return units;
}

/** True when `s` holds `pct` (`%2B`, `%E2%82%AC`) at `p`, hex digits in either case. */
function percentAt(s: string, p: number, pct: string): boolean {
  for (let i = 0; i < pct.length; i++) {
    const want = pct.charCodeAt(i);
    const got = s.charCodeAt(p + i);
    if (got !== want && !(want >= 65 && want <= 70 && got === want + 32)) return false;
  }
  return true;
}

/** The end of a spelling of `units[j…]` at `p` in `s`, within `limit`; -1 when there is none. */
function matchUnits(s: string, p: number, limit: number, units: readonly Unit[], j: number): number {
  for (; j < units.length; j++) {
    const u = units[j]!;
    if (u.pct === '') {
      if (p + u.lit.length > limit || !s.startsWith(u.lit, p)) return -1;
      p += u.lit.length;
      continue;
    }
    if (p + u.pct.length <= limit && percentAt(s, p, u.pct)) {
      // Only a literal `%` can also be read the other way (`%` then `25…`): try both.
      if (u.lit !== '%') {
        p += u.pct.length;
        continue;
      }
      const end = matchUnits(s, p + u.pct.length, limit, units, j + 1);
      if (end >= 0) return end;
    }
    if (p + u.lit.length <= limit && s.startsWith(u.lit, p)) p += u.lit.length;
    else if (u.lit === ' ' && p < limit && s.charCodeAt(p) === 43) p += 1; // form encoding: `+`
    else return -1;
  }
  return p;
}

/** Set by `find`: the end of the match it returned, so that finding allocates nothing. */
let matchEnd = 0;

/** The start of the first spelling of `k` in `s` at or after `p` and ending within `limit`; -1 when none. */
function find(s: string, p: number, limit: number, k: Known): number {
  if (k.units === null) {
    const at = s.indexOf(k.real, p);
    if (at < 0 || at + k.real.length > limit) return -1;
    matchEnd = at + k.real.length;
    return at;
  }
  if (k.lead !== '') {
    for (let at = s.indexOf(k.lead, p); at >= 0 && at + k.lead.length <= limit; at = s.indexOf(k.lead, at + 1)) {
      const end = matchUnits(s, at, limit, k.units, 0);
      if (end >= 0) {
        matchEnd = end;
        return at;
      }
    }
    return -1;
  }
  // The value starts with a character an encoder may change: try each place one of its spellings starts.
  const first = k.units[0]!.lit;
  for (let at = p; at < limit; at++) {
    at = nextOf(s, at, first, first === ' ');
    if (at < 0 || at >= limit) return -1;
    const end = matchUnits(s, at, limit, k.units, 0);
    if (end >= 0) {
      matchEnd = end;
      return at;
    }
  }
  return -1;
}

/** The first place at or after `p` where `s` holds `lit`, a `%`, or (for a space) a `+`. */
function nextOf(s: string, p: number, lit: string, space: boolean): number {
  let best = -1;
  for (const probe of space ? [lit, '%', '+'] : [lit, '%']) {
    const at = s.indexOf(probe, p);
    if (at >= 0 && (best < 0 || at < best)) best = at;
  }
  return best;
}

/** The output, built from the input's own slices and the placeholders; nothing is allocated until a first change. */
class Splice {
  readonly #text: string;
  #parts: string[] | null = null;
  #last = 0;

  constructor(text: string) {
    this.#text = text;
  }

  /** Where the last change ended: nothing before it is changed again. */
  get last(): number {
    return this.#last;
  }

  /** `text[from, to)` replaced by `rep`. */
  put(from: number, to: number, rep: string): void {
    if (from < this.#last) return;
    if (to - from === rep.length && this.#text.startsWith(rep, from)) return;
    (this.#parts ??= []).push(this.#text.slice(this.#last, from), rep);
    this.#last = to;
  }

  /** The changed text, or `null` when nothing changed. */
  result(): string | null {
    if (this.#parts === null) return null;
    this.#parts.push(this.#text.slice(this.#last));
    return this.#parts.join('');
  }
}

/** A string literal's content decoded as JSON.parse would, leniently, with the raw index of each code unit. */
interface Decoded {
  readonly s: string;
  /** `raw[i]` is where decoded unit `i` starts in the text; `raw[s.length]` is where the decoded content ends. */
  readonly raw: number[];
}

const SHORT_ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/**
 * Decodes `text[from, to)`. Never throws: an unknown escape `\x` stands for `x` (a lenient reading
 * seals more, never less), and an escape cut off by the end of a truncated body is not decoded.
 */
function decode(text: string, from: number, to: number): Decoded {
  let s = '';
  const raw: number[] = [];
  let i = from;
  while (i < to) {
    const c = text[i]!;
    if (c !== '\\') {
      s += c;
      raw.push(i++);
      continue;
    }
    if (i + 1 >= to) break; // a backslash cut off by the end of the body: left as it stands
    const e = text[i + 1]!;
    if (e === 'u') {
      const hex = text.slice(i + 2, i + 6);
      if (/^[0-9a-fA-F]{4}$/.test(hex)) {
        s += String.fromCharCode(parseInt(hex, 16));
        raw.push(i);
        i += 6;
        continue;
      }
      if (i + 6 > to) break; // `\u00` cut off by the end of the body: left as it stands
    }
    s += SHORT_ESCAPES[e] ?? e;
    raw.push(i);
    i += 2;
  }
  // Where decoding stopped: a cut-off escape after it is no part of any change.
  raw.push(Math.min(i, to));
  return { s, raw };
}

/** Skips JSON white space from `p`. */
function skipSpace(text: string, p: number): number {
  for (;;) {
    const c = text.charCodeAt(p);
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) return p;
    p++;
  }
}

/** One call's scan: the text, the prepared values, the fields and the output. */
class Scan {
  readonly text: string;
  readonly known: Known[];
  readonly fields: readonly string[];
  readonly out: Splice;
  readonly orderRep = escapedForLiteral(SEALED_ORDER);

  constructor(text: string, known: Known[], fields: readonly string[]) {
    this.text = text;
    this.known = known;
    this.fields = fields;
    this.out = new Splice(text);
  }

  /**
   * Seals `text[from, to)`, where the raw text is what the page reads (outside literals, or a
   * literal without escapes), earliest match first; each value's next match is kept, so a scan over
   * many regions searches the text once per value.
   */
  raw(from: number, to: number, final: boolean): void {
    let pos = from;
    for (;;) {
      let best: Known | null = null;
      let bestAt = NONE;
      let bestEnd = 0;
      for (const k of this.known) {
        if (k.at < pos) {
          const at = find(this.text, pos, this.text.length, k);
          k.at = at < 0 ? NONE : at;
          k.end = matchEnd;
        }
        if (k.at >= to || k.at >= bestAt) continue;
        let at = k.at;
        let end = k.end;
        // A match running past this region (a value holding a quote) is looked for within it.
        if (end > to) {
          at = find(this.text, pos, to, k);
          if (at < 0 || at >= bestAt) continue;
          end = matchEnd;
        }
        best = k;
        bestAt = at;
        bestEnd = end;
      }
      if (best === null) break;
      this.out.put(bestAt, bestEnd, best.rep);
      pos = bestEnd;
    }
    if (final) this.#tail(this.text, Math.max(from, this.out.last), to, (i) => i);
  }

  /** Seals a decoded literal, its changes cut out of the raw text by the decoded units' raw indices. */
  decoded(d: Decoded, final: boolean): void {
    const { s, raw } = d;
    let pos = 0;
    for (;;) {
      let best: Known | null = null;
      let bestAt = NONE;
      let bestEnd = 0;
      for (const k of this.known) {
        const at = find(s, pos, s.length, k);
        if (at >= 0 && at < bestAt) {
          best = k;
          bestAt = at;
          bestEnd = matchEnd;
        }
      }
      if (best === null) break;
      this.out.put(raw[bestAt]!, raw[bestEnd]!, best.rep);
      pos = bestEnd;
    }
    if (final) this.#tail(s, pos, s.length, (i) => raw[i]!);
  }

  /** A cut-off body that ends in the first `PARTIAL_MIN`+ characters of a known value: that tail sealed as the value. */
  #tail(s: string, from: number, to: number, rawOf: (i: number) => number): void {
    for (const k of this.known) {
      for (let n = Math.min(k.real.length - 1, to - from); n >= PARTIAL_MIN; n--) {
        if (s.startsWith(k.real.slice(0, n), to - n)) {
          this.out.put(rawOf(to - n), rawOf(to), k.rep);
          return;
        }
      }
    }
  }

  /**
   * The value of an order field (`text[from, to)`, decoded `d`): a known value whole becomes its
   * placeholder, a placeholder or an empty string stays, anything else becomes `sealed:order`;
   * false when the value is left to the ordinary rules.
   */
  orderValue(d: string, from: number, to: number): boolean {
    if (d === '') return false;
    for (const k of this.known) {
      if (find(d, 0, d.length, k) === 0 && matchEnd === d.length) {
        this.out.put(from, to, k.rep);
        return true;
      }
    }
    if (d.startsWith(SEALED_PREFIX)) return false;
    this.out.put(from, to, this.orderRep);
    return true;
  }

  /** True when the key `text[from, to)` (decoded `d` when it has escapes) is one of the order fields. */
  isOrderField(from: number, to: number, escaped: boolean): boolean {
    if (escaped) return this.fields.includes(decode(this.text, from, to).s);
    for (const f of this.fields) if (f.length === to - from && this.text.startsWith(f, from)) return true;
    return false;
  }

  /** True when a literal whose only escapes are the short ones (`\/`, `\n`…) may hold a value: its lead stands in the raw text. */
  mayHold(from: number, to: number): boolean {
    for (const k of this.known) {
      if (k.lead === '') return true;
      if (k.leadAt < from) {
        const at = this.text.indexOf(k.lead, from);
        k.leadAt = at < 0 ? NONE : at;
      }
      if (k.leadAt + k.lead.length <= to) return true;
    }
    return false;
  }
}

/** The end of the literal whose content starts at `from` (its closing quote, or -1 when cut off), and whether it holds escapes other than the short ones. */
function literalEnd(text: string, from: number, found: { long: boolean }): number {
  let i = from;
  let q = -1;
  for (;;) {
    // The quote found is kept until an escape passes it, so a long literal is not searched again per escape.
    if (q < i) q = text.indexOf('"', i) >>> 0; // not found: past any index
    const b = text.indexOf('\\', i);
    if (b < 0 || q < b) return q < text.length ? q : -1;
    const e = text[b + 1];
    if (e === undefined) return -1;
    if (SHORT_ESCAPES[e] === undefined) found.long = true;
    i = b + 2;
  }
}

/** The general scan: walks every string literal, for text that holds escapes somewhere. */
function scanLiterals(scan: Scan): void {
  const { text } = scan;
  const n = text.length;
  let pos = 0;
  let orderValueAt = -1;
  let backslash = text.indexOf('\\');
  const found = { long: false };
  for (;;) {
    const open = text.indexOf('"', pos);
    if (open < 0) {
      scan.raw(pos, n, true);
      return;
    }
    scan.raw(pos, open, false);
    const from = open + 1;
    let close = text.indexOf('"', from);
    if (backslash >= 0 && backslash < from) backslash = text.indexOf('\\', from);
    const escaped = backslash >= 0 && (close < 0 || backslash < close);
    found.long = false;
    if (escaped) close = literalEnd(text, from, found);
    const to = close < 0 ? n : close;
    const isOrderValue = open === orderValueAt;
    orderValueAt = -1;
    if (close >= 0 && scan.fields.length > 0) {
      const colon = skipSpace(text, close + 1);
      if (text.charCodeAt(colon) === 58 && scan.isOrderField(from, to, escaped)) orderValueAt = skipSpace(text, colon + 1);
    }
    const final = close < 0;
    if (!(isOrderValue && scan.orderValue(escaped ? decode(text, from, to).s : text.slice(from, to), from, to))) {
      if (!escaped) scan.raw(from, to, final);
      else if (found.long || final || scan.mayHold(from, to)) scan.decoded(decode(text, from, to), final);
    }
    if (final) return;
    pos = close + 1;
  }
}

/**
 * The fast path, for text without a backslash: the raw text is what the page decodes, so values are
 * matched over it at once; an order field is found as `"field"` followed by a colon (in JSON without
 * escapes a quote before a name always opens a literal).
 */
function scanPlain(scan: Scan): void {
  const { text } = scan;
  const values: [number, number][] = [];
  for (const field of scan.fields) {
    const key = `"${field}"`;
    for (let at = text.indexOf(key); at >= 0; at = text.indexOf(key, at + key.length)) {
      const colon = skipSpace(text, at + key.length);
      if (text.charCodeAt(colon) !== 58) continue;
      const open = skipSpace(text, colon + 1);
      if (text.charCodeAt(open) !== 34) continue;
      const close = text.indexOf('"', open + 1);
      values.push([open + 1, close < 0 ? text.length : close]);
    }
  }
  if (scan.fields.length > 1) values.sort((a, b) => a[0] - b[0]);
  let pos = 0;
  for (const [from, to] of values) {
    if (from < pos) continue;
    // The output is built in text order: what stands before the value first.
    scan.raw(pos, from, false);
    pos = scan.orderValue(text.slice(from, to), from, to) ? to : from;
  }
  scan.raw(pos, text.length, true);
}

/** `text` with every known value and every other order's token sealed; `null` when nothing changed. */
export function sealText(text: string, plan: SealPlan): string | null {
  const known = prepare(plan);
  if (known.length === 0 && plan.orderFields.length === 0) return null;
  const scan = new Scan(text, known, plan.orderFields);
  if (text.includes('\\')) scanLiterals(scan);
  else scanPlain(scan);
  return scan.out.result();
}

/** True when a header value holds one of `reals` in any spelling the scanner knows (raw, URL-encoded, JSON-escaped). */
export function headerHoldsSecret(value: string, reals: readonly string[]): boolean {
  return sealText(value, { values: reals.map((real) => [real, SEALED_PREFIX] as const), orderFields: [] }) !== null;
}

/** `headers` without every header whose value holds a real token; `null` when none does. */
export function sealHeaders(headers: Headers, reals: readonly string[]): Headers | null {
  const names: string[] = [];
  headers.forEach((value, name) => {
    if (headerHoldsSecret(value, reals)) names.push(name);
  });
  if (names.length === 0) return null;
  const kept = new Headers(headers);
  for (const name of names) kept.delete(name);
  return kept;
}
