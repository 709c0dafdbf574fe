import type { Browser, BrowserContext, CDPSession, Page } from '@playwright/test';
import { expect, login, openShop, recordedEvents, test, type LoggedRequest, type Storefront } from './support.js';

/** How long the tabs keep sending; `LOAD_SECONDS=60 npm run load` runs longer. */
const LOAD_SECONDS = Number(process.env['LOAD_SECONDS'] ?? 30);
const TABS = 20;
/** Requests each tab keeps in flight at once. */
const LANES = 2;
const LIFETIME_SECONDS = 3;
/** How often the server also ends the access token early, out of step with the lifetime. */
const EARLY_EXPIRY_MS = 4_300;
/** A page request not settled after this long counts as hung (the worker's own timeouts are 10 s). */
const HUNG_MS = 15_000;

test.use({ storefrontOptions: { rotation: 'strict', accessTokenLifetime: LIFETIME_SECONDS } });

/** One request a tab sent, as the page saw it: `status` 0 is a network error, -1 hung. */
interface Sent {
  id: string;
  method: string;
  path: string;
  status: number;
}

/**
 * The tab's load: `lanes` loops that each send one request after another until `seconds` have
 * passed, picking from a mix of account, cart, checkout and public catalogue calls, with JSON
 * bodies on the writes. Every request carries a unique `rid` query parameter, so the server's log
 * can be matched to what the page sent (the worker keeps the URL on its replay).
 */
function runLoad(page: Page, tab: number, seconds: number, lanes: number, hungMs: number): Promise<Sent[]> {
  return page.evaluate(
    async ({ tab, seconds, lanes, hungMs }) => {
      const json = (value: unknown): RequestInit => ({ headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(value) });
      const mix: Array<{ method: string; path: string; init?: () => RequestInit }> = [
        { method: 'GET', path: '/api/v2/storefront/account' },
        { method: 'GET', path: '/api/v2/storefront/account/orders' },
        { method: 'PATCH', path: '/api/v2/storefront/account', init: () => json({ user: { first_name: `Tab ${tab}` } }) },
        { method: 'GET', path: '/api/v2/storefront/cart' },
        { method: 'POST', path: '/api/v2/storefront/cart/add_item', init: () => json({ variant_id: String(1 + (tab % 4)), quantity: 1 }) },
        { method: 'GET', path: '/api/v2/storefront/checkout' },
        { method: 'PATCH', path: '/api/v2/storefront/checkout', init: () => json({ order: { email: `tab${tab}@example.com` } }) },
        { method: 'GET', path: '/api/v2/storefront/products' },
        { method: 'GET', path: `/api/v2/storefront/products/${1 + (tab % 4)}` },
      ];
      const sent: Array<{ id: string; method: string; path: string; status: number }> = [];
      const end = performance.now() + seconds * 1000;
      let count = 0;
      const lane = async (): Promise<void> => {
        while (performance.now() < end) {
          const call = mix[Math.floor(Math.random() * mix.length)]!;
          const id = `t${tab}-${count++}`;
          let timer: ReturnType<typeof setTimeout> | undefined;
          const hung = new Promise<number>((resolve) => (timer = setTimeout(() => resolve(-1), hungMs)));
          const answered = fetch(`${call.path}?rid=${id}`, { method: call.method, ...call.init?.() }).then(
            async (response) => (await response.arrayBuffer(), response.status),
            () => 0,
          );
          const status = await Promise.race([answered, hung]);
          clearTimeout(timer);
          sent.push({ id, method: call.method, path: call.path, status });
        }
      };
      await Promise.all(Array.from({ length: lanes }, lane));
      return sent;
    },
    { tab, seconds, lanes, hungMs },
  );
}

/**
 * The service worker's JS heap in bytes after a full garbage collection, over the browser's CDP
 * connection. Playwright opens CDP sessions on pages only, so this attaches to the worker's target
 * in the non-flattened mode and speaks to it through `Target.sendMessageToTarget`.
 */
