// A service worker whose install fails: its install event's promise rejects, so the browser marks
// it redundant (Service Workers spec, Install). e2e/no-worker-means-no_service_worker.spec.ts
// points the drop-in's `data-sw` here.
self.addEventListener('install', (event) => {
  event.waitUntil(Promise.reject(new Error('this worker fails to install on purpose')));
});
