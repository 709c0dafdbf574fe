// `npm run bench:storm`: the refresh storm alone (storm.mjs), more rounds than the full bench gives
// it, with the server's timeline of each round: the storm's profile in time rather than CPU, since
// what it adds over the same burst is mostly waiting (the lock, storage, the grant's round trip).
// Environment: BENCH_STORM_ROUNDS (default 9), BENCH_STORM_LIFETIME (s, 3), BENCH_SEAL (0: sealing
// off), BENCH_DIST (the folder of the built files to time, default dist/: another release's, to
// compare), CHROMIUM_PATH.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startStorefront } from '../../demo/storefront/server.mjs';
import { STORM_FACTOR } from '../budgets.ts';
import { launch } from './browser.mjs';
import { describePhases, formatMs, runStorm } from './storm.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const rounds = Number(process.env.BENCH_STORM_ROUNDS ?? 9);
const lifetime = Number(process.env.BENCH_STORM_LIFETIME ?? 3);
if (!(rounds > 0 && lifetime > 0)) throw new Error('BENCH_STORM_ROUNDS and BENCH_STORM_LIFETIME must be positive numbers');
const dist = process.env.BENCH_DIST ?? join(root, 'dist');
if (!existsSync(join(dist, 'storefront-auth-sw.js'))) throw new Error(`${dist}/storefront-auth-sw.js is missing; run npm run build first (npm run bench:storm does)`);
const config = { stormRounds: rounds, stormTabs: 10, stormLifetime: lifetime, referenceSamples: 10 };
const dropIn = process.env.BENCH_SEAL === '0' ? { sealTokens: 'false' } : {};

const server = await startStorefront({ port: 0, static: [{ prefix: '/', dir: join(root, 'bench/site') }, { prefix: '/', dir: dist }], accessTokenLifetime: lifetime });
const browser = await launch();
try {
  const storm = await runStorm(browser, server, config, dropIn);
  const f = formatMs;
  console.log(`refresh storm, ${storm.tabs} tabs, sealing ${dropIn.sealTokens ? 'off' : 'on'}, ${rounds} rounds; ms after the first tab's request started, as the server saw it:`);
  console.log('round | storm | control | grant arrived | grant answered | first cart | last cart answered | control: first cart, last answered | grants');
  storm.rounds.forEach((round, index) => {
    const p = round.phases;
    const c = round.controlPhases;
    console.log(`${index + 1} | ${f(round.ms)} | ${f(round.controlMs)} | ${f(p.grantArrived)} | ${f(p.grantAnswered)} | ${f(p.firstCartArrived)} | ${f(p.lastCartAnswered)} | ${f(c.firstCartArrived)}, ${f(c.lastCartAnswered)} | ${round.refreshGrants}`);
  });
  const limit = STORM_FACTOR * (storm.reference.refreshMedian + storm.reference.requestMedian);
  console.log(`medians: storm ${f(storm.summary.median)}, control ${f(storm.summary.controlMedian)}, storm − control ${f(storm.summary.overControlMedian)} (limit ${f(limit)}); one refresh round trip from a page ${f(storm.reference.refreshMedian)}`);
  console.log(describePhases(storm).join('\n'));
} finally {
  await browser.close();
  await server.close();
}
