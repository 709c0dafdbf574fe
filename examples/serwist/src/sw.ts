// The app's own Serwist worker, bundled by @serwist/vite: Serwist's router serves the precache and
// storefront-auth's routes, through one fetch listener.
import { Serwist, type PrecacheEntry } from 'serwist';
import { installStorefrontAuth } from 'storefront-auth-sw/sw';

// The build replaces self.__SW_MANIFEST with the list of files to precache.
declare const self: ServiceWorkerGlobalScope & { __SW_MANIFEST: Array<PrecacheEntry | string> | undefined };

const serwist = new Serwist({ precacheEntries: self.__SW_MANIFEST, skipWaiting: true, clientsClaim: true });
// Serwist takes storefront-auth's Workbox routes as its own: one fetch listener serves them all.
installStorefrontAuth({ baseUrl: import.meta.env.VITE_STOREFRONT_URL, preset: 'store', router: serwist });
serwist.addEventListeners();
