// The app's own Serwist worker, bundled by @serwist/vite: Serwist's router serves the precache and
// storefront-auth's routes, through one fetch listener.
import { Serwist, type PrecacheEntry } from 'serwist';
import { addStaticRoutes, installStorefrontAuth, storefrontAuthRoutes, type StorefrontAuthOptions } from 'storefront-auth-sw/sw';

// The build replaces self.__SW_MANIFEST with the list of files to precache.
declare const self: ServiceWorkerGlobalScope & { __SW_MANIFEST: Array<PrecacheEntry | string> | undefined };

const serwist = new Serwist({ precacheEntries: self.__SW_MANIFEST, skipWaiting: true, clientsClaim: true });
// Serwist takes storefront-auth's Workbox routes as its own: one fetch listener serves them all.
const storefront: StorefrontAuthOptions = { baseUrl: import.meta.env.VITE_STOREFRONT_URL, preset: 'store' };
// claimPages: a page loaded by a hard reload (which bypasses the worker) is taken when the bridge asks.
installStorefrontAuth({ ...storefront, router: serwist, claimPages: true });
// Chromium's static routing (where the browser has it): this origin's requests stay with this worker
// (Serwist's precache serves the app), then storefront-auth's rules send what neither touches, such as
// other origins and the API's public paths, to the network without starting the worker.
self.addEventListener('install', (event) => {
  addStaticRoutes(event, [{ condition: { urlPattern: { pathname: '/*' } }, source: 'fetch-event' }, ...storefrontAuthRoutes(storefront)]);
});
serwist.addEventListeners();
