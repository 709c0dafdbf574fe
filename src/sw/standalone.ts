/**
 * The standalone worker, `dist/storefront-auth-sw.js`: reads its options from its own URL
 * (`?base=…&preset=…`), and takes control of the page that registered it without a reload.
 */
import { Router } from 'workbox-routing/Router.js';
import { install } from './installStorefrontAuth.js';
import { optionsFromQuery } from './options.js';

declare const self: ServiceWorkerGlobalScope;

const scope = self;
const claim = (): Promise<void> => scope.clients.claim();
// Its own router: nothing else routes in this worker, and it needs no cache-message listener.
const router = new Router();
router.addFetchListener();

install(optionsFromQuery(scope.location.search), (route) => router.registerRoute(route), { claim });
scope.addEventListener('install', () => void scope.skipWaiting());
scope.addEventListener('activate', (event) => event.waitUntil(claim()));