async function workerHeap(cdp: CDPSession): Promise<number> {
  const { targetInfos } = await cdp.send('Target.getTargets');
  const worker = targetInfos.find((target) => target.type === 'service_worker' && target.url.includes('/storefront-auth-sw.js'));
  if (worker === undefined) throw new Error('No storefront-auth service worker target');
  const { sessionId } = await cdp.send('Target.attachToTarget', { targetId: worker.targetId, flatten: false });
  const replies = new Map<number, (reply: { result?: unknown; error?: unknown }) => void>();
  const listener = (event: { sessionId?: string; message: string }): void => {
    if (event.sessionId !== sessionId) return;
    const reply = JSON.parse(event.message) as { id?: number; result?: unknown; error?: unknown };
    if (reply.id !== undefined) replies.get(reply.id)?.(reply);
  };
  cdp.on('Target.receivedMessageFromTarget', listener);
  let nextId = 1;
  const send = async <T>(method: string): Promise<T> => {
    const id = nextId++;
    const reply = new Promise<{ result?: unknown; error?: unknown }>((resolve) => replies.set(id, resolve));
    await cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params: {} }) });
    const { result, error } = await reply;
    if (error !== undefined) throw new Error(`${method}: ${JSON.stringify(error)}`);
    return result as T;
  };
  try {
    await send('HeapProfiler.collectGarbage');
    return (await send<{ usedSize: number }>('Runtime.getHeapUsage')).usedSize;
  } finally {
    cdp.off('Target.receivedMessageFromTarget', listener);
    await cdp.send('Target.detachFromTarget', { sessionId });
  }
}

/** The `rid` a logged request carried, if any. */
const requestId = (request: LoggedRequest): string | null => new URLSearchParams(request.search).get('rid');

const megabytes = (bytes: number): string => (bytes / 2 ** 20).toFixed(2);

/** The signed-in shopper's tabs, all controlled by the one worker, and a browser CDP session. */
async function openTabs(browser: Browser, context: BrowserContext, storefront: Storefront): Promise<{ tabs: Page[]; cdp: CDPSession }> {
  const first = await openShop(context, storefront);
  // A guest cart first, then the sign-in assigns it to the shopper: cart calls reach that cart with the bearer.
  await first.evaluate(() => window.storefrontAuth.createCart());
  await login(first, storefront.user);
  const tabs = [first];
  for (let i = 1; i < TABS; i++) tabs.push(await openShop(context, storefront));
  return { tabs, cdp: await browser.newBrowserCDPSession() };
}

