// Where a cold start's time goes (`npm run bench:cold`): the first request after the worker was
// stopped, for the pass-through worker (b) and storefront-auth as a guest (c), with V8's sampling
// profiler on the worker thread from its very first instruction. Playwright attaches to a worker only
// once it runs, so this speaks CDP itself: Chromium is started with a debugging port, and every new
// target is attached paused (Target.setAutoAttach, waitForDebuggerOnStart), which lets the profiler
// start before the worker script is compiled. Prints, per worker, the median over the rounds of:
// the page's time for the request, the thread's busy time split into compiling and running the
// script's top level, its handlers, fetch(), V8's (program) and GC, and the idle time in between
// (waiting for IndexedDB or the network; it includes the 50 ms the script waits before stopping the
// profiler). BENCH_COLD_ROUNDS (default 10), CHROMIUM_PATH.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { startStorefront } from '../../demo/storefront/server.mjs';
import { ARGS, CART, executablePath, sleep } from './browser.mjs';
import { analyseProfile } from './profile.mjs';
import { median } from './stats.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const distDir = join(root, 'dist');
const rounds = Number(process.env.BENCH_COLD_ROUNDS ?? 10);
const mounts = [
  { prefix: '/', dir: join(root, 'bench/site') },
  { prefix: '/', dir: distDir },
];

