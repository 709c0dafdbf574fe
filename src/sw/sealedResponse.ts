/**
 * The answer a page gets from a response the worker seals: the network's status and headers (a
 * header that holds a real token dropped), its body sealed as it arrives (sealStream.ts). What the
 * worker must read whole first (a token response, a cart it keeps) is read here, bounded, and the
 * body goes on from there; so is the first part of a body of known length, which is often all of it.
 */
import { sealText } from './sealScanner.js';
import type { SealPlan } from './sealSpellings.js';
import { sealedBody } from './sealStream.js';

/** Statuses whose responses have no body (Fetch, "null body status"). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

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
export async function readAhead(response: Response, limit: number | null): Promise<BodyHead | null> {
  const length = limit === null ? bodyLength(response) : limit;
  if (response.body === null || length < 0) return null;
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  do {
    const { done, value } = await reader.read();
    if (done) return { chunks, size, whole: true, reader };
    chunks.push(value);
    size += value.length;
  } while (size <= length && limit !== null);
  return { chunks, size, whole: limit === null && size === length, reader };
}

/**
 * The length a response's body will have as the worker reads it: its `Content-Length`, unless a
 * `Content-Encoding` makes that the length of what the network carried; -1 when not known.
 */
function bodyLength(response: Response): number {
  const length = response.headers.get('Content-Length');
  return length === null || response.headers.has('Content-Encoding') || !/^\d+$/.test(length) ? -1 : Number(length);
}

/** `response` sealed by `plan` for the page: its body (or what is left of it after `head`) read in the charset its `Content-Type` declares. */
export function sealedResponse(response: Response, plan: SealPlan, head: BodyHead | null): Response {
  const type = response.headers.get('Content-Type');
  const body = head !== null ? sealedBody(head.reader, head.chunks, head.whole, plan, type) : response.body === null ? null : sealedBody(response.body.getReader(), [], false, plan, type);
  return rebuilt(response, body, plan);
}

/**
 * A response like `response` (status and headers kept, its URL not, nor a header holding one of
 * `plan`'s values) whose body is `body`: sealed, or the response's own stream passed on unread.
 */
export function rebuilt(response: Response, body: ReadableStream<Uint8Array> | null, plan: SealPlan | null): Response {
  const answer = new Response(NULL_BODY.has(response.status) ? null : body, { status: response.status, statusText: response.statusText, headers: response.headers });
  const { headers } = answer;
  // The body may change length, and is no longer encoded: the browser describes it anew.
  headers.delete('Content-Length');
  headers.delete('Content-Encoding');
  if (plan !== null) for (const name of secretHeaders([...headers], plan)) headers.delete(name);
  return answer;
}

/**
 * The names of the headers whose value holds one of `plan`'s values, in any spelling (as it stands,
 * URL-encoded, JSON-escaped): a header that echoes a token (a Location, a custom debug header) is
 * dropped whole. All of them are looked at at once first, since almost always none does.
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
