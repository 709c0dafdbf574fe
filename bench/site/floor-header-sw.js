// Floor (b): the least a credential-adding worker does: copy the request, set one header, fetch it,
// and hand the network's response to the page as it came.
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
self.addEventListener('fetch', (event) => {
  // A copy's headers have the "request" guard, unlike the fetch event's own request (Fetch, 5.4).
  const request = new Request(event.request);
  request.headers.set('X-Floor', '1');
  event.respondWith(fetch(request));
});
