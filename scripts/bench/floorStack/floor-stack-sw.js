// The stack's floor: what any worker built as storefront-auth is built must do for a sealed call,
// and nothing more. Workbox's Router matches the call (the stack routes the worker's fetches with
// workbox-routing), the request is copied to add one header with `redirect: 'manual'` and
// `cache: 'no-store'` (credentials never follow a redirect; a sealed answer never lands in the HTTP
// cache), the first chunk of the answer is read ahead, and the page gets it in a stream filled from
// the start, with the headers copied but `Content-Length`. No credential is looked up, nothing is
// scanned. `npm run bench:profile` bundles it (profileOnly.mjs) when BENCH_PROFILE_KEYS names
// `aStack`; docs/performance.md, "Where the rest goes", has its figures.
import { Route } from 'workbox-routing/Route.js';
import { Router } from 'workbox-routing/Router.js';

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

const handler = ({ request }) => {
  const sent = new Request(request, { redirect: 'manual', cache: 'no-store' });
  sent.headers.set('X-Floor', '1');
  return fetch(sent).then((response) => {
    if (response.body === null) return response;
    const { status, statusText } = response;
    return response.body
      .getReader()
      .read()
      .then(({ value }) => {
        const headers = [...response.headers].filter(([name]) => name !== 'content-length');
        const body = new ReadableStream({
          start(controller) {
            if (value !== undefined) controller.enqueue(value);
            controller.close();
          },
        });
        return new Response(body, { status, statusText, headers });
      });
  });
};

const router = new Router();
router.addFetchListener();
for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']) router.registerRoute(new Route(({ url }) => url.pathname.startsWith('/api/'), handler, method));
