/**
 * Every budget of the project, in one place: test/size.test.ts holds the built files to their
 * ceilings, and the bench (`npm run bench`, scripts/bench/) judges its measurements and the files
 * against their budgets (STYLE.md rule 10). Sizes are gzip level 9 bytes, as build.mjs prints them.
 */

/** One built file's gzip size limits. */
export interface SizeBudget {
  /** The target (issue 6 and issue 17); `null` where none was set. The bench says pass or fail. */
  budget: number | null;
  /**
   * What the size test enforces, so that no change grows the file unnoticed: the size reached,
   * rounded up to the next 256 B. Equal to `budget` once the file fits it.
   */
  ceiling: number;
}

/**
 * The dist files. Issue 17 took the standalone worker from 11371 B to 8821 B with its own fetch
 * listener instead of Workbox's router, a 50-line IndexedDB wrapper instead of idb, and a production
 * build without log lines and long messages, chasing a 6144 B budget. Issue 24 retired that budget
 * (the worker's cost is measured where shoppers feel it: page loads, cold start, the bench's floors)
 * and put the libraries the design names back: idb (+917 B) and Workbox's Router (+916 B), then the
 * static routes (+358 B), 9084 B to 11275 B. The prebuilt worker with everything stays within 12288 B.
 */
export const SIZE_BUDGETS: Readonly<Record<string, SizeBudget>> = {
  // The dialects (issue 22), idb, Workbox's Router and the static routes (issue 24) and the seal
  // scanner (issue 23) together: 14932 B, over the 12288 B budget (the bench reports it). A second
  // minifier pass on this file alone (build.mjs: terser, two passes, function declarations hoisted,
  // no property mangling) took 757 B (14175 B), and the SupersededError's long message kept to debug
  // builds 27 B: 14148 B (14203 B with the Store API's publishable-key rule). idb's core only (its
  // db.get shortcuts and async iteration marked pure) took 454 B, and simpler code (one send path,
  // one context, shared helpers, shorter production-only messages) 702 B: 13047 B, still 759 B over.
  // The worker's fetch and the pass-through back in outbound.ts, its one way out (STYLE.md 13): 13060 B.
  // build.mjs then cut what the prebuilt workers never call of Workbox's Router (its other methods,
  // the default and catch handler branches: 430 B) and Workbox's version marks (36 B), and mangled
  // the worker's own property names (304 B); shorter code took 27 B: 12263 B, within the budget.
  // The offline cart writes (the queue's storage and memory copy, the replayer, their decisions,
  // the sign-in's id, the events) add 3093 B: 15356 B, 3068 B over the budget, which the bench reports.
  'storefront-auth-sw.js': { budget: 12288, ceiling: 15360 },
  // Its debug build keeps the log and the long messages: 12281 B at issue 24, before the dialects.
  // 14668 B before the offline cart writes, 18190 B with them.
  'storefront-auth-sw.debug.js': { budget: null, ceiling: 18432 },
  // The bridge checks a preset's publishable key before registering (2560 B to 2584 B); terser's
  // pass, as the standalone worker has it, took it to 2513 B.
  // The offline writes' events, the `online` report and the option: 2513 B to 2728 B.
  'storefront-auth.js': { budget: 2560, ceiling: 2816 },
  // 2046 B became 2250 B when every wait for a worker got its 10 s bound (src/page/waitForControl.ts).
  // 2420 B became 2630 B with the offline writes' events, the `online` report and the option.
  'index.js': { budget: 2048, ceiling: 2816 },
  // 9827 B became 10011 B at issue 24: idb left to the app's bundler, the static routes and addStaticRoutes added.
  // 13482 B became 17016 B with the offline cart writes.
  'sw.js': { budget: null, ceiling: 17152 },
};

/**
 * A warm call through storefront-auth against the floor Chromium sets for what it does, at most
 * (issue 24): a sealed call (its body rewritten) against floor (a), the cheaper per run of two
 * workers that only rebuild the body; an unsealed call against floor (b), a worker that only copies
 * the request and sets one header. Each ratio is of trimmed means (the middle 80 %), and the budget
 * holds for the median over at least FLOOR_RUNS runs. It replaces issue 6's 1.05 × the pass-through
 * worker for sealed calls, which sat below what Chromium allows any body rewrite; the bench still
 * reports c/b and d/b for their history.
 */
export const FLOOR_RATIO = 1.03;

/** How many runs the floor and navigation budgets take the median of, at least (issue 24). */
export const FLOOR_RUNS = 5;

/**
 * A navigation's document time (`responseEnd`) with the worker stopped, at most, median of runs
 * (issue 24): a page load must not wait for the worker to start. Issue 24 set it against the same
 * page with no worker, and the bench judges that; but Chromium (ServiceWorkerStaticRouterStartServiceWorker,
 * on by default) starts any stopped worker with a fetch handler beside a navigation its static routes
 * send to the network, and the page's later calls reach the worker only through that start, so the
 * bench also holds it against the navigation floor, the smallest worker with the same routes, stopped
 * (scripts/bench/navigation.mjs): what storefront-auth adds to Chromium's own start.
 */
export const NAVIGATION_STOPPED_RATIO = 1.1;

/** What storefront-auth's cold start may add to the pass-through worker's, median ms (issue 6). */
export const COLD_START_EXTRA_MS = 5;

/** The refresh storm against one refresh plus one request round trip, at most (issue 6). */
export const STORM_FACTOR = 1.5;

/** The worker's own-script CPU per warm request against the pass-through worker's, at most (issue 17). */
export const SCRIPT_CPU_RATIO = 1.5;
