/**
 * Registers the worker and waits until it controls this page (docs/behaviour.md, "The page API").
 * The standalone worker claims pages when it activates; a page that started uncontrolled anyway (a
 * shift-reload) asks the active worker to claim it.
 *
 * Nothing here waits forever: `register`, `container.ready` and the wait for control share one
 * deadline, and a registration that can never produce a controller rejects at once. The deadline's
 * timer is cleared on every way out, so a page that got control holds no timer.
 */
import { StorefrontAuthError } from '../shared/errors.js';

/**
 * The one bound on the whole wait, from the call: `no_service_worker` within 10 s
 * (docs/behaviour.md, "The page API"). `register` can hang on a slow script fetch, and
 * `container.ready` never settles when nothing registers a worker (`registerWorker: false` in an
 * app that forgot its own), so neither is awaited bare.
 */
const DEADLINE_MS = 10_000;

/** Registers `scriptUrl` (unless `null`: the app registers its own worker) and waits for control. */
export function waitForControl(
  scriptUrl: string | null,
  scope: string,
  askToClaim: (worker: ServiceWorker) => void,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const container = globalThis.navigator?.serviceWorker;
    const fail = (message: string, options?: { cause: unknown }): void => {
      clearTimeout(timer);
      reject(new StorefrontAuthError('no_service_worker', message, options));
    };
    // What the deadline's message blames; each step below moves it on.
    let waitingFor = scriptUrl ?? "the app's own worker (registerWorker: false)";
    const timer = setTimeout(
      () => fail(`No service worker controlled this page within 10 s; still waiting for ${waitingFor}. Reload the page to retry.`),
      DEADLINE_MS,
    );
    if (container === undefined || !globalThis.isSecureContext) {
      return fail('Service workers are unavailable here (insecure origin, private mode or old browser).');
    }
    const controlled = (): void => {
      clearTimeout(timer);
      resolve();
    };
    // Follows the registration until it has an active worker, or no worker left that could become one.
    const follow = (registration: ServiceWorkerRegistration | undefined): void => {
      if (container.controller !== null) return controlled();
      // A blocked `register` may resolve with nothing: Playwright's `serviceWorkers: 'block'` does.
      if (registration === undefined) return fail(`Registering ${scriptUrl} yielded no worker; are service workers blocked in this browser?`);
      const pending = registration.installing ?? registration.waiting;
      if (registration.active !== null) {
        waitingFor = `control (is the page in scope ${scope}?)`;
        askToClaim(registration.active);
      } else if (pending === null || pending.state === 'redundant') {
        // A worker whose install event's `waitUntil` promise rejects becomes redundant (Service Workers
        // spec, Install); `installing` may still name it when its `statechange` fires. (A script that
        // throws while first evaluated never gets this far: `register` rejects.)
        fail(`${scriptUrl ?? 'The app\'s worker'} failed to install; see its errors in the browser console.`);
      } else {
        waitingFor = `${pending.scriptURL} to activate`;
        pending.addEventListener('statechange', () => follow(registration), { once: true });
      }
    };
    container.addEventListener('controllerchange', controlled, { once: true });
    if (scriptUrl === null) void container.ready.then(follow);
    else container.register(scriptUrl, { scope }).then(follow, (cause: unknown) =>
      fail(`Registering ${scriptUrl} for scope ${scope} failed (${cause}); is it served there as JavaScript?`, { cause }));
  });
}
