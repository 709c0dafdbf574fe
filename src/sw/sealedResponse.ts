/**
 * The answer a page gets from a response the worker seals: the network's status and headers (a
 * header that holds a real token dropped), its body sealed as it arrives (sealStream.ts). What the
 * worker must read whole first (a token response, a cart it keeps) is read here, bounded, and the
 * body goes on from there; so is the first part of a body of known length, which is often all of it,
 * and a body in a single-byte charset, which goes to the page in UTF-8 when something was replaced.
 */
import { MAX_HELD, sealText } from './sealScanner.js';
import type { SealPlan } from './sealSpellings.js';
import { byteOrderMark, charsetOf, concatenated, filledStream, sealedBody, sealedWholeParts, singleByteCharset } from './sealStream.js';

/** Statuses whose responses have no body (Fetch, "null body status"; a fetch never answers 101 or 103). */
const NULL_BODY = new Set([204, 205, 304]);

/** An answer's headers as the worker reads them, once: every entry, and the two it decides on. */
export interface AnswerHeaders {
  readonly entries: readonly [name: string, value: string][];
  readonly type: string | null;
  /** The body's length as the worker reads it: its `Content-Length`, unless a `Content-Encoding` makes that the length of what the network carried; -1 when not known. */
  readonly length: number;
}

/** `response`'s headers, read once (each read of a `Headers` crosses into the browser). */
export function answerHeaders(response: Response): AnswerHeaders {
  const entries = [...response.headers];
  let type: string | null = null;
  let length: string | null = null;
  let encoded = false;
  // Lower-case names, a repeated header's values joined, as `Headers.get` gives them.
  for (const [name, value] of entries) {
    if (name === 'content-type') type = value;
    else if (name === 'content-length') length = value;
    else if (name === 'content-encoding') encoded = true;
  }
  return { entries, type, length: length === null || encoded || !/^\d+$/.test(length) ? -1 : Number(length) };
}

/** The start of a body read ahead of the page. */
export interface BodyHead {
  readonly chunks: readonly Uint8Array[];
  /** How many bytes the chunks hold. */
  readonly size: number;
  /** The chunks are the whole body. */
  readonly whole: boolean;
  /** The body from there on. */
  readonly reader: ReadableStreamDefaultReader<Uint8Array>;
}

/**
 * Reads `response`'s body ahead of the page: with a `limit`, until it ends or holds more than
 * `limit` bytes (what the worker keeps from an answer, a cart or a pair, is read whole, and no
 * answer is held beyond the limit); without one, its first chunk, where its length is known (most
 * often the whole body). Null when there is nothing to read ahead.
 */
export function readAhead(response: Response, limit: number | null, headers = answerHeaders(response)): Promise<BodyHead | null> {
  const length = limit === null ? headers.length : limit;
  if (response.body === null || length < 0) return NOTHING_AHEAD;
  const reader = response.body.getReader();
  // The usual case, a first chunk, without the loop's await: it runs on every sealed answer.
  // A cross-origin answer shows its `Content-Length` but hides its `Content-Encoding`: that length may
  // be the compressed one, so a first chunk of that length is whole only when the body ends there.
  // A body a UTF-16 byte order mark names (whatever its type declares) cannot be rewritten: read on
  // whole, as a declared one is (readAheadLimit), so that one holding a known value fails the fetch.
  if (limit === null) return reader.read().then(({ done, value }) => (done ? { chunks: [], size: 0, whole: true, reader } : value.length === length ? (response.type === 'cors' ? readUpTo(reader, 0, [value]) : { chunks: [value], size: value.length, whole: true, reader }) : opensUtf16(value) ? readUpTo(reader, MAX_HELD, [value]) : { chunks: [value], size: value.length, whole: false, reader }));
  return readUpTo(reader, limit);
}

/** True when `bytes`, a body's first, open a UTF-16 byte order mark, or may still (one byte of one). */
function opensUtf16(bytes: Uint8Array): boolean {
  const first = bytes[0];
  return (first === 0xfe || first === 0xff) && (bytes.length === 1 || byteOrderMark(bytes)?.startsWith('utf-16') === true);
}

/** No body to read ahead. */
const NOTHING_AHEAD: Promise<null> = Promise.resolve(null);

/** `readAhead` with a limit: until the body ends or holds more than `limit` bytes. */
async function readUpTo(reader: ReadableStreamDefaultReader<Uint8Array>, limit: number, chunks: Uint8Array[] = []): Promise<BodyHead> {
  let size = chunks.length === 0 ? 0 : chunks[0]!.length;
  do {
    const { done, value } = await reader.read();
    if (done) return { chunks, size, whole: true, reader };
    chunks.push(value);
    size += value.length;
  } while (size <= limit);
  return { chunks, size, whole: false, reader };
}

/**
 * How much of a response whose `Content-Type` is `contentType` to read ahead of the page
 * (`readAhead`'s limit): what the worker keeps, up to `keeps`; a body in a single-byte charset (not an
 * event stream), whole (up to `MAX_HELD`), since one in which something is replaced goes to the page
 * in UTF-8, which its headers must say before any of it goes out; one in a charset that cannot be
 * rewritten, whole too; else (UTF-8) only the first chunk of a body of known length (null).
 */
