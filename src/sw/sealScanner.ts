/**
 * The seal scanner: seals a response by what the worker knows, not by where it expects a token. Each
 * known value becomes its placeholder wherever it stands in what the page can read: a whole JSON
 * string, part of a longer one (a URL, an error message), URL-encoded, in any JSON spelling (`\/`,
 * `\u0063`), or in text that is no JSON at all. The token of any other cart or order (an account's
 * order list) becomes `sealed:order`. Pure and incremental: the body is pushed in parts as it
 * arrives, and each step says which part of it is final; nothing here throws.
 *
 * How: the body is read in units, one per byte (sealStream.ts picks how bytes become units), and
 * only the span of a known value's spelling is replaced, with its placeholder (ASCII, so valid in
 * any charset and inside any JSON string): every other unit stays as it came. A JSON string literal
 * with an escape is decoded, and the values are looked for in its decoded text, whose every
 * character is mapped back to the units it came from. A literal without one is its own text, and so
 * is the text between literals: there the spellings are looked for in the units themselves, and
 * runs of such plain literals are skipped by one pattern (most responses are nothing else). A
 * literal ends at a raw line end, which no string holds: a stray quote outside JSON (an event's
 * `data: the 5" screen`) opens one only to the end of its line. Text between literals that holds a
 * backslash is decoded as a literal too: on a line where a stray quote came, the strings are read
 * inside out, and a token a JSON encoder escaped (`a\/Nob…`, `\u002B…`) stands there; a quote
 * after an odd run of backslashes is such a string's own, and opens none. A quote inside a known
 * value as it stands (OAuth allows `"` in a token) opens or closes no string either: where one may
 * still grow into such a value, the scanner waits for the units that decide it.
 *
 * What is held back: the literal being read (it may turn out to be escaped, or a field's value), and
 * a tail of other text that may be the start of a spelling. A literal that grows past `MAX_HELD` is
 * released in parts, each part sealed by its decoded text and each cut where no value can straddle
 * it; a field's value that long is no token, and becomes its placeholder at once, the rest dropped.
 *
 * Limits, chosen: URL-encoded means `encodeURIComponent`'s spelling, with `!'()*` encoded or not
 * and either hex case; a mix of encoded and plain characters, and double encoding, are not
 * recognised. A body cut off inside a literal is decoded as far as it can be; one that ends in the
 * first `PARTIAL_MIN` or more characters of a known value has that tail sealed too. Another order's
 * token used as an object key is not recognised: only the values of the plan's `fields` are. White
 * space around a field's colon is JSON's (space, tab, line feed, carriage return).
 */
import { closingQuote, danglingEscape, danglingSequence, decodeLiteral, quickDecode, trailingBackslashes, type Decoded } from './jsonLiteral.js';
import { compile, TEXT_UNITS, type Known, type SealPlan, type Units } from './sealSpellings.js';

/** The placeholder of any other cart's or order's token; never swapped back (the bearer reaches those orders). */
export const SEALED_ORDER = 'sealed:order';

/** The fewest characters of a known value, at the very end of a cut-off body, that are sealed as that value. */
export const PARTIAL_MIN = 8;

/** The most of one response the scanner holds back, in units (bytes of a body): 1 MiB. */
export const MAX_HELD = 1 << 20;

/** One replacement: units `from` to `to` of the body (counted from its start) become `text`. */
export interface Edit {
  readonly from: number;
  readonly to: number;
  readonly text: string;
}

/** A step of the scanner: its edits, in order, and where the part of the body it has released ends. */
export interface Step {
  readonly edits: readonly Edit[];
  readonly to: number;
}

/**
 * What ends a line, which no string holds raw: neither JSON's nor JavaScript's. (JSON holds no other
 * control character either, but a page that reads a body as JavaScript, `eval` or `new Function`, reads
 * a string with a raw tab, escapes and all: such a string is still read as one.)
 */
const LINE_END = /[\n\r]/;

/** What may close an open literal: its quote (after an even run of backslashes), or a line end that shows it opened none. */
const MAY_CLOSE = /[\n\r]|(?:^|[^\\])(?:\\\\)*"/;

