// The standalone worker with counters around it, for the bench's checks only (never timed): how
// many IndexedDB transactions it opens and which requests reach respondWith. It reads its options
// from its own URL, as the standalone worker does (`importScripts` keeps `self.location`).
const counts = { idbOpens: 0, idbTransactions: 0, respondWith: 0, respondedPaths: [] };

const open = IDBFactory.prototype.open;
IDBFactory.prototype.open = function (...args) {
  counts.idbOpens++;
  return open.apply(this, args);
};
const transaction = IDBDatabase.prototype.transaction;
IDBDatabase.prototype.transaction = function (...args) {
  counts.idbTransactions++;
  return transaction.apply(this, args);
};
const respondWith = FetchEvent.prototype.respondWith;
FetchEvent.prototype.respondWith = function (response) {
  counts.respondWith++;
  const url = new URL(this.request.url);
  counts.respondedPaths.push(`${this.request.method} ${url.pathname}`);
  return respondWith.call(this, response);
};

// Listeners run in the order they were added, so this one sees /__bench/probe before Workbox does.
self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (url.pathname !== '/__bench/probe') return;
  const body = JSON.stringify(counts);
  if (url.searchParams.has('reset')) Object.assign(counts, { idbOpens: 0, idbTransactions: 0, respondWith: 0, respondedPaths: [] });
  respondWith.call(event, new Response(body, { headers: { 'Content-Type': 'application/json' } }));
});

// The worker below adds static routes that send every path outside the storefront to the network,
// this probe's path too; Chromium evaluates rules in the order they were added, so this one first.
self.addEventListener('install', (event) => {
  if ('addRoutes' in event) event.waitUntil(event.addRoutes({ condition: { urlPattern: { pathname: '/__bench/probe' } }, source: 'fetch-event' }).catch(() => {}));
});

importScripts('/storefront-auth-sw.js');
