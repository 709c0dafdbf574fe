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
): Promise<ServiceWorkerContainer> {
  const container = globalThis.navigator?.serviceWorker;
  if (container === undefined || !globalThis.isSecureContext) {
    throw new StorefrontAuthError('no_service_worker', 'Service workers are not available here (an insecure origin, a private mode, or an old browser); storefront requests go out without the worker.');
  }
  if (scriptUrl !== null) {
    try {
      await container.register(scriptUrl, { scope });
    } catch (cause) {
      throw new StorefrontAuthError('no_service_worker', `The service worker ${scriptUrl} could not be registered for scope ${scope}: ${String(cause)}. Check that the script is served at that URL with a JavaScript content type.`, { cause });
    }
  }
  if (container.controller !== null) return container;
  const registration = await container.ready;
  const controlled = new Promise<void>((resolve) => container.addEventListener('controllerchange', () => resolve(), { once: true }));
  if (container.controller !== null) return container;
  if (registration.active !== null) askToClaim(registration.active);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new StorefrontAuthError('no_service_worker', `The service worker is active but does not control this page; is the page under its scope (${scope})?`)),
      CONTROL_TIMEOUT_MS,
    );
  });
  try {
    await Promise.race([controlled, timeout]);
  } finally {
    clearTimeout(timer);
  }
  return container;
}
