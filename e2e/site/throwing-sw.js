// A service worker script that throws while it is first evaluated, so the browser refuses to
// install it (Service Workers spec, Update: "Run Service Worker" fails and `register` rejects).
// e2e/no-worker-means-no_service_worker.spec.ts points the drop-in's `data-sw` here.
throw new Error('this worker throws on purpose');
