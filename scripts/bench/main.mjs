// The performance bench (`npm run bench`): what a shopper pays for the worker, measured against the
// floors Chromium sets, in one interleaved Chromium run. The conditions (conditions.mjs), each in
// BENCH_REPLICAS browser contexts, time the same calls against the reference storefront:
//   a       no worker (the page sends its own credential), and b, a bare pass-through worker
//   aPipe,  floor (a), the cheapest body rewrite: two workers that change nothing but hand the page
//   aRead   a rebuilt body (an identity TransformStream; the body read and answered as one chunk);
//           which is cheaper changes run to run, so each run takes the cheaper
//   bFloor  floor (b), a worker that copies the request and sets one header
//   c, d    storefront-auth as a guest and signed in, sealing on (c0, d0: sealing off; cw, dw:
//           offline writes on, nothing queued)
//   v3…     the same for the spree-v3 preset against the Store API flavour
// so the server does the same work for each and only the browser side differs. Rounds interleave
// the contexts in rotating order, so drift (other processes, GC, thermal) falls on all of them.
// Latencies are compared as trimmed means (the middle 80 %): pages get 0.1 ms timers, so medians
// of ~7 ms step by ~1.5 %. Each run also leaves a record in bench/runs/, and the budgets on ratios
// are judged on the median over the runs of the same build (at least FLOOR_RUNS of them).
//
// This file runs the steps in order; each lives in a module of its own:
//   browser.mjs    Chromium, contexts whose workers can be stopped, the page's request helpers
//   conditions.mjs the conditions and the calls each times
//   stats.mjs      trimmed means, medians, percentiles, paired ratios
//   navigation.mjs document time of a page load with no worker, the worker running and stopped
//   coldStart.mjs  cold starts on an on-disk profile (a second, persistent Chromium)
//   profile.mjs    CPU per request on the worker thread (V8's sampling profiler over CDP), for
//                  storefront-auth and for the floors its budgets hold it against
// Besides the cart calls, a 200 KB cart document is timed to its first and last byte of body in
// every v2 context: what sealing as the body streams costs a large answer, against the floors.
//   probe.mjs      request-path checks with a counting copy of the worker (bench/site/probe-sw.js)
//   storm.mjs      the refresh storm: 10 tabs, expired token, beside two controls without a refresh
//   runs.mjs       the run records and their medians
//   report.mjs     bench/results.md and docs/bench.svg
// The budgets are scripts/budgets.ts, shared with the size test. Writes bench/results.json,
// bench/results.md, bench/runs/<date>.json and docs/bench.svg, and prints the Markdown. Exits 0
// whatever the verdicts (BENCH_STRICT=1: exits 1 when a budget fails).
//
// Environment: BENCH_ROUNDS (default 10), BENCH_BATCH (sequential requests per context per round,
// 20), BENCH_PARALLEL (requests per throughput batch, 64), BENCH_COLD_ROUNDS (10),
// BENCH_NAV_ROUNDS (navigations per condition, 24), BENCH_STORM_ROUNDS (3), BENCH_STORM_LIFETIME
// (access-token lifetime of the storm, s, 3), BENCH_REPLICAS (contexts per condition, 1),
// BENCH_PROFILE_REQUESTS (per profiled worker, 300), BENCH_LARGE (200 KB cart documents per context
// and round, 4), BENCH_SEAL (0: sealed tokens off in c and d),
// BENCH_OUT (bench/results.json), BENCH_RUNS_DIR (bench/runs), BENCH_SVG (docs/bench.svg), CHROMIUM_PATH.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { startStorefront } from '../../demo/storefront/server.mjs';
import { COLD_START_EXTRA_MS, FLOOR_RATIO, FLOOR_RUNS, FLOOR_SCRIPT_RATIO, NAVIGATION_STOPPED_RATIO, SIZE_BUDGETS, STORM_FACTOR, UNSEALED_FLOOR_RATIO } from '../budgets.ts';
import { largeCart } from '../largeCart.ts';
import { firstAndLast, launch, openContext, parallel, sequential, sleep } from './browser.mjs';
import { CONDITIONS, LARGE_CART, prepare } from './conditions.mjs';
import { runDiskColdStart } from './coldStart.mjs';
import { measureNavigation } from './navigation.mjs';
import { runProbe } from './probe.mjs';
import { profileWorker } from './profile.mjs';
import { renderMarkdown, renderSvg } from './report.mjs';
import { medianOfRuns, readRuns, runRecord } from './runs.mjs';
import { median, pairedRatios, quartiles, rotate, round3, summary, trimmedMean, trimmedSummary } from './stats.mjs';
import { runStorm } from './storm.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const distDir = join(root, 'dist');
const number = (name, fallback) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, not ${process.env[name]}`);
  return value;
};
const config = {
  rounds: number('BENCH_ROUNDS', 10),
  batch: number('BENCH_BATCH', 20),
  parallelTotal: number('BENCH_PARALLEL', 64),
  inFlight: 8,
  warmup: 30,
  coldRounds: number('BENCH_COLD_ROUNDS', 10),
  navigationRounds: number('BENCH_NAV_ROUNDS', 24),
  stormRounds: number('BENCH_STORM_ROUNDS', 3),
  stormTabs: 10,
  stormLifetime: number('BENCH_STORM_LIFETIME', 3),
  referenceSamples: 10,
  replicas: number('BENCH_REPLICAS', 1),
  profileRequests: number('BENCH_PROFILE_REQUESTS', 300),
  largeCalls: number('BENCH_LARGE', 4),
  /** BENCH_SEAL=0 times contexts c and d with sealed tokens off, to tell their cost from the rest. */
  sealTokens: process.env['BENCH_SEAL'] !== '0',
};
/** The drop-in's attributes for c and d; the storm and cold starts use them too. */
const dropIn = config.sealTokens ? {} : { sealTokens: 'false' };
const OUT = process.env.BENCH_OUT ?? join(root, 'bench/results.json');
const RUNS_DIR = process.env.BENCH_RUNS_DIR ?? join(root, 'bench/runs');
const SVG = process.env.BENCH_SVG ?? join(root, 'docs/bench.svg');

const conditions = Object.fromEntries(
  Object.entries(CONDITIONS).map(([key, condition]) => [key, key === 'c' || key === 'd' ? { ...condition, dropIn: { ...condition.dropIn, ...dropIn } } : condition]),
);
const keys = Object.keys(conditions);
/** The conditions with a worker timed for cold starts. */
const workerKeys = ['b', 'c', 'd'];
/** The workers profiled: storefront-auth sealed and not, the floors each is held against, and the pass-through worker. */
const profileKeys = ['b', 'aPipe', 'aRead', 'bFloor', 'c', 'd', 'c0', 'd0'];
/** The conditions timed for throughput, against the pass-through worker. */
const throughputKeys = ['a', 'b', 'c', 'd'];

const mounts = [
  { prefix: '/', dir: join(root, 'bench/site') },
  { prefix: '/', dir: distDir },
];
for (const file of ['storefront-auth-sw.js', 'storefront-auth.js']) {
  if (!existsSync(join(distDir, file))) throw new Error(`dist/${file} is missing; run npm run build first (npm run bench does)`);
}
const log = (message) => process.stderr.write(`${message}\n`);

const started = new Date();
const loadBefore = os.loadavg();
const loadSamples = [loadBefore[0]];
const loadTimer = setInterval(() => loadSamples.push(os.loadavg()[0]), 5000);
const main = await startStorefront({ port: 0, static: mounts });
const v3 = await startStorefront({
  port: 0,
  static: mounts,
  flavour: 'spree-v3',
  rateLimits: { login: 100_000, refresh: 100_000, logout: 100_000, register: 100_000, passwordReset: 100_000 },
});
const stormServer = await startStorefront({ port: 0, static: mounts, accessTokenLifetime: config.stormLifetime });
// The 200 KB cart document: one canned answer, so the server's work is the same for every condition.
main.override('GET', LARGE_CART, { headers: { 'Content-Type': 'application/vnd.api+json; charset=utf-8' }, body: largeCart(200_000), times: Infinity });
const servers = { v2: main, v3 };
const browser = await launch();
try {
  log(`bench: Chromium ${browser.version()}, storefront ${main.url}, Store API ${v3.url}, ${config.rounds} rounds, load average ${loadBefore.map((value) => value.toFixed(2)).join(' ')}`);
  const instances = await setUpAll();
  const warm = await measureWarm(instances);
  const large = await measureLarge(instances.filter((instance) => instance.large !== undefined));
  log('bench: 200 KB cart documents done');
  const untouched = await measureUntouched(instances.filter((instance) => conditions[instance.key].api === 'v2'));
  main.clearLog();
  const cold = await measureCold(instances);
  log('bench: cold starts done');
  // Another origin for the navigation page's image: the storm's storefront serves the same files.
  const navigation = await measureNavigation(browser, main, stormServer.url, config.navigationRounds);
  log('bench: navigations done');
  const diskCold = await runDiskColdStart({ mainUrl: main.url, mounts, config, dropIn });
  log('bench: cold starts on an on-disk profile done');
  const profile = {};
  for (const key of profileKeys) {
    const instance = instances.find((candidate) => candidate.key === key);
    await sequential(instance.page, config.warmup, instance.calls.cart.init, 200, instance.calls.cart.url);
    profile[key] = await profileWorker(browser, instance, config.profileRequests, distDir);
  }
  log('bench: worker profiles done');
  const probe = await runProbe(browser, main, `${main.url}/bench.html`);
  log('bench: request-path checks done');
  const storm = await runStorm(browser, stormServer, config, dropIn);
  log('bench: storm done');

  clearInterval(loadTimer);
  const results = assemble({ warm, large, untouched, cold, diskCold, navigation, profile, probe, storm, sizes: measureSizes() });
  mkdirSync(dirname(OUT), { recursive: true });
  const json = (value) => `${JSON.stringify(value, (key, item) => (typeof item === 'number' && !Number.isInteger(item) ? round3(item) : item), 2)}\n`;
  writeFileSync(OUT, json(results));
  mkdirSync(RUNS_DIR, { recursive: true });
  writeFileSync(join(RUNS_DIR, `${results.date.replace(/[:.]/g, '-')}.json`), json(results.run));
  const markdown = renderMarkdown(results);
  writeFileSync(join(dirname(OUT), 'results.md'), markdown);
  mkdirSync(dirname(SVG), { recursive: true });
  writeFileSync(SVG, renderSvg(results));
  process.stdout.write(markdown);
  log(`bench: wrote ${OUT}, ${join(dirname(OUT), 'results.md')}, the run's record in ${RUNS_DIR} and ${SVG}`);
  if (process.env.BENCH_STRICT === '1' && results.budgets.some((budget) => budget.pass === false)) process.exitCode = 1;
} finally {
  clearInterval(loadTimer);
  await browser.close();
  await main.close();
  await v3.close();
  await stormServer.close();
}

