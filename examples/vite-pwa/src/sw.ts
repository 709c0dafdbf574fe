// The app's own service worker, bundled by vite-plugin-pwa (strategies: 'injectManifest').
import { clientsClaim } from 'workbox-core';
import { cleanupOutdatedCaches, precacheAndRoute, type PrecacheEntry } from 'workbox-precaching';
import { installStorefrontAuth } from 'storefront-auth-sw/sw';

// The build replaces self.__WB_MANIFEST with the list of files to precache.
declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: Array<PrecacheEntry | string> };

// First, so that its routes win over any of yours that could match the storefront API.
installStorefrontAuth({ baseUrl: import.meta.env.VITE_STOREFRONT_URL, preset: 'store' });
precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();
// Your life cycle. The bridge's `ready` waits until the page is controlled, so claim the first visit.
self.skipWaiting();
clientsClaim();