/** Runs of text outside literals and of literals without an escape (nor a line end: a literal holds none), from an outside position. */
const PLAIN = /[^"\\]*(?:"[^"\\\n\r]*"[^"\\]*)*/y;

/**
 * The scanner of one body. `push` each part of it as it arrives, then `end`; each step's edits
 * apply to the units before its `to`, which are final.
 */
export class SealScanner {
  readonly #known: Known;
  readonly #units: Units;
  /** The units not released yet; `#base` is the position of the first one in the body. */
  #buf = '';
  #base = 0;
  /** Where reading resumes, outside a literal. */
  #pos = 0;
  /** A literal is open: its content (not released yet) starts at `#from`; its closing quote is looked for from `#close`. */
  #open = false;
  #from = 0;
  #close = 0;
  /** Where its spellings are walked from at a quote that may close it: past the last that held one, so each is walked once. */
  #walk = 0;
  /** The open literal's opening quote is held too (no part of it is out yet). */
  #whole = false;
  /** The open literal is the value of a field: the placeholder it becomes. */
  #valueOf: string | undefined;
  /** A field's value past `MAX_HELD`: its placeholder is out, and the rest of it is dropped. */
  #dropping = false;
  /** The literal just closed names a field (its placeholder), and whether its colon has come. */
  #key: string | undefined;
  #colon = false;
  #edits: Edit[] = [];
  /** The next spelling of a known value, plain literal naming a field, and backslash. */
  readonly #raw: Ahead;
  readonly #keys: Ahead;
  readonly #slash = new Ahead(/\\/g);
  /** The spellings that hold a quote (most plans have none). */
  readonly #quotes: readonly string[];
  /** An odd run of backslashes ends `#buf`: a quote that comes next is escaped. */
  #odd = false;

  constructor(plan: SealPlan, units: Units = TEXT_UNITS) {
    this.#known = compile(plan, units);
    this.#units = units;
    this.#raw = new Ahead(this.#known.raw.any);
    this.#keys = new Ahead(this.#known.keys);
    let quotes = quoteSpellings.get(this.#known);
    if (quotes === undefined) quoteSpellings.set(this.#known, (quotes = this.#known.raw.list.filter((spelling) => spelling.includes('"'))));
    this.#quotes = quotes;
  }

  /** Reads the next part of the body. */
  push(units: string): Step {
    // In a literal searched to its end, a part with no line end and no quote but escaped ones closes
    // nothing, and releases nothing while the literal is within `MAX_HELD`: the step would find what
    // it found. Appended unread, a long string streamed in small parts is not copied whole at every
    // part, nor is one of escaped HTML (`class=\"x\"` in nearly every part).
    const odd = this.#odd;
    const run = trailingBackslashes(units, 0, units.length);
    this.#odd = run % 2 === 1 !== (run === units.length && odd);
    if (this.#open && !this.#dropping && this.#close === this.#buf.length && this.#buf.length + units.length <= MAX_HELD && !MAY_CLOSE.test(odd ? `\\${units}` : units)) {
      this.#buf += units;
      this.#close = this.#buf.length;
      return { edits: [], to: this.#base };
    }
    this.#buf += units;
    const step = this.#step(false);
    this.#odd = trailingBackslashes(this.#buf, 0, this.#buf.length) % 2 === 1;
    return step;
  }

  /** The end of the body: what was held back, sealed as a body cut off there. */
  end(): Step {
    return this.#step(true);
  }

  #step(final: boolean): Step {
    const buf = this.#buf;
    const end = buf.length;
    this.#edits = [];
    for (const ahead of [this.#raw, this.#keys, this.#slash]) ahead.reset(buf);
    let pos = this.#pos;
    let release: number;
    for (;;) {
      if (this.#open) {
        const close = closingQuote(buf, this.#close);
        // A string never holds a raw line feed or carriage return: a quote that meets one before it
        // closes opened none (a stray `"` in an event's text), and what it held is outside text. Else
        // it would pair with the next quote, and every string after it be read inside out. (Only the
        // part not looked at yet is searched: a search to the next line end could run to the end of a
        // body that has none, at every literal.)
        const lineEnd = buf.slice(this.#close, close < 0 ? end : close).search(LINE_END);
        if (lineEnd >= 0) {
          this.#voidLiteral((pos = this.#close + lineEnd));
          continue;
        }
        const value = close < 0 || this.#dropping ? -1 : this.#quoted(Math.max(this.#from, this.#walk), close, final);
        if (value > close) {
          this.#close = this.#walk = value;
          continue;
        }
        if (close >= 0 && value < 0) {
          this.#closeLiteral(close);
          pos = close + 1;
          continue;
        }
        if (final) {
          this.#cutLiteral(end);
          release = pos = end;
        } else if (this.#dropping) {
          release = this.#drop(end);
        } else {
          this.#close = value < 0 ? end : close;
          release = this.#whole ? this.#from - 1 : this.#from;
          if (end - release > MAX_HELD) release = this.#release(end);
        }
        break;
      }
      if (this.#key === undefined) pos = this.#skipPlain(pos);
      // A quote after an odd run of backslashes is a string's own, read inside out: outside text
      // holds no escape where the reading is right. (A sealed value's backslash escapes nothing.)
      const quote = closingQuote(buf, pos, this.#edited());
      if (quote < 0) {
        release = pos = this.#outside(pos, end, final ? 'final' : 'open');
        break;
      }
      // A known value may hold a quote (OAuth allows one in a token): one that stands as sent around
      // this quote is no string's, and one that may still grow into such a value is waited for.
      const value = this.#quoted(pos, quote, final);
      if (value >= 0) {
        // A spelling across where one may start is read first: sealed (that one would start after
        // it), or, as it stands, left for the next step whole. Before a held start the text is open:
        // decoded, it may run on into that start (`a\/Nob+x=9Z` before `9Z"…`).
        pos = Math.max(this.#outside(pos, Math.max(pos, value), value > quote ? 'bounded' : 'open'), this.#edited());
        if (value > quote) continue;
        release = pos;
        break;
      }
      this.#outside(pos, quote, 'bounded');
      this.#valueOf = this.#key !== undefined && this.#colon ? this.#key : undefined;
      this.#key = undefined;
      this.#open = this.#whole = true;
      this.#from = this.#close = this.#walk = pos = quote + 1;
    }
    this.#buf = buf.slice(release);
    this.#base += release;
    this.#pos = pos - release;
    this.#from -= release;
    this.#close -= release;
    this.#walk -= release;
    return { edits: this.#edits, to: this.#base };
  }

  /**
   * A quote at `quote`, read from `pos` (outside text, or a literal's content): where a known value
   * that holds it, as it stands, ends (past `quote`: it is no string's quote), or where one may start
   * (at or before it) when more may follow; else -1.
   */
  #quoted(pos: number, quote: number, final: boolean): number {
    if (this.#quotes.length === 0) return -1;
    // Skipped text before `pos` (its outside text, back to the last quote or edit) may start one.
    const from = this.#textFrom(quote);
    let match = this.#raw.at(pos);
    while (match !== null && match.index + match[0].length <= quote) match = this.#raw.at(match.index + match[0].length);
    let held = final ? quote + 1 : this.#quotedTail(from);
    if (match !== null && match.index <= quote) {
      const to = match.index + match[0].length;
      // One that runs into a tail that may still grow into a longer spelling waits for it, as in `#outside`.
      held = final ? to : heldFrom(this.#buf, Math.min(from, match.index), this.#buf.length, this.#known.raw.list);
      if (held >= to) return to;
      held = Math.min(held, match.index);
    }
    // The backslashes before a held start are held with it: read decoded, they may be part of a spelling.
    return held <= quote ? held - trailingBackslashes(this.#buf, this.#edited(), held) : -1;
  }

  /**
   * Where outside text before `b` that may hold a spelling starts: after the last quote before it
   * (one after an odd run of backslashes is a string's own, or a value's, and ends none), never
   * inside an edit already made, and no further back than the longest spelling.
   */
  #textFrom(b: number): number {
    const stop = Math.max(this.#edited(), b - (this.#known.raw.list[0]?.length ?? 0));
    let quote = b;
    do quote = quote > stop ? this.#buf.lastIndexOf('"', quote - 1) : -1;
    while (quote >= stop && trailingBackslashes(this.#buf, this.#edited(), quote) % 2 === 1);
    return Math.max(quote + 1, stop);
  }

  /** Where a tail of the units from `a` to their end that may grow into a known value holding a quote starts; Infinity for none. */
  #quotedTail(a: number): number {
    const held = this.#quotes.length === 0 ? Infinity : heldFrom(this.#buf, a, this.#buf.length, this.#quotes);
    return held < this.#buf.length ? held : Infinity;
  }

  /**
   * Past outside text and literals without an escape that hold nothing to seal and name no field:
   * up to the next spelling of a known value, the next field name, or the next backslash.
   */
  #skipPlain(pos: number): number {
    const limit = Math.min(this.#raw.at(pos)?.index ?? Infinity, this.#keys.at(pos)?.index ?? Infinity, this.#quotedTail(pos));
    const text = limit === Infinity ? this.#buf : this.#buf.slice(0, limit);
    PLAIN.lastIndex = pos;
    PLAIN.test(text);
    return PLAIN.lastIndex;
  }

  /**
   * Text outside literals, from `a` to `b`: its spellings sealed. `open`: the text may go on past
   * `b`, so a tail that may be the start of a spelling is held back; `final`: the body ends at `b`.
   * Returns where the part read ends.
   */
  #outside(a: number, b: number, mode: 'bounded' | 'open' | 'final'): number {
    const { raw } = this.#known;
    if (this.#hasSlash(a, b)) {
      // Escapes outside a string: a stray quote before them may have turned the strings inside out,
      // so the text is read decoded too, as a literal, from where a spelling may start (no further
      // back than the longest, the last quote or the last edit; skipped text holds no backslash).
      const start = this.#textFrom(a);
      const end = mode === 'open' ? this.#sealUpTo(start, b) : (this.#sealLiteral(start, b, true, mode === 'final'), b);
      if (this.#key !== undefined) this.#afterKey(a, end);
      return end;
    }
    // Outside text may begin before `a`, in what was skipped as holding nothing: a held or cut-off tail may too.
    const from = mode === 'bounded' ? a : this.#textFrom(b);
    let end = mode === 'open' ? heldFrom(this.#buf, from, b, raw.list) : b;
    let last = from;
    for (let match = this.#raw.at(a); match !== null && match.index < end; match = this.#raw.at(last)) {
      const to = match.index + match[0].length;
      // A spelling that runs into the held tail may still turn out to be a longer one's start.
      if (to > end) {
        end = match.index;
        break;
      }
      this.#edit(match.index, to, raw.by.get(match[0]) ?? '');
      last = to;
    }
    const tail = mode === 'final' ? this.#tail(this.#buf, last, end) : null;
    if (tail !== null) this.#edit(...tail);
    if (this.#key !== undefined) this.#afterKey(a, end);
    return end;
  }

  /** Follows `"field"` to its value: white space, one colon, white space, then the value's quote. */
  #afterKey(a: number, b: number): void {
    for (let i = a; i < b && this.#key !== undefined; i++) {
      const code = this.#buf.charCodeAt(i);
      if (code === 58 && !this.#colon) this.#colon = true;
      else if (code !== 32 && code !== 9 && code !== 10 && code !== 13) this.#key = undefined;
    }
  }

  /** The open literal closes at `close`. */
  #closeLiteral(close: number): void {
    const a = this.#from;
    const valueOf = this.#valueOf;
    const whole = this.#whole;
    this.#open = false;
    this.#valueOf = undefined;
    this.#colon = false;
    this.#key = undefined;
    if (this.#dropping) {
      this.#dropping = false;
      this.#edit(a, close, '');
      return;
    }
    const escaped = this.#hasSlash(a, close);
    if (valueOf !== undefined) {
      this.#fieldValue(a, close, escaped, valueOf, false);
      return;
    }
    // Only a plain literal short enough to spell a field's name is read as one.
    if (!escaped && !(whole && close - a <= this.#known.longestKey)) {
      this.#put(this.#rawSpans(a, close));
      return;
    }
    const text = this.#sealLiteral(a, close, escaped, false);
    if (whole && close - a <= this.#known.longestKey) this.#key = this.#known.fields.get(text);
  }

  /** The open literal was none: a line end at `stop` came before its closing quote. */
  #voidLiteral(stop: number): void {
    this.#open = this.#dropping = false;
    this.#valueOf = undefined;
    this.#outside(this.#from, stop, 'bounded');
  }

  /** The body ends inside the open literal, at `end`. */
  #cutLiteral(end: number): void {
    const a = this.#from;
    const valueOf = this.#valueOf;
    this.#open = false;
    this.#valueOf = undefined;
    if (this.#dropping) {
      this.#dropping = false;
      this.#edit(a, end, '');
      return;
    }
    // An escape cut in two stays as it came: it is no character yet.
    const b = end - danglingEscape(this.#buf, a, end);
    const escaped = this.#hasSlash(a, b);
    if (valueOf !== undefined) this.#fieldValue(a, b, escaped, valueOf, true);
    else this.#sealLiteral(a, b, escaped, true);
  }

  /**
   * A field's value (`"token": "…"`) becomes the placeholder of the known value it is, else the
   * field's own; an empty value stays, and so does a placeholder, but for a known value inside it
   * (`sealed:cart,a/Nob…` is no placeholder a page was given, and must not carry a token past).
   * `cut`: the body ends at `b`.
   */
  #fieldValue(a: number, b: number, escaped: boolean, placeholder: string, cut: boolean): void {
    const { raw, text } = this.#known;
    const value = escaped ? this.#decode(a, b).text : this.#buf.slice(a, b);
    if (value.startsWith('sealed:')) this.#sealLiteral(a, b, escaped, cut);
    else if (value !== '') this.#edit(a, b, (escaped ? text : raw).by.get(value) ?? placeholder);
  }

  /**
   * A literal's units from `a` to `b`, its known values sealed: as they stand (a page may read the
   * body as text) and, where it holds an escape, in its decoded text too (a page may parse it).
   * `cut`: the body ends at `b`, so a tail that starts a known value is sealed as well. Returns the
   * literal's decoded text.
   */
  #sealLiteral(a: number, b: number, escaped: boolean, cut: boolean): string {
    const spans = this.#rawSpans(a, b);
    const rawEnd = spans.at(-1)?.[1] ?? a;
    if (!escaped) {
      const tail = cut ? this.#tail(this.#buf, rawEnd, b) : null;
      this.#put(tail === null ? spans : [...spans, tail]);
      return this.#buf.slice(a, b);
    }
    const { any } = this.#known.text;
    const quick = quickDecode(this.#buf, a, b, this.#units);
    if (quick !== null && !cut && (any === null || !test(any, quick)) && !quick.includes('\\')) {
      this.#put(spans);
      return quick;
    }
    const decoded = this.#decode(a, b);
    const found = this.#decodedSpans(decoded, decoded.text.length, b);
    spans.push(...found);
    if (cut) {
      for (const tail of [this.#tail(this.#buf, rawEnd, b), this.#tail(decoded.text, found.last, decoded.text.length, decoded)]) if (tail !== null) spans.push(tail);
    }
    this.#put(spans);
    return decoded.text;
  }

  /**
   * The open literal holds more than `MAX_HELD`: its part up to `end` is released, sealed as a
   * whole literal would be, up to where no known value may straddle the cut. A field's value
   * becomes its placeholder at once, and the rest of it is dropped as it comes.
   */
  #release(end: number): number {
    const a = this.#from;
    this.#whole = false;
    if (this.#valueOf !== undefined) {
      this.#dropping = true;
      const keep = end - (trailingBackslashes(this.#buf, a, end) % 2);
      this.#edit(a, keep, this.#valueOf);
      return (this.#from = keep);
    }
    return (this.#from = this.#sealUpTo(a, end));
  }

  /**
   * Units from `a` to `end`, read as a literal's, that more may follow: sealed up to where no known
   * value may straddle the cut, which is returned.
   */
  #sealUpTo(a: number, end: number): number {
    // An escape or a character cut in two is no character yet: it waits for the rest.
    const dangling = danglingEscape(this.#buf, a, end);
    const b = end - (dangling || danglingSequence(this.#buf, a, end, this.#units));
    const decoded = this.#decode(a, b);
    const { text, at, after } = decoded;
    // Before a tail that may start a spelling, decoded (at every depth) or as it stands, and at a character's start.
    let cut = heldFrom(this.#buf, a, b, this.#known.raw.list);
    for (const level of nested(decoded, true)) {
      // A backslash (or `\u00`) that ends a decoded text may open an escape of the text inside it.
      const length = level.text.length - danglingEscape(level.text, 0, level.text.length);
      const held = heldFrom(level.text, 0, length, this.#known.text.list);
      if (held < level.text.length) cut = Math.min(cut, level.at[held] ?? b);
    }
    const spans = [...this.#rawSpans(a, b), ...this.#decodedSpans(decoded, text.length, b)];
    for (let moved = true; moved; ) {
      moved = false;
      for (let k = text.length - 1; k >= 0 && (after[k] ?? 0) > cut; k--) if ((at[k] ?? 0) < cut) cut = at[k] ?? a;
      for (const [from, to] of spans) if (from < cut && to > cut) (cut = from), (moved = true);
    }
    this.#put(spans.filter(([, to]) => to <= cut));
    return cut;
  }

  /**
   * A field's value past `MAX_HELD`, still open at `end`: dropped, all but an odd trailing backslash
   * (it escapes the next quote: only the run's parity decides, and the run may be any length).
   */
  #drop(end: number): number {
    const keep = end - (trailingBackslashes(this.#buf, this.#from, end) % 2);
    this.#edit(this.#from, keep, '');
    this.#close = end;
    return (this.#from = keep);
  }

  /** The spellings in the units from `a` to `b`, as spans. */
  #rawSpans(a: number, b: number): Span[] {
    const spans: Span[] = [];
    for (let match = this.#raw.at(a); match !== null && match.index < b; match = this.#raw.at(match.index + match[0].length)) {
      spans.push([match.index, match.index + match[0].length, this.#known.raw.by.get(match[0]) ?? '']);
    }
    return spans;
  }

  /** The spellings in a decoded literal's text, as spans of its units; `last`: where the last one ends in the text. */
  #decodedSpans(decoded: Decoded, length: number, b: number): Span[] & { last: number } {
    const { any, by } = this.#known.text;
    const spans = Object.assign([] as Span[], { last: 0 });
    if (any === null) return spans;
    // A decoded text that holds escapes in turn (JSON inside a JSON string) is looked at decoded again.
    for (const { text, at, after } of nested(decoded)) {
      for (const match of matchesOf(any, text === decoded.text ? text.slice(0, length) : text)) {
        const last = match.index + match[0].length;
        if (text === decoded.text) spans.last = last;
        spans.push([at[match.index] ?? b, after[last - 1] ?? b, by.get(match[0]) ?? '']);
      }
    }
    return spans;
  }

  /**
   * Spans as edits, in order (the longest where two start together): one that starts inside another
   * and runs past it is its own from where that one ends, as it is when the body is cut between them.
   */
  #put(spans: Span[]): void {
    let end = 0;
    for (const [from, to, text] of spans.sort((x, y) => x[0] - y[0] || y[1] - x[1])) if (to > end) this.#edit(Math.max(from, end), (end = to), text);
  }

  /**
   * A body cut off at `b` (`text` is the units, or a literal's decoded text with `decoded` mapping
   * it back): a tail after `a` that is the first `PARTIAL_MIN` or more characters of a known value,
   * as a span sealed as that value (the longest such start; the longer value on a tie), or null.
   */
  #tail(text: string, a: number, b: number, decoded?: Decoded): Span | null {
    let length = 0;
    let placeholder = '';
    for (const [units, plain, sealedAs] of this.#known.reals) {
      const real = decoded === undefined ? units : plain;
      for (let n = Math.min(real.length - 1, b - a); n >= PARTIAL_MIN && n > length; n--) {
        if (text.startsWith(real.slice(0, n), b - n)) {
          length = n;
          placeholder = sealedAs;
          break;
        }
      }
    }
    if (length === 0) return null;
    return decoded === undefined ? [b - length, b, placeholder] : [decoded.at[b - length] ?? 0, decoded.after[b - 1] ?? 0, placeholder];
  }

  /** Where the last edit of this step ends, in the units held (0 for none). */
  #edited(): number {
    return (this.#edits.at(-1)?.to ?? this.#base) - this.#base;
  }

  #edit(from: number, to: number, text: string): void {
    if (to > from) this.#edits.push({ from: this.#base + from, to: this.#base + to, text });
  }

  #decode(a: number, b: number): Decoded {
    return decodeLiteral(this.#buf, a, b, this.#units);
  }

  /** True when the units from `a` to `b` hold a backslash. */
  #hasSlash(a: number, b: number): boolean {
    const slash = this.#slash.at(a);
    return slash !== null && slash.index < b;
  }
}

/**
 * The next match of a global pattern in a text, at or after a position: looked for once, and kept
 * while the positions asked for stay behind it, so that a text is searched once whatever is asked.
 */
class Ahead {
  readonly #pattern: RegExp | null;
  #text = '';
  #match: RegExpExecArray | null | undefined;
  #from = 0;

  constructor(pattern: RegExp | null) {
    this.#pattern = pattern;
  }

  /** A new text to search. */
  reset(text: string): void {
    this.#text = text;
    this.#match = undefined;
  }

  /** The first match at or after `from`, or null. */
  at(from: number): RegExpExecArray | null {
    const match = this.#match;
    if (match !== undefined && this.#from <= from && (match === null || match.index >= from)) return match;
    if (this.#pattern === null) return (this.#match = null);
    this.#pattern.lastIndex = this.#from = from;
    return (this.#match = this.#pattern.exec(this.#text));
  }
}

/** The text with every known value sealed, or `null` when nothing changed. */
export function sealText(text: string, plan: SealPlan): string | null {
  const scanner = new SealScanner(plan);
  const edits = [...scanner.push(text).edits, ...scanner.end().edits];
  const sealed = applyEdits(text, edits);
  return sealed === text ? null : sealed;
}

/** `text` with `edits` (in order, counted from its start) applied. */
export function applyEdits(text: string, edits: readonly Edit[]): string {
  let out = '';
  let copied = 0;
  for (const { from, to, text: replacement } of edits) {
    out += text.slice(copied, from) + replacement;
    copied = to;
  }
  return out + text.slice(copied);
}

/** For each compiled plan, its spellings that hold a quote: found once, not for every response. */
const quoteSpellings = new WeakMap<Known, readonly string[]>();

/** Units `from` to `to` (of the scanner's buffer) become `text`. */
type Span = [from: number, to: number, text: string];

/**
 * The start of the longest tail of `text` from `a` to `b` that is the start of a spelling, but not
 * the whole of it: what may still turn out to hold a known value. `b` when there is none.
 */
function heldFrom(text: string, a: number, b: number, spellings: readonly string[]): number {
  let held = b;
  for (const spelling of spellings) {
    const first = spelling[0] ?? '';
    for (let s = text.indexOf(first, Math.max(a, b - spelling.length + 1)); s >= 0 && s < held; s = text.indexOf(first, s + 1)) {
      if (spelling.startsWith(text.slice(s, b))) {
        held = s;
        break;
      }
    }
  }
  return held;
}

/** How deep a JSON text inside a JSON string is decoded again: a string holding JSON that holds JSON. */
const MAX_DEPTH = 4;

/**
 * A literal's decoded text, then, while it holds a backslash, that text decoded again (a JSON
 * document quoted in a string: an error that embeds an upstream answer, PHP's `json_encode` of one),
 * each level's characters mapped back to the units they came from.
 */
function nested(decoded: Decoded, open = false): Decoded[] {
  const levels = [decoded];
  for (let outer = decoded; levels.length < MAX_DEPTH && outer.text.includes('\\'); ) {
    // `open`: more may follow, so an escape cut in two at a level's end is no character of the next one.
    const inner = decodeLiteral(outer.text, 0, outer.text.length - (open ? danglingEscape(outer.text, 0, outer.text.length) : 0), TEXT_UNITS);
    if (inner.text === outer.text) break;
    const { at, after } = outer;
    outer = { text: inner.text, at: inner.at.map((i) => at[i] ?? 0), after: inner.after.map((i) => after[i - 1] ?? 0) };
    levels.push(outer);
  }
  return levels;
}

/** Every match of `pattern` (global) in `text`: `matchAll` would start where the last `test` left off. */
function matchesOf(pattern: RegExp, text: string): RegExpExecArray[] {
  pattern.lastIndex = 0;
  return [...text.matchAll(pattern)] as RegExpExecArray[];
}

/** `pattern` (global) tested on the whole of `text`. */
function test(pattern: RegExp, text: string): boolean {
  pattern.lastIndex = 0;
  return pattern.test(text);
}

