/**
 * Sends one request to a service worker over a `MessageChannel` and waits for its reply, as
 * Workbox window's `messageSW` does, with a time limit so a stopped or foreign worker cannot hang
 * the page.
 */
import { deserializeError, StorefrontAuthError } from '../shared/errors.js';
import { isWorkerReply, type WorkerReply, type WorkerRequest } from '../shared/protocol.js';

/** How long the worker has to answer (docs/behaviour.md, "When things go wrong"). */
export const REPLY_TIMEOUT_MS = 10_000;

/** The successful part of a reply. */
export type ReplyPayload = Extract<WorkerReply, { ok: true }>;

/** Posts `request` to `worker`; resolves with its successful reply or rejects with its error. */
export function messageWorker(worker: ServiceWorker, request: WorkerRequest): Promise<ReplyPayload> {
  return new Promise((resolve, reject) => {
    const { port1, port2 } = new MessageChannel();
    const timer = setTimeout(() => {
      port1.close();
      // A worker that serves another base URL ignores the message (protocol.ts): the bridge's `baseUrl` is then the setting to fix.
      reject(new StorefrontAuthError('timeout', `The storefront-auth worker did not answer "${request.type}" within 10 s; check that it loads and serves baseUrl ${request.baseUrl}.`));
    }, REPLY_TIMEOUT_MS);
    port1.onmessage = (event: MessageEvent<unknown>) => {
      clearTimeout(timer);
      port1.close();
      const reply = event.data;
      if (!isWorkerReply(reply)) {
        reject(new StorefrontAuthError('bad_response', "The worker's reply is not storefront-auth's; load the bridge and the worker from one release."));
      } else if (reply.ok) {
        resolve(reply);
      } else {
        reject(deserializeError(reply.error));
      }
    };
    worker.postMessage(request, [port2]);
  });
}
