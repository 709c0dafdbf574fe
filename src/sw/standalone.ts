/**
 * The standalone worker, `dist/storefront-auth-sw.js`: reads its options from its own URL
 * (`?base=…&preset=…`), and takes control of the page that registered it without a reload.
 */
import { createAuthWorker, METHODS } from './createAuthWorker.js';
import { optionsFromQuery } from './options.js';

const scope = self as unknown as ServiceWorkerGlobalScope;
const claim = (): Promise<void> => scope.clients.claim();

const worker = createAuthWorker(optionsFromQuery(scope.location.search), { claim });
// This worker routes nothing else, so a plain listener does what a Workbox router would here: the
// same methods, the same synchronous match, and respondWith only for a request that matched.
scope.addEventListener('fetch', (event) => {
  const { request } = event;
  if (!(METHODS as readonly string[]).includes(request.method)) return;
  const url = new URL(request.url);
  const matched = worker.match(request, url);
  if (matched !== null) event.respondWith(worker.handle(request, url, matched === true ? undefined : matched));
});
scope.addEventListener('install', () => void scope.skipWaiting());
scope.addEventListener('activate', (event) => event.waitUntil(claim()));