// Tagged @load: `npm run test:e2e` runs it alone, after every other spec. Beside the other specs on
// two cores it ran at 40-74 requests/s instead of 95-118, and replays with the freshly refreshed
// bearer were refused (6 and 71 401s at pages, each the first try with pair n and the replay with
// pair n+1); alone, also beside two busy-looping processes, it had none in 6 runs. Its 3 s tokens and
// early expiries need replays that reach the server soon after the refresh.
test(`20 tabs send mixed requests for ${LOAD_SECONDS} s while tokens expire every 3 s, and early now and then, under strict rotation`, { tag: '@load' }, async ({ browser, context, storefront }) => {
  test.setTimeout((LOAD_SECONDS + 120) * 1000);
  const { tabs, cdp } = await openTabs(browser, context, storefront);
  const heapBefore = await workerHeap(cdp);
  storefront.clearLog();

  const started = Date.now();
  // Besides the scheduled expiries, the server ends the access token early now and then, so that
  // requests already in flight from many tabs meet a 401 at once: one refresh, and each one
  // replayed. Only a bearer the server has accepted is ended early (docs/behaviour.md, "Refresh"):
  // a refreshed bearer refused on its very first use counts as a failed refresh, and its 401
  // reaches the page by design.
  let earlyExpiries = 0;
  const tokens = (storefront as unknown as { tokens: ReadonlyMap<string, { accessToken: string; createdAt: number }> }).tokens;
  const expireEarly = setInterval(() => {
    const latest = [...tokens.values()].reduce<{ accessToken: string; createdAt: number } | null>((last, pair) => (last === null || pair.createdAt >= last.createdAt ? pair : last), null);
    const accepted = latest !== null && storefront.requests.some((request) => request.status === 200 && request.headers.authorization === `Bearer ${latest.accessToken}`);
    if (!accepted) return;
    storefront.expireAllAccessTokens();
    earlyExpiries += 1;
  }, EARLY_EXPIRY_MS);
  const sent = (await Promise.all(tabs.map((tab, index) => runLoad(tab, index, LOAD_SECONDS, LANES, HUNG_MS))).finally(() => clearInterval(expireEarly))).flat();
  const elapsedMs = Date.now() - started;
  const heapAfter = await workerHeap(cdp);

  const stats = storefront.stats();
  const arrivals = new Map<string, LoggedRequest[]>();
  for (const request of storefront.requests) {
    const id = requestId(request);
    if (id !== null) arrivals.set(id, [...(arrivals.get(id) ?? []), request]);
  }
  const replays = [...arrivals.values()].filter((list) => list.length === 2).length;
  const sessionEnds = (await Promise.all(tabs.map(recordedEvents))).flat().filter((event) => event.type === 'sessionexpired');
  console.log(
    `load: ${TABS} tabs, ${LOAD_SECONDS} s, ${sent.length} requests (${Math.round(sent.length / (elapsedMs / 1000))}/s), ` +
      `${stats.refreshGrants} refresh grants, ${stats.invalidGrants} invalid_grant, ${sent.filter((s) => s.status === 401).length} 401 at pages, ` +
      `${earlyExpiries} early expiries, ${replays} replays, heap ${megabytes(heapBefore)} → ${megabytes(heapAfter)} MB`,
  );

  // On a failure, what the server saw of each request that did not end in a 200, and where its
  // bearer stands among the pairs issued (0 = the first): enough to tell a refused replay from a
  // refresh that never came.
  const issued = [...tokens.values()].sort((x, y) => x.createdAt - y.createdAt).map((pair) => pair.accessToken);
  const bearerIndex = (request: LoggedRequest): number => issued.indexOf(request.headers.authorization?.replace(/^Bearer /, '') ?? '');
  for (const failed of sent.filter((s) => s.status !== 200)) {
    const seen = (arrivals.get(failed.id) ?? []).map((request) => `${request.status} with bearer #${bearerIndex(request)}`);
    console.log(`not 200: ${failed.id} ${failed.method} ${failed.path} → ${failed.status}; the server saw: ${seen.join(', ') || 'nothing'}; ${issued.length} pairs issued`);
  }
  // Every page request settled with a 200: none hung, failed on the network, or saw the 401 the worker replays.
  expect(sent.filter((s) => s.status !== 200)).toEqual([]);
  // Every id reached the server exactly once, or twice when its first arrival was a 401 (the one replay).
  const miscounted = sent.flatMap(({ id, method, path }) => {
    const seen = arrivals.get(id) ?? [];
    const replayed = seen.length === 2 && seen[0]?.status === 401 && seen[1]?.status === 200 && seen[0].headers.authorization !== seen[1].headers.authorization;
    return seen.length === 1 || replayed ? [] : [{ id, method, path, statuses: seen.map((request) => request.status) }];
  });
  expect(miscounted).toEqual([]);
  expect(arrivals.size).toBe(sent.length);
  // Under strict rotation a refresh token spent twice is an invalid_grant and ends the session.
  expect(stats.invalidGrants).toBe(0);
  expect(sessionEnds).toEqual([]);
  // About one refresh per lifetime (the worker refreshes 10 % before the end) plus one per early
  // expiry, never two for one expiry; the early expiries did reach requests in flight.
  expect(stats.refreshGrants).toBeGreaterThan(0);
  expect(stats.refreshGrants).toBeLessThanOrEqual(Math.ceil(elapsedMs / (LIFETIME_SECONDS * 900)) + 1 + earlyExpiries);
  expect(replays).toBeGreaterThan(0);
  expect((await tabs[0]!.evaluate(() => window.storefrontAuth.getState())).signedIn).toBe(true);
  // Worker memory stays flat: the heap after the load is within 2× or 5 MB of the heap before it.
  expect(heapAfter).toBeLessThanOrEqual(Math.max(2 * heapBefore, heapBefore + 5 * 2 ** 20));
});
