// Floor (a), second form: the network's body read whole, then answered as a one-chunk stream, as a
// worker that seals a document must (it reads the text before it can rewrite it).
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
self.addEventListener('fetch', (event) =>
  event.respondWith(
    fetch(event.request).then(async (response) => {
      const { status, statusText, headers } = response;
      if (response.body === null) return response;
      const body = new Uint8Array(await response.arrayBuffer());
      const stream = new ReadableStream({
        start(controller) {
          controller.enqueue(body);
          controller.close();
        },
      });
      return new Response(stream, { status, statusText, headers });
    }),
  ),
);
