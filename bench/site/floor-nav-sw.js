// The navigation floor: the smallest worker with storefront-auth's static routes (navigations and
// everything outside the storefront paths to the network) and a fetch handler that passes through.
// Chromium starts a stopped worker beside a navigation its static routes send to the network
// (ServiceWorkerStaticRouterStartServiceWorker, on by default), so this is what any worker with a
// fetch handler and those routes costs a page load (scripts/bench/navigation.mjs).
self.addEventListener('install', (event) => {
  const origin = { protocol: location.protocol.slice(0, -1), hostname: location.hostname, port: location.port };
  event.addRoutes?.([
    { condition: { or: [{ requestMode: 'navigate' }, { requestMode: 'no-cors' }] }, source: 'network' },
    { condition: { urlPattern: { ...origin, pathname: '/api/v2/storefront/*' } }, source: 'fetch-event' },
    { condition: { urlPattern: { protocol: '*', hostname: '*', port: '*', pathname: '*' } }, source: 'network' },
  ]);
  self.skipWaiting();
});
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
self.addEventListener('fetch', (event) => event.respondWith(fetch(event.request)));
