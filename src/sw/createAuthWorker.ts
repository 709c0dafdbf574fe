/**
 * Creates the worker for the options it is given and adds the bridge's message listener; the fetch
 * routing is the caller's (Workbox routes in an app's worker, a plain fetch listener standalone).
 * Call it during the worker script's first evaluation: browsers only deliver fetch and message
 * events to listeners added then.
 */
import { AuthWorker } from './authWorker.js';
import { indexedDbStorage } from './credentialStorage.js';
import { listenForMessages, type ListenerOptions } from './messageListener.js';
import { resolveOptions, type StorefrontAuthOptions } from './options.js';

/** The methods a storefront API is called with; requests with any other are left alone. */
export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** Validates `options` (throwing `invalid_request`), then wires storage, the worker and its message listener. */
export function createAuthWorker(options: StorefrontAuthOptions, listener: ListenerOptions): AuthWorker {
  const scope = self as unknown as ServiceWorkerGlobalScope;
  const resolved = resolveOptions(options, scope.location.href);
  // `worker` is only called back once the database is open, after the declaration below has run.
  const storage = indexedDbStorage(resolved.baseUrl, () => worker.forgetMemoryCopy());
  const worker = new AuthWorker(resolved, {
    // Called unbound: the worker's fetch throws "Illegal invocation" as a method of another object.
    fetch: (input, init) => scope.fetch(input, init),
    now: () => Date.now(),
    storage,
    log: resolved.debug ? (message) => console.debug(`[storefront-auth] ${message}`) : undefined,
  });
  listenForMessages(scope, worker, listener);
  return worker;
}
