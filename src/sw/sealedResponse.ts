/**
 * The answer a page gets from a response the worker seals: the network's status and headers (a
 * header that holds a real token dropped), its body flowing through the seal stream (sealStream.ts)
 * as it arrives. What the worker must read whole first (a token response, a cart it keeps) is read
 * here, bounded, and the body goes on from there.
 */
import { headerHoldsSecret, type SealPlan } from './sealScanner.js';
import { sealStream } from './sealStream.js';

/** Statuses whose responses have no body (Fetch, "null body status"). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** The start of a body read ahead of the page: its bytes, and whether they are the whole body. */
export interface BodyHead {
  readonly bytes: Uint8Array;
  readonly whole: boolean;
  /** The body from there on: the head's chunks, then what the network sends next. */
  readonly body: ReadableStream<Uint8Array>;
}

/**
 * Reads `body` up to `limit` bytes (past it, the rest is left for the page): what the worker keeps
 * from an answer (a cart, a pair) is read whole, and no answer is held beyond the limit.
 */
export async function readHead(body: ReadableStream<Uint8Array>, limit: number): Promise<BodyHead> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let whole = false;
  while (size <= limit) {
    const { done, value } = await reader.read();
    if (done) {
      whole = true;
      break;
    }
    chunks.push(value);
    size += value.length;
  }
  const bytes = new Uint8Array(size);
  chunks.reduce((at, chunk) => (bytes.set(chunk, at), at + chunk.length), 0);
  let next = 0;
  const rest = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const chunk = chunks[next++];
      if (chunk !== undefined) return controller.enqueue(chunk);
      const read = whole ? { done: true as const, value: undefined } : await reader.read();
      if (read.done) controller.close();
      else controller.enqueue(read.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return { bytes, whole, body: rest };
}

/**
 * `response` sealed by `plan` for the page: its body (or `body`, the same body partly read) through
 * the seal stream, read in the charset its `Content-Type` declares.
 */
export function sealedResponse(response: Response, plan: SealPlan, body: ReadableStream<Uint8Array> | null = response.body): Response {
  const sealed = body === null ? null : body.pipeThrough(sealStream(plan, response.headers.get('Content-Type')));
  return rebuilt(response, sealed, plan.values.map(([real]) => real));
}

/**
 * A response like `response` (status and headers kept, its URL not, nor a header holding one of
 * `reals`) whose body is `body`: sealed, or the response's own stream passed on unread.
 */
export function rebuilt(response: Response, body: ReadableStream<Uint8Array> | null, reals: readonly string[]): Response {
  const answer = new Response(NULL_BODY.has(response.status) ? null : body, { status: response.status, statusText: response.statusText, headers: response.headers });
  const { headers } = answer;
  // The body may change length, and is no longer encoded: the browser describes it anew.
  headers.delete('Content-Length');
  headers.delete('Content-Encoding');
  if (reals.length === 0) return answer;
  // A header that echoes a token (a Location, a custom debug header) is dropped whole; all of them
  // are looked at once first, since almost always none does.
  const entries = [...headers];
  if (!headerHoldsSecret(entries.map(([, value]) => value).join('\n'), reals)) return answer;
  for (const [name, value] of entries) if (headerHoldsSecret(value, reals)) headers.delete(name);
  return answer;
}