/** Chromium with a debugging port, and a CDP connection to it (flat sessions). */
async function openBrowser() {
  const userDataDir = mkdtempSync(join(os.tmpdir(), 'storefront-auth-cold-'));
  const path = executablePath() ?? '/usr/lib/chromium/chromium';
  const child = spawn(path, [...ARGS, '--remote-debugging-port=0', `--user-data-dir=${userDataDir}`, 'about:blank'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const endpoint = await new Promise((resolve, reject) => {
    let text = '';
    child.stderr.on('data', (chunk) => {
      text += chunk;
      const found = /DevTools listening on (ws:\/\/\S+)/.exec(text);
      if (found) resolve(found[1]);
    });
    child.on('exit', () => reject(new Error(`Chromium exited before listening: ${text.slice(-500)}`)));
  });
  const socket = new WebSocket(endpoint, { perMessageDeflate: false });
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  let lastId = 0;
  const pending = new Map();
  const listeners = new Set();
  socket.on('message', (data) => {
    const message = JSON.parse(String(data));
    if (message.id !== undefined) {
      const { resolve, reject, method } = pending.get(message.id);
      pending.delete(message.id);
      if (message.error) reject(new Error(`${method}: ${message.error.message}`));
      else resolve(message.result);
    } else for (const listener of listeners) listener(message);
  });
  const send = (method, params = {}, sessionId = undefined) =>
    new Promise((resolve, reject) => {
      const id = ++lastId;
      pending.set(id, { resolve, reject, method });
      socket.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    });
  const close = async () => {
    socket.close();
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill();
    await exited;
    rmSync(userDataDir, { recursive: true, force: true, maxRetries: 5 });
  };
  return { send, listeners, close };
}

/** Evaluates `expression` (awaiting a promise) in the page of `sessionId`. */
async function evaluate(send, sessionId, expression) {
  const { result, exceptionDetails } = await send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true }, sessionId);
  if (exceptionDetails) throw new Error(`${expression}: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
  return result.value;
}

/** Splits one cold start's profile: busy time by kind, and the idle time between. */
function splitProfile(profile, scriptUrl) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const ms = { topLevel: 0, handlers: 0, fetch: 0, program: 0, gc: 0, other: 0, idle: 0 };
  for (let i = 0; i < profile.samples.length; i++) {
    const leaf = nodes.get(profile.samples[i]);
    const micros = profile.timeDeltas[i + 1] ?? 0;
    if (leaf.callFrame.functionName === '(idle)') {
      ms.idle += micros / 1000;
      continue;
    }
    // The outermost frame of the worker script: its top level (compiled and run once), or a handler.
    let outer = null;
    for (let id = leaf.id; id !== undefined; id = parents.get(id)) if (nodes.get(id).callFrame.url === scriptUrl) outer = nodes.get(id).callFrame;
    if (leaf.callFrame.url === '' && leaf.callFrame.functionName === 'fetch') ms.fetch += micros / 1000;
    else if (outer !== null) ms[outer.functionName === '' && outer.lineNumber === 0 ? 'topLevel' : 'handlers'] += micros / 1000;
    else if (leaf.callFrame.functionName === '(program)') ms.program += micros / 1000;
    else if (leaf.callFrame.functionName === '(garbage collector)') ms.gc += micros / 1000;
    else ms.other += micros / 1000;
  }
  return ms;
}

const storefronts = { b: await startStorefront({ port: 0, static: mounts }), c: await startStorefront({ port: 0, static: mounts }) };
const browser = await openBrowser();
const { send, listeners } = browser;
try {
  /** Set while a cold request is measured: the worker target about to start gets the profiler. */
  let armed = null;
  const pages = new Map();
  /** The service workers' sessions, by session: a stopped worker restarts in the same target. */
  const workers = new Map();
  /** Starts the profiler on a worker that waits for the debugger, when a cold request is armed. */
  const resume = async (sessionId) => {
    if (armed !== null) {
      const profiling = armed;
      armed = null;
      await send('Profiler.enable', {}, sessionId);
      await send('Profiler.setSamplingInterval', { interval: 50 }, sessionId);
      await send('Profiler.start', {}, sessionId);
      profiling.resolve({ sessionId, url: workers.get(sessionId) });
    }
    await send('Runtime.runIfWaitingForDebugger', {}, sessionId).catch(() => {});
  };
  listeners.add(async (message) => {
    if (process.env.COLD_DEBUG) process.stderr.write(`${message.method} ${JSON.stringify(message.params).slice(0, 200)}\n`);
    if (message.method === 'Target.attachedToTarget') {
      const { sessionId, targetInfo, waitingForDebugger } = message.params;
      if (targetInfo.type === 'page') pages.set(targetInfo.targetId, sessionId);
      if (targetInfo.type === 'service_worker') workers.set(sessionId, targetInfo.url);
      if (waitingForDebugger) await send('Runtime.runIfWaitingForDebugger', {}, sessionId).catch(() => {});
    }
    // Chromium reports a worker stopped over CDP as a crash of its target, and its restart as a
    // reload of the same target, paused until the debugger lets it run.
    if (message.method === 'Inspector.targetReloadedAfterCrash' && workers.has(message.sessionId)) await resume(message.sessionId);
  });
  await send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true });

  const setUp = {
    b: `(async () => { await window.bench.registerPassThrough(); return { headers: { 'X-Store-Order-Token': await window.bench.ownCart() } }; })()`,
    c: `(async () => { await window.bench.loadDropIn({}); await window.storefrontAuth.createCart(); return {}; })()`,
  };
  const tabs = {};
  for (const key of ['b', 'c']) {
    const { targetId } = await send('Target.createTarget', { url: `${storefronts[key].url}/bench.html` });
    while (!pages.has(targetId)) await sleep(10);
    const sessionId = pages.get(targetId);
    while (!(await evaluate(send, sessionId, "document.readyState === 'complete' && typeof window.bench === 'object'").catch(() => false))) await sleep(20);
    process.stderr.write(`cold profile: (${key}) page loaded\n`);
    const init = await evaluate(send, sessionId, setUp[key]);
    process.stderr.write(`cold profile: (${key}) set up\n`);
    await send('ServiceWorker.enable', {}, sessionId);
    await evaluate(send, sessionId, `window.bench.sequential(30, '${CART}', ${JSON.stringify(init)}, 200)`);
    tabs[key] = { sessionId, init };
  }

  const results = { b: [], c: [] };
  for (let round = 0; round < rounds; round++) {
    for (const key of round % 2 ? ['c', 'b'] : ['b', 'c']) {
      const { sessionId, init } = tabs[key];
      await send('ServiceWorker.stopAllWorkers', {}, sessionId);
      await sleep(300);
      const started = new Promise((resolve) => (armed = { resolve }));
      const [requestMs] = await evaluate(send, sessionId, `window.bench.sequential(1, '${CART}', ${JSON.stringify(init)}, 200)`);
      const worker = await Promise.race([started, sleep(2000).then(() => null)]);
      if (worker === null) throw new Error(`(${key}) the worker did not start for the cold request`);
      await sleep(50);
      const { profile } = await send('Profiler.stop', {}, worker.sessionId);
      const split = splitProfile(profile, worker.url);
      const top = analyseProfile(profile, worker.url, 1, distDir).scriptTop.slice(0, 5);
      results[key].push({ requestMs, ...split, top });
    }
  }

  const fixed = (value) => value.toFixed(2).padStart(7);
  console.log(`Cold start, ${rounds} rounds, median ms (sampling slows the worker: compare the rows, not with the bench's cold start):`);
  console.log('| worker | page: first request | thread: top level | handlers | fetch() | (program): compiling, the runtime | GC | other | idle |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const key of ['b', 'c']) {
    const column = (name) => fixed(median(results[key].map((result) => result[name])));
    console.log(`| (${key}) | ${column('requestMs')} | ${column('topLevel')} | ${column('handlers')} | ${column('fetch')} | ${column('program')} | ${column('gc')} | ${column('other')} | ${column('idle')} |`);
  }
  const last = results.c.at(-1);
  console.log(`(c)'s hottest source lines in its last cold start, µs: ${last.top.map(({ where, us }) => `${where} ${us}`).join('; ')}`);
} finally {
  await browser.close();
  await storefronts.b.close();
  await storefronts.c.close();
}
