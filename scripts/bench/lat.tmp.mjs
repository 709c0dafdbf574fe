// scratch: interleaved latency of a few contexts, paired per round
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startStorefront } from '../../demo/storefront/server.mjs';
import { launch, openContext, sequential } from './browser.mjs';
import { CONDITIONS, prepare } from './conditions.mjs';
import { median, trimmedMean } from './stats.mjs';
const root = fileURLToPath(new URL('../..', import.meta.url));
const dist = process.env.BENCH_DIST ?? join(root, 'dist');
const keys = (process.env.KEYS ?? 'aPipe,aRead,bFloor,c,d,c0').split(',');
const rounds = Number(process.env.ROUNDS ?? 40);
const server = await startStorefront({ port: 0, static: [{ prefix: '/', dir: join(root, 'bench/site') }, { prefix: '/', dir: dist }] });
const browser = await launch();
try {
  const inst = [];
  for (const key of keys) { const o = await openContext(browser, `${server.url}/bench.html`); const { large, ...calls } = await prepare(o.page, CONDITIONS[key], server.user); await sequential(o.page, 50, calls.cart.init, 200, calls.cart.url); inst.push({ key, o, calls }); }
  const all = {}; const per = {};
  for (let r = 0; r < rounds; r++) {
    const order = [...inst.slice(r % inst.length), ...inst.slice(0, r % inst.length)];
    for (const i of order) { const t = await sequential(i.o.page, 10, i.calls.cart.init, 200, i.calls.cart.url); (all[i.key] ??= []).push(...t); (per[i.key] ??= []).push(median(t)); }
  }
  const tm = (k) => trimmedMean(all[k]);
  for (const k of keys) console.log(k.padEnd(7), tm(k).toFixed(3));
  const floorA = Math.min(tm('aPipe'), tm('aRead'));
  const pr = (x, y) => median(per[x].map((v, i) => v / per[y][i])).toFixed(3);
  console.log(`c/aFloor ${(tm('c') / floorA).toFixed(3)} d/aFloor ${(tm('d') / floorA).toFixed(3)} c0/bFloor ${(tm('c0') / tm('bFloor')).toFixed(3)} | paired c/aPipe ${pr('c', 'aPipe')} c/aRead ${pr('c', 'aRead')} d/aPipe ${pr('d', 'aPipe')} c0/bFloor ${pr('c0', 'bFloor')} aPipe/aRead ${pr('aPipe', 'aRead')}`);
} finally { await browser.close(); await server.close(); }
