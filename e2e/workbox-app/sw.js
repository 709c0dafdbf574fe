// An app's own service worker, written as a Workbox user writes one, for
// e2e/workbox-app-worker.spec.ts: the app's own Router, its shell precached, a route of its own,
// and storefront-auth composed onto the same Router. It imports the built package ('storefront-auth-sw/sw'
// is dist/sw.js), and the spec bundles it with the app's Workbox as an app's bundler would, so
// both share one copy of workbox-routing. `self.__WB_MANIFEST` and `APP_VERSION` are set at build.
import { PrecacheController } from 'workbox-precaching/PrecacheController.js';
import { PrecacheRoute } from 'workbox-precaching/PrecacheRoute.js';
import { Route } from 'workbox-routing/Route.js';
import { Router } from 'workbox-routing/Router.js';
import { installStorefrontAuth } from 'storefront-auth-sw/sw';

const router = new Router();
router.addFetchListener();
router.addCacheListener();

// First, so its routes see the storefront API before the app's (the first matching route answers).
installStorefrontAuth({ baseUrl: self.location.origin, preset: 'store', router });

const precache = new PrecacheController();
precache.precache(self.__WB_MANIFEST);
router.registerRoute(new PrecacheRoute(precache));

// The app's own catch-all for the API, registered after storefront-auth's routes: whatever
// storefront-auth leaves (products, …) is the app's to answer, and the app marks what it answered.
router.registerRoute(
  new Route(
    ({ url, sameOrigin }) => sameOrigin && url.pathname.startsWith('/api/'),
    async ({ request }) => {
      const response = await fetch(request);
      const headers = new Headers(response.headers);
      headers.set('X-Answered-By', 'app');
      return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
    },
    'GET',
  ),
);

router.registerRoute(new Route(({ url }) => url.pathname === '/workbox/hello', async () => new Response(`hello from the app worker, version ${APP_VERSION}`), 'GET'));

// The life cycle is the app's: a new version waits until a page asks it to take over (Workbox's
// SKIP_WAITING convention), and open pages are not claimed. storefront-auth does neither by itself.
self.addEventListener('message', (event) => {
  if (event.data?.type === 'SKIP_WAITING') void self.skipWaiting();
  if (event.data?.type === 'GET_VERSION') event.ports[0]?.postMessage(APP_VERSION);
});
