/**
 * Sealing as the body streams: a TransformStream of bytes that the page's body flows through, each
 * part reaching the page as it arrives, held back only by what the seal scanner (sealScanner.ts) may
 * still have to replace. Every byte it does not replace goes out as it came, whatever the body is
 * (Latin-1 text, a PDF, an image), so a body in which nothing was replaced is the server's, byte
 * for byte.
 *
 * The charset: the one the `Content-Type` declares (UTF-8 when none), unless the body opens with a
 * byte order mark, which decides as it does for XHR's `responseText`. A UTF-8 body is scanned byte by
 * byte (each byte one unit, so that any byte sequence, valid or not, maps back exactly); a body in a
 * single-byte charset, character by character, which is the same. Placeholders are ASCII, which
 * UTF-8 and every single-byte charset spell alike, so a replacement never changes the charset. (A
 * single-byte body is held whole ahead of this stream, up to `MAX_HELD`, and re-encoded in UTF-8 when
 * something was replaced (sealedResponse.ts); only one longer than that streams here, and keeps the
 * charset its `Content-Type` names, which headers sent before the first replacement could not change.) A body
 * in any other charset (UTF-16, Shift_JIS…) cannot be rewritten: it is held whole (up to
 * `MAX_HELD`) and passed on as it came if it holds no known value, read in that charset (as XHR reads
 * it) or in UTF-8 (as fetch's `text()` and `json()` read any body), else refused: the page's body
 * read fails, as it would on a network error. So is a single-byte body while the worker holds a value
 * that is not ASCII, which the two readings spell apart.
 */
import { DEBUG_BUILD } from '../shared/debugBuild.js';
import { mimeCharset } from './mimeCharset.js';
import { MAX_HELD, SealScanner, sealText, type Edit, type Step } from './sealScanner.js';
import { TEXT_UNITS, type SealPlan, type Units } from './sealSpellings.js';

/** One byte, one unit: windows-1252 gives each of the 256 bytes a character of its own. */
const bytesAsUnits = new TextDecoder('windows-1252');

/** The bytes behind units read by `bytesAsUnits`; only the 32 from 0x80 to 0x9F are not their own code. */
const BYTE_OF = new Map([...bytesAsUnits.decode(Uint8Array.from({ length: 32 }, (_, i) => 0x80 + i))].map((char, i) => [char, 0x80 + i]));

/**
 * Decodes the units of a literal, not a body: a U+FEFF inside it is a character the page's parse
 * keeps, not a byte order mark to drop. Without `stream`, each call stands alone.
 */
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/** A UTF-8 body's units: its bytes. */
export const UTF8_UNITS: Units = {
  of: (text) => (/^[\0-\x7f]*$/.test(text) ? text : bytesAsUnits.decode(new TextEncoder().encode(text))),
  // Called for every character past ASCII of a literal decoded the long way: one decoder, no callback per unit.
  text: (units) => {
    const bytes = new Uint8Array(units.length);
    for (let i = 0; i < units.length; i++) {
      const code = units.charCodeAt(i);
      bytes[i] = code < 0x100 ? code : (BYTE_OF.get(units[i] ?? '') ?? code);
    }
    return utf8.decode(bytes);
  },
};

/** The charsets with one byte per character, as `TextDecoder` names them: all of them spell ASCII as ASCII. */
const SINGLE_BYTE = /^(?:ibm866|iso-8859-\d+(?:-i)?|koi8-[ru]|macintosh|windows-(?:874|125\d)|x-mac-cyrillic)$/;

/** How a body is read: rewritten as it streams (its bytes decoded into units for the scanner), or checked whole. */
type Reading = { scanner: SealScanner; decoder: TextDecoder } | { check: string };

/** Decoders of single-byte charsets, which keep no state between calls, by name. */
const decoders = new Map<string, TextDecoder>([['utf-8', bytesAsUnits]]);

/** Where the sealer puts what it releases: a stream's controller. */
interface Out {
  enqueue(chunk: Uint8Array): void;
}

/**
 * The body the page reads: what `reader` reads, sealed by `plan` as it arrives. `head`: the chunks
 * read from it already, not all of it. A refused body fails the page's read and stops the network's.
 */
