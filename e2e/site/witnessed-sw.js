// The built worker, plus one request per start of it (`GET /worker-started`), so that a test can
// tell from the storefront's log that the browser did stop the worker and start it again. The
// drop-in registers it with data-sw="/site/witnessed-sw.js" data-scope="/site/"; the built worker
// reads its options from this script's URL, which carries them.
fetch(`/worker-started?at=${Date.now()}`).catch(() => {});
importScripts('/storefront-auth-sw.js');
