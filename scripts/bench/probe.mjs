// The request-path checks (never timed), with the counting copy of the standalone worker
// (bench/site/probe-sw.js): which requests reach respondWith, and IndexedDB transactions per request.
import { CART, evaluate, openContext, sequential } from './browser.mjs';

/**
 * A context whose worker is probe-sw.js: the standalone worker with counters for IndexedDB
 * transactions and respondWith calls. Requests that need no credential must not reach respondWith,
 * and a warm worker must not open a transaction per request (docs/behaviour.md, "What the worker
 * does to requests": State).
 */
export async function runProbe(browser, server, page) {
  const { context, page: tab, stopWorkers } = await openContext(browser, page);
  const counts = (reset = true) => evaluate(tab, (reset) => fetch(`/__bench/probe${reset ? '?reset' : ''}`).then((response) => response.json()), reset);
  const send = (url, init, expected) => sequential(tab, 1, init, expected, url);
  const requests = 20;
  // Sealed tokens off: these checks send the page's own real credential, which a sealed page never reads.
  await evaluate(tab, () => window.bench.loadDropIn({ sw: '/probe-sw.js', sealTokens: 'false' }));
  await evaluate(tab, () => window.storefrontAuth.getState());

  /** Requests that need no credential in the current state: none may reach respondWith. */
  const noCredential = async (label, list) => {
    await counts();
    for (const [url, init, expected] of list) await send(url, init, expected);
    const after = await counts();
    return { label, requests: list.length, respondWith: after.respondWith, paths: after.respondedPaths };
  };
  const untouched = [
    ['/api/v2/storefront/products', {}, 200],
    ['/api/v2/storefront/products/1', {}, 200],
    ['/bench.html', {}, 200],
  ];
  const checks = [];
  checks.push(await noCredential('guest without a cart', [...untouched, [CART, {}, 404], ['/api/v2/storefront/account', {}, 403]]));

  await evaluate(tab, () => window.storefrontAuth.createCart());
  const token = await evaluate(tab, () => window.bench.ownCart());
  checks.push(await noCredential('guest with a cart', [...untouched, ['/api/v2/storefront/account', {}, 403], [CART, { headers: { 'X-Store-Order-Token': token } }, 200]]));
  /** Warm requests that need a credential: each reaches respondWith once, and none opens a transaction. */
  const warm = async (label) => {
    await counts();
    await sequential(tab, requests, {}, 200);
    const after = await counts();
    return { label, requests, respondWith: after.respondWith, idbTransactions: after.idbTransactions };
  };
  const warmRuns = [await warm('guest with a cart')];

  await evaluate(tab, (user) => window.storefrontAuth.login(user), server.user);
  const pair = await evaluate(tab, (user) => window.bench.ownPasswordGrant(user.username, user.password), server.user);
  await counts();
  checks.push(await noCredential('signed in', [...untouched, [CART, { headers: { Authorization: `Bearer ${pair.access_token}` } }, 200]]));
  warmRuns.push(await warm('signed in'));

  await stopWorkers();
  await send(CART, {}, 200);
  const coldCounts = await counts();
  warmRuns.push(await warm('signed in, after a restart'));
  await context.close();

  return {
    noCredentialChecks: checks,
    noCredentialRespondWith: checks.reduce((sum, check) => sum + check.respondWith, 0),
    warmRuns,
    warmIdbTransactions: warmRuns.reduce((sum, run) => sum + run.idbTransactions, 0),
    /** The counters work: every warm request that needs a credential reached respondWith. */
    controlOk: warmRuns.every((run) => run.respondWith === run.requests),
    firstRequestAfterRestart: { idbOpens: coldCounts.idbOpens, idbTransactions: coldCounts.idbTransactions, respondWith: coldCounts.respondWith },
  };
}

