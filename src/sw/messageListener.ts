/**
 * Answers the bridge's requests (src/shared/protocol.ts) on the port each one brings. Every message
 * of ours gets exactly one reply, an error included; a malformed one never throws in the worker.
 */
import { isStorefrontAuthError, serializeError, type SerializedError } from '../shared/errors.js';
import { MESSAGE_TAG, parseWorkerRequest, PROTOCOL_VERSION, type WorkerReply, type WorkerRequest } from '../shared/protocol.js';
import type { ActionResult, AuthWorker } from './authWorker.js';

/** What the listener may do beyond the worker's actions. */
export interface ListenerOptions {
  /** Takes control of uncontrolled pages when a bridge asks; only the standalone worker does. */
  claim?: () => Promise<void>;
}

/** Adds the message listener for `worker` to the service worker global scope. */
export function listenForMessages(scope: ServiceWorkerGlobalScope, worker: AuthWorker, options: ListenerOptions = {}): void {
  scope.addEventListener('message', (event) => {
    const parsed = parseWorkerRequest(event.data, worker.options.baseUrl);
    if (parsed.kind === 'ignore') return;
    const port = event.ports[0];
    const extra: Promise<unknown>[] = [];
    const reply: Promise<WorkerReply> =
      parsed.kind === 'invalid'
        ? Promise.resolve(refusal(parsed.error))
        : act(worker, parsed.request, options, extra).then(success, failure);
    // Keep the worker alive until the reply is sent and any best-effort work (revocation) is done.
    event.waitUntil(reply.then((message) => port?.postMessage(message)).then(() => Promise.all(extra)));
  });
}

async function act(worker: AuthWorker, request: WorkerRequest, options: ListenerOptions, extra: Promise<unknown>[]): Promise<ActionResult> {
  switch (request.type) {
    case 'getState':
      return worker.getState();
    case 'login':
      return worker.login(request.username, request.password);
    case 'logout': {
      const { revoked, ...result } = await worker.logout();
      extra.push(revoked);
      return result;
    }
    case 'createCart':
      return worker.createCart();
    case 'claim':
      await options.claim?.();
      return worker.getState();
  }
}

function success(result: ActionResult): WorkerReply {
  // An ActionResult is exactly the reply's payload: state, changeId and the optional warning.
  return { tag: MESSAGE_TAG, v: PROTOCOL_VERSION, ok: true, ...result };
}

function failure(error: unknown): WorkerReply {
  return refusal(
    isStorefrontAuthError(error) ? serializeError(error) : { code: 'bad_response', message: `storefront-auth: the worker failed unexpectedly (${String(error)}).` },
  );
}

function refusal(error: SerializedError): WorkerReply {
  return { tag: MESSAGE_TAG, v: PROTOCOL_VERSION, ok: false, error };
}
