/**
 * The demo shop's own service worker, written the way an app's Workbox worker is: it precaches the
 * shell, keeps a copy of the product list for offline visits, and composes storefront-auth, which
 * adds the credentials to the shop's API calls. The life cycle is the app's decision, not
 * storefront-auth's: this worker takes over at once (skipWaiting, clientsClaim).
 */
import { clientsClaim } from 'workbox-core/clientsClaim.js';
import { cleanupOutdatedCaches } from 'workbox-precaching/cleanupOutdatedCaches.js';
import { precacheAndRoute } from 'workbox-precaching/precacheAndRoute.js';
import type { PrecacheEntry } from 'workbox-precaching/_types.js';
import { registerRoute } from 'workbox-routing/registerRoute.js';
import { installStorefrontAuth } from '../../src/sw/index.js';
import { flavour, PRODUCTS_PATH } from './flavour.js';
import { savedCopyWhenOffline } from './productsRoute.js';

// `self.__WB_MANIFEST` is replaced at build time (demo/buildDemo.mjs) by the shell's file list,
// each with a content hash as its revision, the way workbox-build injects it.
declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: Array<PrecacheEntry | string> };

// storefront-auth first: Workbox answers with the first route that matches, and its routes must see
// the shop's cart, checkout, account and token calls before any route of the app could.
// The preset (and, for spree-v3, the publishable key) comes from the flavour this build is for.
// With offlineWrites, "Add to cart" offline is kept by the worker and sent when the shop can be
// reached again; the page says so (app.ts).
// claimPages: a page loaded by a hard reload starts uncontrolled; this worker, which claims pages
// anyway, takes it when the bridge asks.
installStorefrontAuth({ baseUrl: self.location.origin, ...flavour.auth, offlineWrites: true, claimPages: true });

precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();

const products = savedCopyWhenOffline('demo-products');
registerRoute(({ url, sameOrigin }) => sameOrigin && url.pathname === PRODUCTS_PATH, products.handler, 'GET');
// A first copy as the worker installs: the first visit's own product fetch went out before this
// worker controlled the page, so the route never saw it.
self.addEventListener('install', (event) => event.waitUntil(products.warm(PRODUCTS_PATH, flavour.headers)));

// A new version of the demo replaces the old one at once; the shell is precached, so nothing a
// page holds goes stale between the two.
void self.skipWaiting();
clientsClaim();
