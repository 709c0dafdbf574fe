// The app's own service worker, bundled by vite-plugin-pwa (strategies: 'injectManifest').
import { clientsClaim } from 'workbox-core';
import { cleanupOutdatedCaches, precacheAndRoute, type PrecacheEntry } from 'workbox-precaching';
import { addStaticRoutes, installStorefrontAuth, storefrontAuthRoutes, type StorefrontAuthOptions } from 'storefront-auth-sw/sw';

// The build replaces self.__WB_MANIFEST with the list of files to precache.
declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: Array<PrecacheEntry | string> };

// First, so that its routes win over any of yours that could match the storefront API.
const storefront: StorefrontAuthOptions = { baseUrl: import.meta.env.VITE_STOREFRONT_URL, preset: 'store' };
// claimPages: a page loaded by a hard reload (which bypasses the worker) is taken when the bridge asks.
installStorefrontAuth({ ...storefront, claimPages: true });
precacheAndRoute(self.__WB_MANIFEST);
// Chromium's static routing (where the browser has it): this origin's requests stay with this worker
// (its precache serves the app, offline too), then storefront-auth's rules send what neither touches,
// such as other origins and the API's public paths, to the network without starting the worker.
self.addEventListener('install', (event) => {
  addStaticRoutes(event, [{ condition: { urlPattern: { pathname: '/*' } }, source: 'fetch-event' }, ...storefrontAuthRoutes(storefront)]);
});
cleanupOutdatedCaches();
// Your life cycle. The bridge's `ready` waits until the page is controlled, so claim the first visit.
self.skipWaiting();
clientsClaim();