/**
 * Every condition in `replicas` contexts, created in a balanced order (forwards, then backwards), so
 * that whatever a context inherits from when and where it was made (its renderer process, its place
 * in memory) does not fall on one condition only; each checked and warmed up.
 */
async function setUpAll() {
  const instances = [];
  for (let replica = 0; replica < config.replicas; replica++) {
    for (const key of replica % 2 === 0 ? keys : [...keys].reverse()) {
      const server = servers[conditions[key].api];
      const opened = await openContext(browser, `${server.url}/bench.html`);
      const { large, ...calls } = await prepare(opened.page, conditions[key], server.user);
      instances.push({ key, replica, ...opened, calls, large });
    }
  }
  instances.sort((x, y) => x.replica - y.replica || keys.indexOf(x.key) - keys.indexOf(y.key));
  for (const instance of instances) {
    const controlled = await instance.page.evaluate(() => navigator.serviceWorker.controller?.scriptURL ?? null);
    if ((controlled === null) !== (instance.key === 'a')) throw new Error(`context ${instance.key}: controller ${controlled}`);
    for (const call of Object.values(instance.calls)) await sequential(instance.page, config.warmup, call.init, 200, call.url);
    if (instance.large !== undefined) await firstAndLast(instance.page, 3, instance.large.init, instance.large.url);
    if (throughputKeys.includes(instance.key)) await parallel(instance.page, config.parallelTotal, config.inFlight, instance.calls.cart.init);
  }
  // The profiler and the cold starts send the cart call as `instance.init`.
  for (const instance of instances) instance.init = instance.calls.cart.init;
  return instances;
}

