// The performance bench (`npm run bench`): what a shopper pays for the worker, measured against a
// bare pass-through worker in the same Chromium run. Four conditions, each in BENCH_REPLICAS
// browser contexts on one reference storefront, call GET /api/v2/storefront/cart:
//   a  no worker (the page sends its own order-token header)
//   b  a bare pass-through worker, respondWith(fetch(request)) (the page sends its own header)
//   c  storefront-auth, a guest holding a cart (the worker adds the order-token header)
//   d  storefront-auth, signed in (the worker adds the bearer)
// so the server does the same work for each and only the browser side differs. Rounds interleave
// the contexts in rotating order, so drift (other processes, GC, thermal) falls on all of them.
//
// This file runs the steps in order; each lives in a module of its own:
//   browser.mjs   Chromium, contexts whose workers can be stopped, the page's request helpers
//   stats.mjs     medians, percentiles, paired ratios
//   coldStart.mjs cold starts on an on-disk profile (a second, persistent Chromium)
//   profile.mjs   CPU per request on the worker thread (V8's sampling profiler over CDP)
//   probe.mjs     request-path checks with a counting copy of the worker (bench/site/probe-sw.js)
//   storm.mjs     the refresh storm: 10 tabs, expired token, beside two controls without a refresh
//   report.mjs    bench/results.md and docs/bench.svg
// The budgets are scripts/budgets.ts, shared with the size test. Writes bench/results.json,
// bench/results.md and docs/bench.svg, and prints the Markdown. Exits 0 whatever the verdicts
// (BENCH_STRICT=1: exits 1 when a budget fails).
//
// Environment: BENCH_ROUNDS (default 20), BENCH_BATCH (sequential requests per context per round,
// 20), BENCH_PARALLEL (requests per throughput batch, 64), BENCH_COLD_ROUNDS (10),
// BENCH_STORM_ROUNDS (3), BENCH_STORM_LIFETIME (access-token lifetime of the storm, s, 3),
// BENCH_REPLICAS (contexts per condition, 2), BENCH_PROFILE_REQUESTS (per profiled worker, 300),
// BENCH_SEAL (0: sealed tokens off in c and d), BENCH_OUT (bench/results.json), BENCH_SVG
// (docs/bench.svg), CHROMIUM_PATH.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { startStorefront } from '../../demo/storefront/server.mjs';
import { COLD_START_EXTRA_MS, LATENCY_RATIO, SCRIPT_CPU_RATIO, SIZE_BUDGETS, STORM_FACTOR } from '../budgets.ts';
import { evaluate, launch, openContext, parallel, PRODUCT, sequential, sleep } from './browser.mjs';
import { runDiskColdStart } from './coldStart.mjs';
import { runProbe } from './probe.mjs';
import { profileWorker } from './profile.mjs';
import { renderMarkdown, renderSvg } from './report.mjs';
import { median, pairedRatios, quartiles, rotate, round3, summary } from './stats.mjs';
import { runStorm } from './storm.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const distDir = join(root, 'dist');
const number = (name, fallback) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, not ${process.env[name]}`);
  return value;
};
const config = {
  rounds: number('BENCH_ROUNDS', 20),
  batch: number('BENCH_BATCH', 20),
  parallelTotal: number('BENCH_PARALLEL', 64),
  inFlight: 8,
  warmup: 30,
  coldRounds: number('BENCH_COLD_ROUNDS', 10),
  stormRounds: number('BENCH_STORM_ROUNDS', 3),
  stormTabs: 10,
  stormLifetime: number('BENCH_STORM_LIFETIME', 3),
  referenceSamples: 10,
  replicas: number('BENCH_REPLICAS', 2),
  profileRequests: number('BENCH_PROFILE_REQUESTS', 300),
  /** BENCH_SEAL=0 times contexts c and d with sealed tokens off, to tell their cost from the rest. */
  sealTokens: process.env['BENCH_SEAL'] !== '0',
};
/** The drop-in's attributes for contexts c and d. */
const dropIn = config.sealTokens ? {} : { sealTokens: 'false' };
const OUT = process.env.BENCH_OUT ?? join(root, 'bench/results.json');
const SVG = process.env.BENCH_SVG ?? join(root, 'docs/bench.svg');

const CONTEXTS = {
  a: 'no worker',
  b: 'pass-through worker',
  c: 'storefront-auth, guest',
  d: 'storefront-auth, signed in',
};
const keys = Object.keys(CONTEXTS);
/** The conditions with a worker: cold starts and profiles. */
const workerKeys = ['b', 'c', 'd'];

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
const main = await startStorefront({ port: 0, static: mounts });
const stormServer = await startStorefront({ port: 0, static: mounts, accessTokenLifetime: config.stormLifetime });
const browser = await launch();
try {
  log(`bench: Chromium ${browser.version()}, storefront ${main.url}, ${config.rounds} rounds`);
  const page = `${main.url}/bench.html`;
  const instances = await setUpAll(page);
  const warm = await measureWarm(instances);
  const untouched = await measureUntouched(instances);
  main.clearLog();
  const cold = await measureCold(instances);
  log('bench: cold starts done');
  const diskCold = await runDiskColdStart({ mainUrl: main.url, mounts, config, dropIn });
  log('bench: cold starts on an on-disk profile done');
  const profile = {};
  for (const key of workerKeys) {
    const instance = instances.find((candidate) => candidate.key === key);
    await sequential(instance.page, config.warmup, instance.init);
    profile[key] = await profileWorker(browser, instance, config.profileRequests, distDir);
  }
  log('bench: worker profiles done');
  const probe = await runProbe(browser, main, page);
  log('bench: request-path checks done');
  const storm = await runStorm(browser, stormServer, config, dropIn);
  log('bench: storm done');

  const results = assemble({ warm, untouched, cold, diskCold, profile, probe, storm, sizes: measureSizes() });
  mkdirSync(dirname(OUT), { recursive: true });
  writeFileSync(OUT, `${JSON.stringify(results, (key, value) => (typeof value === 'number' && !Number.isInteger(value) ? round3(value) : value), 2)}\n`);
  const markdown = renderMarkdown(results);
  writeFileSync(join(dirname(OUT), 'results.md'), markdown);
  mkdirSync(dirname(SVG), { recursive: true });
  writeFileSync(SVG, renderSvg(results));
  process.stdout.write(markdown);
  log(`bench: wrote ${OUT}, ${join(dirname(OUT), 'results.md')} and ${SVG}`);
  if (process.env.BENCH_STRICT === '1' && results.budgets.some((budget) => !budget.pass)) process.exitCode = 1;
} finally {
  await browser.close();
  await main.close();
  await stormServer.close();
}

/**
 * Every condition in `replicas` contexts, created in a balanced order (a b c d, then d c b a), so
 * that whatever a context inherits from when and where it was made (its renderer process, its
 * place in memory) does not fall on one condition only; each checked and warmed up.
 */
async function setUpAll(page) {
  const instances = [];
  for (let replica = 0; replica < config.replicas; replica++) {
    for (const key of replica % 2 === 0 ? keys : [...keys].reverse()) instances.push(await setUp(page, key, replica));
  }
  instances.sort((x, y) => x.replica - y.replica || keys.indexOf(x.key) - keys.indexOf(y.key));
  for (const instance of instances) {
    const controlled = await evaluate(instance.page, () => navigator.serviceWorker.controller?.scriptURL ?? null);
    if ((controlled === null) !== (instance.key === 'a')) throw new Error(`context ${instance.key}: controller ${controlled}`);
    await sequential(instance.page, config.warmup, instance.init);
    await parallel(instance.page, config.parallelTotal, config.inFlight, instance.init);
  }
  return instances;
}

/** One context of condition `key`, ready to send cart requests that get the same answer in all four. */
async function setUp(page, key, replica) {
  const instance = { key, replica, ...(await openContext(browser, page)), init: {} };
  const tab = instance.page;
  if (key === 'b') await evaluate(tab, () => window.bench.registerPassThrough());
  if (key === 'a' || key === 'b') {
    // The page holds its own cart and sends its own header, as a site without storefront-auth would.
    instance.init = { headers: { 'X-Store-Order-Token': await evaluate(tab, () => window.bench.ownCart()) } };
  } else {
    await evaluate(tab, (attributes) => window.bench.loadDropIn(attributes), dropIn);
    if (key === 'd') await evaluate(tab, (user) => window.storefrontAuth.login(user), main.user);
    await evaluate(tab, () => window.storefrontAuth.createCart());
  }
  return instance;
}

/** Warm latency (sequential batches) and throughput (parallel batches), the contexts interleaved. */
async function measureWarm(instances) {
  const latency = Object.fromEntries(keys.map((key) => [key, []]));
  const roundMedians = Object.fromEntries(keys.map((key) => [key, []]));
  const throughput = Object.fromEntries(keys.map((key) => [key, []]));
  for (let r = 0; r < config.rounds; r++) {
    const thisRound = Object.fromEntries(keys.map((key) => [key, []]));
    for (const instance of rotate(instances, r % instances.length)) {
      thisRound[instance.key].push(...(await sequential(instance.page, config.batch, instance.init)));
    }
    for (const key of keys) {
      latency[key].push(...thisRound[key]);
      roundMedians[key].push(median(thisRound[key]));
    }
    for (const instance of rotate(instances, (r + instances.length / 2) % instances.length)) {
      const elapsed = await parallel(instance.page, config.parallelTotal, config.inFlight, instance.init);
      throughput[instance.key].push((config.parallelTotal / elapsed) * 1000);
    }
    if ((r + 1) % 5 === 0) log(`bench: round ${r + 1}/${config.rounds}`);
  }
  return { latency, roundMedians, throughput };
}

/** Requests the worker leaves alone (no respondWith): what they still pay for the worker. */
async function measureUntouched(instances) {
  const untouched = Object.fromEntries(keys.map((key) => [key, []]));
  for (let r = 0; r < Math.ceil(config.rounds / 2); r++) {
    for (const instance of rotate(instances, r % instances.length)) {
      untouched[instance.key].push(...(await sequential(instance.page, Math.ceil(config.batch / 2), {}, 200, PRODUCT)));
    }
  }
  return untouched;
}

/** Cold start: the worker stopped, then the first request. */
async function measureCold(instances) {
  const cold = Object.fromEntries(workerKeys.map((key) => [key, []]));
  const workers = instances.filter((instance) => workerKeys.includes(instance.key));
  for (let r = 0; r < config.coldRounds; r++) {
    for (const instance of rotate(workers, r % workers.length)) {
      await instance.stopWorkers();
      await sleep(20);
      const [first] = await sequential(instance.page, 1, instance.init);
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

/** The results object: the summaries, the ratios, and each budget's verdict. */
function assemble({ warm, untouched, cold, diskCold, profile, probe, storm, sizes }) {
  const lat = Object.fromEntries(keys.map((key) => [key, summary(warm.latency[key])]));
  const tput = Object.fromEntries(keys.map((key) => [key, { median: median(warm.throughput[key]), rounds: warm.throughput[key].length }]));
  const coldSummary = Object.fromEntries(workerKeys.map((key) => [key, summary(cold[key])]));
  const ratio = (key) => {
    // Per round, each context's median over its own batch; the median over rounds of c/b is a
    // paired ratio, less sensitive to drift between rounds than the ratio of pooled medians.
    const paired = pairedRatios(warm.roundMedians[key], warm.roundMedians.b);
    return { median: lat[key].median / lat.b.median, p95: lat[key].p95 / lat.b.p95, pairedMedian: median(paired), pairedQuartiles: quartiles(paired), throughput: tput[key].median / tput.b.median };
  };
  const ratios = { 'c/b': ratio('c'), 'd/b': ratio('d') };
  const scriptCpu = (key) => profile[key].usPerRequest.script / profile.b.usPerRequest.script;
  const stormLimit = STORM_FACTOR * (storm.reference.refreshMedian + storm.reference.requestMedian);
  const atMost = (name, limit, value) => ({ name, limit: `<= ${round3(limit)}`, value, pass: value <= limit });
  const budgets = [
    atMost('median latency c/b', LATENCY_RATIO, ratios['c/b'].median),
    atMost('median latency d/b', LATENCY_RATIO, ratios['d/b'].median),
    atMost('median latency c/b, paired per round', LATENCY_RATIO, ratios['c/b'].pairedMedian),
    atMost('median latency d/b, paired per round', LATENCY_RATIO, ratios['d/b'].pairedMedian),
    atMost('own-script CPU per warm request c/b', SCRIPT_CPU_RATIO, scriptCpu('c')),
    atMost('own-script CPU per warm request d/b', SCRIPT_CPU_RATIO, scriptCpu('d')),
    atMost('cold start c - b (median, ms)', COLD_START_EXTRA_MS, coldSummary.c.median - coldSummary.b.median),
    atMost('cold start c - b, on-disk profile (median, ms)', COLD_START_EXTRA_MS, diskCold.c.median - diskCold.b.median),
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
      loadAverageAfter: os.loadavg().map((value) => Math.round(value * 100) / 100),
    },
    config,
    contexts: CONTEXTS,
    latencyMs: lat,
    roundMediansMs: warm.roundMedians,
    throughputPerS: tput,
    ratios,
    untouchedLatencyMs: Object.fromEntries(keys.map((key) => [key, summary(untouched[key])])),
    coldStartMs: coldSummary,
    coldStartOnDiskProfileMs: diskCold,
    workerProfile: profile,
    storm,
    requestPath: probe,
    sizes,
    budgets,
  };
}
