// The reference the bench compares against: a worker that answers every request by fetching it
// unchanged, so what it costs is the service worker hop itself (scripts/bench.mjs, context b).
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
self.addEventListener('fetch', (event) => event.respondWith(fetch(event.request)));