/** Warm latency per call (sequential batches) and throughput (parallel batches), the contexts interleaved. */
async function measureWarm(instances) {
  const latency = {};
  const roundMedians = {};
  const throughput = Object.fromEntries(throughputKeys.map((key) => [key, []]));
  const add = (table, key, call, values) => ((table[key] ??= {})[call] ??= []).push(...values);
  for (let r = 0; r < config.rounds; r++) {
    const thisRound = {};
    for (const instance of rotate(instances, r % instances.length)) {
      for (const [call, { url, init }] of Object.entries(instance.calls)) {
        const count = call === 'cart' ? config.batch : Math.ceil(config.batch / 2);
        add(thisRound, instance.key, call, await sequential(instance.page, count, init, 200, url));
      }
    }
    for (const [key, calls] of Object.entries(thisRound)) {
      for (const [call, values] of Object.entries(calls)) {
        add(latency, key, call, values);
        add(roundMedians, key, call, [median(values)]);
      }
    }
    const timed = instances.filter((instance) => throughputKeys.includes(instance.key));
    for (const instance of rotate(timed, r % timed.length)) {
      const elapsed = await parallel(instance.page, config.parallelTotal, config.inFlight, instance.calls.cart.init);
      throughput[instance.key].push((config.parallelTotal / elapsed) * 1000);
    }
    if ((r + 1) % 5 === 0) log(`bench: round ${r + 1}/${config.rounds}, load average ${os.loadavg()[0].toFixed(2)}`);
  }
  return { latency, roundMedians, throughput };
}