export function readAheadLimit(contentType: string | null, keeps: number | null): number | null {
  if (keeps !== null) return keeps;
  if (charsetOf(contentType) === 'utf-8') return null;
  // An event stream is never held for its charset: EventSource reads it in UTF-8 whatever it declares,
  // and a placeholder's bytes are the same in both, so it is rewritten in place as it streams.
  if (singleByteCharset(contentType) !== null) return /^\s*text\/event-stream\s*(?:;|$)/i.test(contentType ?? '') ? null : MAX_HELD;
  // Any other charset (UTF-16…) cannot be rewritten, and the stream holds such a body whole anyway:
  // read whole here, one that holds a known value is refused before the page gets its headers, and
  // the page's fetch rejects.
  return MAX_HELD;
}

/** `response` sealed by `plan` for the page: its body (or what is left of it after `head`) read in the charset its `Content-Type` declares. */
export function sealedResponse(response: Response, plan: SealPlan, head: BodyHead | null, headers = answerHeaders(response)): Response {
  const { type } = headers;
  const recoded = head?.whole === true && type !== null ? reencoded(head.chunks, plan, type) : null;
  if (recoded !== null) {
    const answer = rebuilt(response, filledStream([recoded.bytes]), plan, headers.entries, recoded.bytes.length);
    // Only where it was kept: a Content-Type that holds a token was dropped, and stays dropped.
    if (answer.headers.has('Content-Type')) answer.headers.set('Content-Type', recoded.type);
    return answer;
  }
  // Most answers come whole in the first read: sealed before the page gets them, their length known.
  if (head?.whole === true) {
    const parts = sealedWholeParts(head.reader, head.chunks, plan, type);
    let length = 0;
    for (const part of parts) length += part.length;
    return rebuilt(response, filledStream(parts), plan, headers.entries, length);
  }
  const body = head !== null ? sealedBody(head.reader, head.chunks, plan, type) : response.body === null ? null : sealedBody(response.body.getReader(), [], plan, type);
  return rebuilt(response, body, plan, headers.entries);
}

/**
 * A whole body in the single-byte charset `type` declares, sealed and re-encoded in UTF-8 when it
 * held a known value, with the `Content-Type` that says so; null when it did not (it goes to the page as sent), for any other charset, or
 * when a byte order mark overrides the declared one (the stream reads it as the mark says).
 */
function reencoded(chunks: readonly Uint8Array[], plan: SealPlan, type: string): { bytes: Uint8Array; type: string } | null {
  const charset = singleByteCharset(type);
  // A value that is not ASCII is spelled apart by this reading and fetch's UTF-8 one: the stream
  // checks both and refuses the body when either holds a value (sealStream.ts).
  if (charset === null || plan.values.some(([real]) => /[^\0-\x7f]/.test(real))) return null;
  const bytes = concatenated(chunks);
  if (byteOrderMark(bytes) !== null) return null;
  const sealed = sealText(new TextDecoder(charset).decode(bytes), plan);
  if (sealed === null) return null;
  return { bytes: new TextEncoder().encode(sealed), type: type.replace(/;\s*charset\s*=\s*(?:"[^"]*"|[^;\s]*)/i, '; charset=utf-8') };
}

/**
 * A response like `response` (status and headers kept, its URL not, nor a header holding one of
 * `plan`'s values) whose body is `body`: sealed, or the response's own stream passed on unread.
 * `length`: the body's length in bytes where the worker has it all before the page gets the headers
 * (its `Content-Length`, as the page would have read it from the network), else -1.
 */
export function rebuilt(response: Response, body: ReadableStream<Uint8Array> | null, plan: SealPlan | null, entries: AnswerHeaders['entries'] = [...response.headers], length = -1): Response {
  // The answer is made with the headers it keeps, from the entries read once.
  const secrets = plan === null ? [] : secretHeaders(entries, plan);
  // The body may change length, and is no longer encoded: the browser describes it anew, and the
  // length is given where the worker knows it. Without a body (a HEAD, a 204, a 304) there is none
  // to change, and the length is what the page asked for; nor with an empty one read whole (a HEAD's).
  const bodiless = body === null || length === 0 || NULL_BODY.has(response.status);
  const kept = entries.filter(([name]) => (bodiless || (name !== 'content-length' && name !== 'content-encoding')) && !secrets.includes(name));
  if (!bodiless && length >= 0) kept.push(['content-length', String(length)]);
  // The reason phrase is read by the page too (`statusText`): a value in it is sealed as in a body.
  // Chromium hands on control characters a Response may not hold: without them, not a network error
  // for an answer the server gave (a write it applied, which the page would send again).
  const statusText = response.statusText.replace(/[^\t -~\x80-\xff]/g, '');
  return new Response(bodiless ? null : body, { status: response.status, statusText: (plan && statusText && sealText(statusText, plan)) || statusText, headers: kept });
}

/**
 * The names of the headers whose value holds one of `plan`'s values, in any spelling (as it stands,
 * URL-encoded, JSON-escaped): a header that echoes a token (a Location, a custom debug header) is
 * dropped whole. All of them are looked at at once first, since almost always none does: joined by
 * line feeds, which no header value holds and which end any string the scanner reads, so that a
 * stray quote in one value cannot turn the next inside out.
 */
export function secretHeaders(entries: readonly (readonly [name: string, value: string])[], plan: SealPlan): string[] {
  if (plan.values.length === 0) return [];
  let secrets = headerPlans.get(plan);
  if (secrets === undefined) headerPlans.set(plan, (secrets = { values: plan.values.map(([real]) => [real, '']), fields: {} }));
  if (sealText(entries.map(([, value]) => value).join('\n'), secrets) === null) return [];
  return entries.filter(([, value]) => sealText(value, secrets) !== null).map(([name]) => name);
}

/** For each plan, the plan that finds its values in a header: any spelling of them, a field or not. */
const headerPlans = new WeakMap<SealPlan, SealPlan>();
