// `npm run bench:profile`: the worker-thread profile alone (profile.mjs), for storefront-auth and for
// the floor workers it is held against, so that "its own script" compares like with like: a sealed
// call against floor (a) (the body rebuilt), an unsealed one against floor (b) (one header set).
// Quicker and steadier than the full bench's timings (CPU per call, not latency), for guiding work.
// Environment: BENCH_PROFILE_REQUESTS (per worker, 300), BENCH_PROFILE_KEYS (comma-separated
// conditions of conditions.mjs, v2 or spree-v3; default the floors and c, d, c0, d0), BENCH_PROFILE_TOP
// (hottest lines shown per worker, 12), BENCH_DIST (the folder
// of the built files to profile, default dist/: another release's, to compare), CHROMIUM_PATH.
// One more key than the bench's: `aStack`, the stack's floor (floorStack/floor-stack-sw.js, bundled
// here): floor (a) with Workbox's Router and the request copy that any worker built as this one is pays.
import { build } from 'esbuild';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startStorefront } from '../../demo/storefront/server.mjs';
import { launch, openContext, sequential } from './browser.mjs';
import { CONDITIONS, prepare } from './conditions.mjs';
import { profileWorker } from './profile.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dist = process.env.BENCH_DIST ?? join(root, 'dist');
if (!existsSync(join(dist, 'storefront-auth-sw.js'))) throw new Error(`${dist}/storefront-auth-sw.js is missing; run npm run build first`);
const requests = Number(process.env.BENCH_PROFILE_REQUESTS ?? 300);
const keys = (process.env.BENCH_PROFILE_KEYS ?? 'b,aPipe,aRead,bFloor,c,d,c0,d0').split(',');
const conditions = { ...CONDITIONS, aStack: { label: "the stack's floor: Workbox, the copy, one header, the first chunk rebuilt", api: 'v2', worker: '/floor-stack-sw.js', calls: ['cart'] } };
for (const key of keys) if (conditions[key] === undefined || conditions[key].worker === null) throw new Error(`BENCH_PROFILE_KEYS: ${key} is no worker condition of conditions.mjs, nor aStack`);

// The stack's floor imports Workbox, so it is bundled as the dist files are (process.env defined).
const stackDir = mkdtempSync(join(tmpdir(), 'floor-stack-'));
await build({ entryPoints: [join(root, 'scripts/bench/floorStack/floor-stack-sw.js')], bundle: true, minify: true, define: { 'process.env.NODE_ENV': '"production"' }, outfile: join(stackDir, 'floor-stack-sw.js'), logLevel: 'warning' });
const mounts = [{ prefix: '/', dir: join(root, 'bench/site') }, { prefix: '/', dir: stackDir }, { prefix: '/', dir: dist }];
const servers = { v2: await startStorefront({ port: 0, static: mounts }), v3: await startStorefront({ port: 0, static: mounts, flavour: 'spree-v3' }) };
const browser = await launch();
try {
  const rows = [];
  for (const key of keys) {
    const server = servers[conditions[key].api];
    const opened = await openContext(browser, `${server.url}/bench.html`);
    const calls = await prepare(opened.page, conditions[key], server.user);
    const instance = { key, ...opened, init: calls.cart.init, url: calls.cart.url };
    await sequential(opened.page, 60, calls.cart.init, 200, calls.cart.url);
    const profile = await profileWorker(browser, instance, requests, dist);
    rows.push([key, profile]);
    await opened.context.close();
  }
  console.log(`worker thread, µs of CPU per warm cart call (${requests} calls each; ${dist}):`);
  console.log('| worker | busy | its own script | its fetch() calls | the rest |');
  console.log('|---|---:|---:|---:|---:|');
  for (const [key, { usPerRequest: us }] of rows) console.log(`| (${key}) ${conditions[key].label} | ${us.busy} | ${us.script} | ${us.fetchCalls} | ${us.other} |`);
  for (const [key, profile] of rows) {
    console.log(`\n(${key}) hottest lines of its own script, µs per call:`);
    for (const line of profile.scriptTop) console.log(`  ${line.us}  ${line.where}`);
  }
} finally {
  await browser.close();
  for (const server of Object.values(servers)) await server.close();
  rmSync(stackDir, { recursive: true, force: true });
}