/** The 200 KB cart document, to its first and last byte of body, the contexts interleaved. */
async function measureLarge(instances) {
  const times = {};
  for (let r = 0; r < Math.ceil(config.rounds / 2); r++) {
    for (const instance of rotate(instances, r % instances.length)) {
      (times[instance.key] ??= []).push(...(await firstAndLast(instance.page, config.largeCalls, instance.large.init, instance.large.url)));
    }
  }
  return times;
}

/** Requests the worker leaves alone (no respondWith): what they still pay for the worker. */
async function measureUntouched(instances) {
  const untouched = {};
  for (let r = 0; r < Math.ceil(config.rounds / 2); r++) {
    for (const instance of rotate(instances, r % instances.length)) {
      (untouched[instance.key] ??= []).push(...(await sequential(instance.page, Math.ceil(config.batch / 2), {}, 200, '/api/v2/storefront/products/1')));
    }
  }
  return untouched;
}

/** Cold start: the worker stopped, then the first cart call. */
async function measureCold(instances) {
  const cold = Object.fromEntries(workerKeys.map((key) => [key, []]));
  const workers = instances.filter((instance) => workerKeys.includes(instance.key));
  for (let r = 0; r < config.coldRounds; r++) {
    for (const instance of rotate(workers, r % workers.length)) {
      await instance.stopWorkers();
      await sleep(20);
      const [first] = await sequential(instance.page, 1, instance.calls.cart.init, 200, instance.calls.cart.url);
      cold[instance.key].push(first);
    }
  }
  return cold;
}

/** Each dist file's size and its budget (scripts/budgets.ts). */
function measureSizes() {
  return Object.fromEntries(
    Object.entries(SIZE_BUDGETS).map(([file, { budget, ceiling }]) => {
      const bytes = readFileSync(join(distDir, file));
      return [file, { bytes: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length, budget, ceiling }];
    }),
  );
}

/**
 * What makes runs comparable: the worker files and the bench's workers and settings. Runs of the
 * same build are pooled for the medians of runs.
 */
function buildId() {
  const hash = createHash('sha256');
  for (const file of ['storefront-auth-sw.js', 'storefront-auth.js']) hash.update(readFileSync(join(distDir, file)));
  for (const file of ['floor-pipe-sw.js', 'floor-read-sw.js', 'floor-header-sw.js', 'floor-nav-sw.js', 'passthrough-sw.js']) hash.update(readFileSync(join(root, 'bench/site', file)));
  hash.update(JSON.stringify({ rounds: config.rounds, batch: config.batch, replicas: config.replicas, sealTokens: config.sealTokens }));
  return hash.digest('hex').slice(0, 12);
}