export function sealedBody(reader: ReadableStreamDefaultReader<Uint8Array>, head: readonly Uint8Array[], plan: SealPlan, contentType: string | null): ReadableStream<Uint8Array> {
  const sealer = new BodySealer(plan, charsetOf(contentType));
  const refuse = (error: unknown): never => {
    void reader.cancel(error).catch(() => {});
    throw error;
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      try {
        for (const chunk of head) sealer.push(chunk, controller);
      } catch (error) {
        refuse(error);
      }
    },
    async pull(controller) {
      // A part the sealer holds back whole releases nothing: read on until something goes out.
      for (let released = false; !released; ) {
        const { done, value } = await reader.read();
        try {
          if (!done) {
            released = sealer.push(value, controller);
            continue;
          }
          sealer.end(controller);
          controller.close();
          return;
        } catch (error) {
          refuse(error);
        }
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/**
 * The parts of the body the page reads when `whole`, read from `reader` already, is all of it:
 * sealed at once, for a stream that holds them from the start (`filledStream`: Chromium hands such a
 * stream to the page more cheaply than one filled as the page reads, as the bench's floors show),
 * and whose length is known before the page gets the headers. A refused body throws, so that the
 * page's fetch rejects, and stops the network's.
 */
export function sealedWholeParts(reader: ReadableStreamDefaultReader<Uint8Array>, whole: readonly Uint8Array[], plan: SealPlan, contentType: string | null): Uint8Array[] {
  const sealer = new BodySealer(plan, charsetOf(contentType));
  const parts: Uint8Array[] = [];
  const out: Out = { enqueue: (part) => parts.push(part) };
  try {
    for (const chunk of whole) sealer.push(chunk, out);
    sealer.end(out);
  } catch (error) {
    void reader.cancel(error).catch(() => {});
    throw error;
  }
  return parts;
}

/** A stream that holds `parts` from the start, and nothing else. */
export function filledStream(parts: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
}

/** The body's bytes, sealed part by part: the reading is chosen on the first bytes (a byte order mark, or none), then each part is scanned. */
class BodySealer {
  readonly #plan: SealPlan;
  readonly #declared: string;
  #reading: Reading | undefined;
  /**
   * The bytes not released yet, from the body's byte `#at` on, in the parts they came in: joined only
   * when some go out, so that a long string held in small parts is not copied whole at every part.
   */
  #pending: Uint8Array[] = [];
  #held = 0;
  #at = 0;

  constructor(plan: SealPlan, declared: string) {
    this.#plan = plan;
    this.#declared = declared;
  }

  /** Reads a part of the body; true when some of it went out. */
  push(chunk: Uint8Array, out: Out): boolean {
    this.#pending.push(chunk);
    this.#held += chunk.length;
    let reading = this.#reading;
    let fresh = chunk;
    if (reading === undefined) {
      if (mayOpenByteOrderMark(this.#joined())) return false;
      reading = this.#choose();
      fresh = this.#joined();
    }
    if (!('check' in reading)) return this.#emit(reading.scanner.push(reading.decoder.decode(fresh)), out);
    if (this.#held > MAX_HELD) throw refused(`is longer than ${MAX_HELD} bytes in ${reading.check}`);
    return false;
  }

  /** The end of the body: the rest goes out, or the body is refused. */
  end(out: Out): void {
    let reading = this.#reading;
    if (reading === undefined) {
      reading = this.#choose();
      if (!('check' in reading)) this.#emit(reading.scanner.push(reading.decoder.decode(this.#joined())), out);
    }
    if (!('check' in reading)) {
      this.#emit(reading.scanner.end(), out);
      return;
    }
    // XHR's responseText reads the body in its charset, fetch's text() and json() in UTF-8 whatever it
    // declares: a known value in either reading cannot be rewritten in place for both.
    const body = this.#joined();
    for (const charset of [reading.check, 'utf-8']) if (sealText(new TextDecoder(charset).decode(body), this.#plan) !== null) throw refused(`holds a token read in ${charset}, which the worker cannot rewrite`);
    if (body.length > 0) out.enqueue(body);
  }

  /** The bytes not released yet, as one part. */
  #joined(): Uint8Array {
    if (this.#pending.length !== 1) this.#pending = [this.#pending.length === 0 ? new Uint8Array(0) : concatenated(this.#pending)];
    return this.#pending[0]!;
  }

  /** Chooses the reading by the first bytes (a byte order mark) and the declared charset. */
  #choose(): Reading {
    const charset = byteOrderMark(this.#joined()) ?? this.#declared;
    // A single-byte charset spells ASCII as UTF-8 does, and no other character as ASCII: where every
    // known value is ASCII, the page's UTF-8 reading (fetch's text()) holds the values this one does,
    // and the rewrite in place seals both. Else that reading may hold one this one does not: checked whole.
    const rewritable = charset === 'utf-8' || (SINGLE_BYTE.test(charset) && this.#plan.values.every(([real]) => !/[^\0-\x7f]/.test(real)));
    const decoder = rewritable ? (decoders.get(charset) ?? new TextDecoder(charset)) : undefined;
    if (decoder === undefined) return (this.#reading = { check: charset });
    decoders.set(charset, decoder);
    return (this.#reading = { scanner: new SealScanner(this.#plan, charset === 'utf-8' ? UTF8_UNITS : TEXT_UNITS), decoder });
  }

  /** Puts out the bytes a step released, its replacements in place; true when there were any. */
  #emit({ edits, to }: Step, out: Out): boolean {
    const at = this.#at;
    if (to === at) return false;
    const pending = this.#joined();
    const released = edits.length === 0 ? pending.subarray(0, to - at) : replaced(pending, at, edits, to);
    this.#pending = [pending.subarray(to - at)];
    this.#held -= to - at;
    this.#at = to;
    if (released.length > 0) out.enqueue(released);
    return released.length > 0;
  }

}

/** The charset a `Content-Type` declares as browsers read it (mimeCharset.ts), as `TextDecoder` names it; UTF-8 when none, or one no decoder knows. */
export function charsetOf(contentType: string | null): string {
  // A server sends one or two types on every answer: each is read once.
  const type = contentType ?? '';
  let charset = charsets.get(type);
  if (charset === undefined) {
    // Making a decoder is the one way to resolve a label, and a costly one.
    try {
      charset = new TextDecoder(mimeCharset(type) ?? 'utf-8').encoding;
    } catch {
      charset = 'utf-8';
    }
    if (charsets.size > 64) charsets.clear();
    charsets.set(type, charset);
  }
  return charset;
}

/** `Content-Type`s read, as the charsets they declare. */
const charsets = new Map<string, string>();

/** The single-byte charset (Latin-1, windows-125x, KOI8…) a `Content-Type` declares; null for UTF-8 or any other. */
export function singleByteCharset(contentType: string | null): string | null {
  const charset = charsetOf(contentType);
  return charset !== 'utf-8' && SINGLE_BYTE.test(charset) ? charset : null;
}

/** The byte order mark `bytes` open with, as the charset it names; null for none. */
export function byteOrderMark(bytes: Uint8Array): string | null {
  const [first, second, third] = bytes;
  return first === 0xef && second === 0xbb && third === 0xbf ? 'utf-8' : first === 0xfe && second === 0xff ? 'utf-16be' : first === 0xff && second === 0xfe ? 'utf-16le' : null;
}

/**
 * True while `bytes`, the body's first, may still open a byte order mark: the reading waits for more.
 * No longer: an event stream's first line (`:\n`) would wait for the next write.
 */
export function mayOpenByteOrderMark(bytes: Uint8Array): boolean {
  const [first, second] = bytes;
  return first === undefined || (bytes.length < 3 && (first === 0xef ? second === undefined || second === 0xbb : second === undefined && (first === 0xfe || first === 0xff)));
}

/**
 * `bytes` (the body's from byte `at` on) up to byte `to`, with `edits` made. Where no placeholder is
 * longer than what it replaces (a token is longer than `sealed:cart`), in place: the bytes are the
 * stream's own, and those before `at` that went out already are not touched.
 */
function replaced(bytes: Uint8Array, at: number, edits: readonly Edit[], to: number): Uint8Array {
  if (edits.some((edit) => ascii(edit.text).length > edit.to - edit.from)) {
    const parts: Uint8Array[] = [];
    let copied = at;
    for (const edit of edits) {
      parts.push(bytes.subarray(copied - at, edit.from - at), ascii(edit.text));
      copied = edit.to;
    }
    parts.push(bytes.subarray(copied - at, to - at));
    return concatenated(parts);
  }
  let written = 0;
  let copied = at;
  for (const edit of edits) {
    bytes.copyWithin(written, copied - at, edit.from - at);
    written += edit.from - copied;
    const placeholder = ascii(edit.text);
    bytes.set(placeholder, written);
    written += placeholder.length;
    copied = edit.to;
  }
  bytes.copyWithin(written, copied - at, to - at);
  return bytes.subarray(0, written + to - copied);
}

/** A placeholder's bytes: ASCII, the same in every charset the stream rewrites. */
function ascii(text: string): Uint8Array {
  let bytes = placeholders.get(text);
  if (bytes === undefined) placeholders.set(text, (bytes = new TextEncoder().encode(text)));
  return bytes;
}

/** Placeholders' bytes, encoded once: there are a handful. */
const placeholders = new Map<string, Uint8Array>();

/** The bytes of `parts`, one after another. */
export function concatenated(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** The error a refused body fails with: the page's read of it rejects. */
function refused(why: string): TypeError {
  return new TypeError(DEBUG_BUILD ? `storefront-auth: a response body ${why}; it is refused so that no token reaches the page.` : 'storefront-auth: body refused');
}
