/**
 * Answers the bridge's requests (src/shared/protocol.ts) on the port each one brings. Every message
 * of ours gets exactly one reply, an error included; a malformed one never throws in the worker.
 */
import { DEBUG_BUILD } from '../shared/debugBuild.js';
import { isStorefrontAuthError, serializeError, type SerializedError } from '../shared/errors.js';
import { MESSAGE_TAG, parseWorkerRequest, PROTOCOL_VERSION, type ParsedRequest, type WorkerReply, type WorkerRequest } from '../shared/protocol.js';
import { startActionBudget } from './actionBudget.js';
import type { AuthWorker } from './authWorker.js';
import type { ActionResult } from './bridgeActions.js';
import type { KeepAlive } from './requestPath.js';

/** What the listener may do beyond the worker's actions. */
export interface ListenerOptions {
  /** Takes control of uncontrolled pages when a bridge asks; only the standalone worker does. */
  claim?: () => Promise<void>;
}

/** Adds the message listener for `worker` to the service worker global scope. */
export function listenForMessages(scope: ServiceWorkerGlobalScope, worker: AuthWorker, options: ListenerOptions = {}): void {
  scope.addEventListener('message', (event) => {
    const parsed = parse(event.data, worker.options.baseUrl);
    if (parsed.kind === 'ignore') return;
    // The action's time runs from here (actionBudget.ts), inside the bridge's 10 s.
    const budget = startActionBudget();
    const port = event.ports[0];
    // The work that follows the reply (an association, a revocation) keeps the worker alive too. It
    // is handed over before the reply settles, while the event still waits (ExtendableEvent.waitUntil).
    const keepAlive: KeepAlive = (work) => event.waitUntil(work.catch(() => {}));
    const reply: Promise<WorkerReply> =
      parsed.kind === 'invalid' ? Promise.resolve(refusal(parsed.error)) : act(worker, parsed.request, options, keepAlive, budget).then(success, failure);
    event.waitUntil(reply.then((message) => port?.postMessage(message)));
  });
}

/** `parseWorkerRequest`, which never throws; this guard keeps it so for any value a page can post. */
function parse(data: unknown, baseUrl: string): ParsedRequest {
  try {
    return parseWorkerRequest(data, baseUrl);
  } catch {
    return { kind: 'invalid', error: { code: 'invalid_request', message: DEBUG_BUILD ? 'The message could not be read as a storefront-auth request.' : 'unreadable' } };
  }
}

async function act(worker: AuthWorker, request: WorkerRequest, options: ListenerOptions, keepAlive: KeepAlive, budget: AbortSignal): Promise<ActionResult> {
  const { actions } = worker;
  // Any message of ours may be the network's return; the page saw it for `online`.
  worker.nudge(keepAlive, request.type === 'online');
  switch (request.type) {
    case 'getState':
      return actions.getState();
    case 'login':
      return actions.login(request.username, request.password, keepAlive, budget);
    case 'logout':
      return actions.logout(keepAlive);
    case 'createCart':
      return actions.createCart(budget, keepAlive);
    case 'claim':
      await options.claim?.();
      return actions.getState();
    case 'online':
      return actions.getState();
  }
}

function success(result: ActionResult): WorkerReply {
  // An ActionResult is exactly the reply's payload: state, changeId and the optional warning.
  return { tag: MESSAGE_TAG, v: PROTOCOL_VERSION, ok: true, ...result };
}

function failure(error: unknown): WorkerReply {
  return refusal(
    isStorefrontAuthError(error) ? serializeError(error) : { code: 'bad_response', message: DEBUG_BUILD ? `storefront-auth: the worker failed unexpectedly (${String(error)}).` : String(error) },
  );
}

function refusal(error: SerializedError): WorkerReply {
  return { tag: MESSAGE_TAG, v: PROTOCOL_VERSION, ok: false, error };
}