/** The results object: the summaries, this run's ratios, the medians of runs, and each budget's verdict. */
function assemble({ warm, large, untouched, cold, diskCold, navigation, profile, probe, storm, sizes }) {
  const lat = Object.fromEntries(Object.entries(warm.latency).map(([key, calls]) => [key, Object.fromEntries(Object.entries(calls).map(([call, values]) => [call, trimmedSummary(values)]))]));
  const tput = Object.fromEntries(throughputKeys.map((key) => [key, { median: median(warm.throughput[key]), rounds: warm.throughput[key].length }]));
  const coldSummary = Object.fromEntries(workerKeys.map((key) => [key, summary(cold[key])]));
  const tm = (key, call = 'cart') => lat[key][call].trimmedMean;
  /** Floor (a) of this run: the cheaper of its two forms, per call. */
  const floorA = (prefix, call) => Math.min(tm(`${prefix}aPipe`, call), tm(`${prefix}aRead`, call));
  const history = (key) => {
    // Per round, each context's median over its own batch; the median over rounds of c/b is a
    // paired ratio, less sensitive to drift between rounds than the ratio of pooled medians.
    const paired = pairedRatios(warm.roundMedians[key].cart, warm.roundMedians.b.cart);
    return { trimmedMean: tm(key) / tm('b'), median: lat[key].cart.median / lat.b.cart.median, pairedMedian: median(paired), pairedQuartiles: quartiles(paired), throughput: tput[key].median / tput.b.median };
  };
  const largeMs = Object.fromEntries(Object.entries(large).map(([key, values]) => [key, { first: trimmedSummary(values.map((value) => value.first)), last: trimmedSummary(values.map((value) => value.last)) }]));
  /** Floor (a) of the 200 KB document, to its first or last byte: the cheaper form this run. */
  const largeFloorA = (end) => Math.min(largeMs.aPipe[end].trimmedMean, largeMs.aRead[end].trimmedMean);
  const navTimes = Object.fromEntries(Object.entries(navigation.times).map(([key, values]) => [key, trimmedSummary(values)]));
  const navWithoutStart = Object.fromEntries(Object.entries(navigation.withoutStart.times).map(([key, values]) => [key, trimmedSummary(values)]));
  const ratios = {
    // Sealed (a body rewrite) against floor (a): cart and account documents are both sealed.
    'c/aFloor': tm('c') / floorA('', 'cart'),
    'd/aFloor': tm('d') / floorA('', 'cart'),
    'd account/aFloor': tm('d', 'account') / floorA('', 'account'),
    // Unsealed (a header added) against floor (b).
    'c0/bFloor': tm('c0') / tm('bFloor'),
    'd0/bFloor': tm('d0') / tm('bFloor'),
    'd0 account/bFloor': tm('d0', 'account') / tm('bFloor', 'account'),
    'd account/bFloor': tm('d', 'account') / tm('bFloor', 'account'),
    // Offline writes on with nothing queued, against off: what the option costs a request.
    'cw/c': tm('cw') / tm('c'),
    'dw/d': tm('dw') / tm('d'),
    'v3c/aFloor': tm('v3c') / floorA('v3', 'cart'),
    'v3d/aFloor': tm('v3d') / floorA('v3', 'cart'),
    // The 200 KB cart document, sealed as it streams, to its first and last byte, against floor (a).
    'c 200 KB first byte/aFloor': largeMs.c.first.trimmedMean / largeFloorA('first'),
    'c 200 KB last byte/aFloor': largeMs.c.last.trimmedMean / largeFloorA('last'),
    'd 200 KB first byte/aFloor': largeMs.d.first.trimmedMean / largeFloorA('first'),
    'd 200 KB last byte/aFloor': largeMs.d.last.trimmedMean / largeFloorA('last'),
    // The floors themselves, and the history against the pass-through worker.
    'aPipe/aRead': tm('aPipe') / tm('aRead'),
    'v3aPipe/v3aRead': tm('v3aPipe') / tm('v3aRead'),
    'bFloor/b': tm('bFloor') / tm('b'),
    'aFloor/b': floorA('', 'cart') / tm('b'),
    'c/b': tm('c') / tm('b'),
    'd/b': tm('d') / tm('b'),
    // Navigations: in Chromium as shipped, which starts a stopped worker beside the navigation (the
    // floor: any worker with these static routes), and in Chromium without that start.
    'navigation stopped/none': navTimes.stopped.trimmedMean / navTimes.none.trimmedMean,
    'navigation stopped/floor': navTimes.stopped.trimmedMean / navTimes.floor.trimmedMean,
    'navigation floor/none': navTimes.floor.trimmedMean / navTimes.none.trimmedMean,
    'navigation running/none': navTimes.running.trimmedMean / navTimes.none.trimmedMean,
    'navigation stopped/none, no start': navWithoutStart.stopped.trimmedMean / navWithoutStart.none.trimmedMean,
    // The page's cart call after a load that Chromium started the worker for, against the same call
    // to a worker that was running: whether the credentials were in memory by then.
    'cart call after a load, stopped/running': trimmedMean(navigation.cartCalls.stopped) / trimmedMean(navigation.cartCalls.running),
  };
  const coldExtra = { 'cold start c - b (ms)': coldSummary.c.median - coldSummary.b.median, 'cold start c - b, on-disk profile (ms)': diskCold.c.median - diskCold.b.median };
  const run = runRecord({ date: started.toISOString(), build: buildId(), loadAverage: { before: loadBefore[0], during: median(loadSamples), max: Math.max(...loadSamples), after: os.loadavg()[0] }, ratios, coldExtra, floorPick: { v2: tm('aPipe') <= tm('aRead') ? 'pipe' : 'read', v3: tm('v3aPipe') <= tm('v3aRead') ? 'pipe' : 'read' } });
  const runs = [...readRuns(RUNS_DIR).filter((record) => record.build === run.build && record.date !== run.date), run];
  const ofRuns = medianOfRuns(runs);
  /**
   * A worker's own script per warm call against its floor's: for a sealed call floor (a) in the form
   * that does what the worker does with a cart document (reads it, answers it as one chunk: the pipe
   * form's work per chunk runs in the browser, not in its script); floor (b) for an unsealed call.
   */
  const script = (key) => profile[key].usPerRequest.script;
  const scriptFloorA = script('aRead');
  const stormLimit = STORM_FACTOR * (storm.reference.refreshMedian + storm.reference.requestMedian);
  const atMost = (name, limit, value) => ({ name, limit: `<= ${round3(limit)}`, value, pass: value <= limit });
  /** A budget on a median of runs: pending (pass null) until FLOOR_RUNS runs of this build are in. */
  const ofRunsAtMost = (name, ratio, limit) => ({
    name: `${name} (median of ${runs.length} run${runs.length === 1 ? '' : 's'})`,
    limit: `<= ${round3(limit)}`,
    value: ofRuns.ratios[ratio].median,
    pass: runs.length < FLOOR_RUNS ? null : ofRuns.ratios[ratio].median <= limit,
  });
  const budgets = [
    ofRunsAtMost('sealed cart call, guest ÷ floor (a)', 'c/aFloor', FLOOR_RATIO),
    ofRunsAtMost('sealed cart call, signed in ÷ floor (a)', 'd/aFloor', FLOOR_RATIO),
    ofRunsAtMost('account call, sealing on ÷ floor (a)', 'd account/aFloor', FLOOR_RATIO),
    ofRunsAtMost('unsealed cart call, guest ÷ floor (b)', 'c0/bFloor', UNSEALED_FLOOR_RATIO),
    ofRunsAtMost('unsealed cart call, signed in ÷ floor (b)', 'd0/bFloor', UNSEALED_FLOOR_RATIO),
    ofRunsAtMost('unsealed account call ÷ floor (b)', 'd0 account/bFloor', UNSEALED_FLOOR_RATIO),
    ofRunsAtMost('spree-v3 sealed cart call, guest ÷ floor (a)', 'v3c/aFloor', FLOOR_RATIO),
    ofRunsAtMost('spree-v3 sealed cart call, signed in ÷ floor (a)', 'v3d/aFloor', FLOOR_RATIO),
    // The navigation budget, against no worker and against the navigation floor:
    // Chromium starts any stopped worker with these routes beside the navigation (navigation.mjs), so
    // stopped ÷ no worker is the floor's cost plus ours; the ratios show the floor's own, and the same
    // ratio in Chromium without the start.
    ofRunsAtMost('navigation, worker stopped ÷ no worker', 'navigation stopped/none', NAVIGATION_STOPPED_RATIO),
    ofRunsAtMost('navigation, worker stopped ÷ the navigation floor stopped', 'navigation stopped/floor', NAVIGATION_STOPPED_RATIO),
    {
      name: 'a stopped worker woken by a navigation: Chromium as shipped; without the start',
      limit: `floor and storefront-auth alike; 0`,
      value: `${navigation.woke.floor} and ${navigation.woke.stopped} of ${config.navigationRounds}; ${navigation.withoutStart.woke.stopped}`,
      pass: navigation.withoutStart.woke.stopped === 0 && navigation.woke.stopped <= navigation.woke.floor,
    },
    {
      name: 'fetch events for paths outside the storefront during navigations (running; stopped)',
      limit: '0; 0',
      value: `${navigation.fetchEvents.running.outsideStorefrontPaths}; ${navigation.fetchEvents.stopped.outsideStorefrontPaths}`,
      // The counter's control (one cart call logged one fetch event) shows it would see them.
      pass: navigation.fetchEvents.running.outsideStorefrontPaths === 0 && navigation.fetchEvents.stopped.outsideStorefrontPaths === 0 && navigation.fetchEvents.controlCartCallEvents === 1,
    },
    atMost('own-script CPU per warm sealed call, guest ÷ floor (a), read form', FLOOR_SCRIPT_RATIO, script('c') / scriptFloorA),
    atMost('own-script CPU per warm sealed call, signed in ÷ floor (a), read form', FLOOR_SCRIPT_RATIO, script('d') / scriptFloorA),
    atMost('own-script CPU per warm unsealed call, guest ÷ floor (b)', FLOOR_SCRIPT_RATIO, script('c0') / script('bFloor')),
    atMost('own-script CPU per warm unsealed call, signed in ÷ floor (b)', FLOOR_SCRIPT_RATIO, script('d0') / script('bFloor')),
    atMost('cold start c - b (median, ms; this run)', COLD_START_EXTRA_MS, coldExtra['cold start c - b (ms)']),
    { ...ofRunsAtMost('cold start c - b (ms)', 'cold start c - b (ms)', COLD_START_EXTRA_MS) },
    atMost('cold start c - b, on-disk profile (median, ms; this run)', COLD_START_EXTRA_MS, coldExtra['cold start c - b, on-disk profile (ms)']),
    atMost('storm (median of rounds, ms)', stormLimit, storm.summary.median),
    // The same budget on what the refresh adds: the 10-tab burst alone takes this machine longer
    // than the whole limit, through any worker (see "10 tabs at once through the pass-through worker").
    atMost('storm minus the same burst without a refresh (median of rounds, ms)', stormLimit, storm.summary.overControlMedian),
    { name: 'storm: one refresh per expiry', limit: '1 each round', value: storm.rounds.map((round) => round.refreshGrants).join(','), pass: storm.rounds.every((round) => round.refreshGrants === 1) },
    { name: 'IndexedDB transactions on warm requests', limit: '0', value: probe.warmIdbTransactions, pass: probe.warmIdbTransactions === 0 },
    { name: 'respondWith on requests needing no credential', limit: '0', value: probe.noCredentialRespondWith, pass: probe.noCredentialRespondWith === 0 && probe.controlOk },
    ...Object.entries(sizes)
      .filter(([, size]) => size.budget !== null)
      .map(([file, size]) => atMost(`gzip ${file} (B)`, size.budget, size.gzip)),
  ];
  return {
    date: started.toISOString(),
    durationS: Math.round((Date.now() - started.getTime()) / 1000),
    machine: {
      cpu: os.cpus()[0]?.model ?? 'unknown',
      cores: os.cpus().length,
      memoryGiB: Math.round(os.totalmem() / 2 ** 30),
      os: `${os.type()} ${os.release()} ${os.arch()}`,
      node: process.version,
      chromium: browser.version(),
      loadAverageBefore: loadBefore.map((value) => Math.round(value * 100) / 100),
      loadAverageDuring: { median: median(loadSamples), max: Math.max(...loadSamples) },
      loadAverageAfter: os.loadavg().map((value) => Math.round(value * 100) / 100),
    },
    config,
    contexts: Object.fromEntries(keys.map((key) => [key, conditions[key].label])),
    latencyMs: lat,
    largeCartMs: largeMs,
    roundMediansMs: warm.roundMedians,
    throughputPerS: tput,
    ratios,
    history: { 'c/b': history('c'), 'd/b': history('d') },
    run,
    runs: ofRuns,
    navigation: { url: navigation.url, documentMs: navTimes, cartCallAfterMs: navigation.cartCallAfterMs, cartCallMs: Object.fromEntries(Object.entries(navigation.cartCalls).map(([key, values]) => [key, trimmedSummary(values)])), woke: navigation.woke, withoutStart: { documentMs: navWithoutStart, woke: navigation.withoutStart.woke }, fetchEvents: navigation.fetchEvents },
    untouchedLatencyMs: Object.fromEntries(Object.entries(untouched).map(([key, values]) => [key, summary(values)])),
    coldStartMs: coldSummary,
    coldStartOnDiskProfileMs: diskCold,
    workerProfile: profile,
    storm,
    requestPath: probe,
    sizes,
    budgets,
  };
}
