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

/** How long the app's activated worker has to claim the page once asked: a message and a claim, in the same event loop turn or two. */
const CLAIM_GRACE_MS = 2_000;

/**
 * `navigator.serviceWorker`, or `undefined` where there is none or where reading it throws: a
 * `SecurityError` in a sandboxed frame, or in a browser set to clear site data (Firefox).
 */
export function serviceWorkers(): ServiceWorkerContainer | undefined {
  try {
    return globalThis.navigator?.serviceWorker;
  } catch {
    return undefined;
  }
}

/**
 * Registers `scriptUrl` (unless `null`: the app registers its own worker) and waits until it controls
 * the page: another worker controlling it (the site's previous one, or storefront-auth's for another
 * base URL) would never answer this bridge. With `null`, any controller is the app's.
 */
export function waitForControl(
  scriptUrl: string | null,
  scope: string,
  askToClaim: (worker: ServiceWorker) => void,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const container = serviceWorkers();
    const ours = (worker: ServiceWorker | null | undefined): boolean => !!worker && (scriptUrl === null || worker.scriptURL === scriptUrl);
    const changed = (): boolean => ours(container?.controller) && (controlled(), true);
    const fail = (message: string, options?: { cause: unknown }): void => {
      clearTimeout(timer);
      // Failed, the wait listens no more: a page that never gets control keeps no listener of it.
      container?.removeEventListener('controllerchange', changed);
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
    // Settling twice does nothing: a later change of controller finds the promise settled.
    // Controlled, the wait leaves nothing behind: no timer, no listener on the container.
    const controlled = (): void => {
      clearTimeout(timer);
      container?.removeEventListener('controllerchange', changed);
      resolve();
    };
    // Follows the registration until it has an active worker, or no worker left that could become one.
    const follow = (registration: ServiceWorkerRegistration | undefined): void => {
      if (ours(container.controller)) return controlled();
      // A blocked `register` may resolve with nothing: Playwright's `serviceWorkers: 'block'` does.
      if (registration === undefined) return fail(`Registering ${scriptUrl} yielded no worker; are service workers blocked in this browser?`);
      const pending = registration.installing ?? registration.waiting;
      // The active worker is another script while ours installs: ours claims the page once it activates.
      const { active } = registration;
      if (active !== null && (ours(active) || pending === null)) {
        waitingFor = `control (is the page in scope ${scope}?)`;
        askToClaim(active);
        if (scriptUrl === null) unclaimed(active, registration);
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
    // The app's worker, activated, claims the page only if it was built to (`claimPages`): once its
    // activation has run, nothing else gives it control before a reload, so the wait ends early and
    // says why, rather than blaming the scope after 10 s.
    const unclaimed = (active: ServiceWorker, registration: ServiceWorkerRegistration): void => {
      if (active.state !== 'activated') return active.addEventListener('statechange', () => follow(registration), { once: true });
      setTimeout(() => {
        if (!container.controller) fail(`The app's worker does not control this page: a hard reload bypassed it, or it claims no pages (see claimPages: true). Reload the page.`);
      }, CLAIM_GRACE_MS);
    };
    // Removed once the wait ends, controlled or failed (at the latest at its deadline): a bridge whose
    // React provider unmounted while it waited still gets ready, and still answers (docs/behaviour.md, "React").
    container.addEventListener('controllerchange', changed);
    // A page its own worker controls already (every visit after the first) has it: `register` may
    // wait behind the browser's update check of the script (a scope's jobs run one at a time), which
    // a slow server holds up for as long as it takes. Registering goes on, and changes nothing here.
    changed();
    // With `null`, the app's registration. Else a page that started uncontrolled (a hard reload) while
    // its own worker is active: `ready` answers without the job queue that `register` waits in, so the
    // active worker is asked to claim the page at once (`?.`: a container without `ready` waits for
    // `register` alone).
    void container.ready?.then((registration) => ours(registration.active) && follow(registration));
    if (scriptUrl !== null) container.register(scriptUrl, { scope }).then(follow, (cause: unknown) =>
      fail(`Registering ${scriptUrl} for scope ${scope} failed (${cause}); is it served there as JavaScript? Check swUrl (data-sw on the drop-in).`, { cause }));
  });
}
