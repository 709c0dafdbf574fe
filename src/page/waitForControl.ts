/**
 * Registers the worker and waits until it controls this page (CONTRACT.md, `ready`). The standalone
 * worker claims pages when it activates; a page that started uncontrolled anyway (a shift-reload)
 * asks the active worker to claim it.
 */
import { StorefrontAuthError } from '../shared/errors.js';

/** How long to wait for control once the worker is active, before saying why it did not happen. */
const CONTROL_TIMEOUT_MS = 10_000;

/** Registers `scriptUrl` (unless `null`: the app registers its own worker) and waits for control. */
export async function waitForControl(
  scriptUrl: string | null,
  scope: string,
  askToClaim: (worker: ServiceWorker) => void,
): Promise<void> {
  const container = globalThis.navigator?.serviceWorker;
  if (container === undefined || !globalThis.isSecureContext) {
    throw new StorefrontAuthError('no_service_worker', 'Service workers are unavailable here (insecure origin, private mode or old browser).');
  }
  if (scriptUrl !== null) {
    try {
      await container.register(scriptUrl, { scope });
    } catch (cause) {
      throw new StorefrontAuthError('no_service_worker', `Registering ${scriptUrl} for scope ${scope} failed (${cause}); is it served there as JavaScript?`, { cause });
    }
  }
  if (container.controller !== null) return;
  const registration = await container.ready;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new StorefrontAuthError('no_service_worker', `The worker is active but does not control this page; is the page in scope ${scope}?`)),
      CONTROL_TIMEOUT_MS,
    );
    const controlled = (): void => {
      clearTimeout(timer);
      resolve();
    };
    container.addEventListener('controllerchange', controlled, { once: true });
    // Control may have come while waiting for `ready`, before the listener was added.
    if (container.controller !== null) controlled();
    else if (registration.active !== null) askToClaim(registration.active);
  });
}
