// Where a service worker's thread spends its time per request: V8's sampling profiler over CDP,
// split into the worker script's own JavaScript, its fetch() calls and the rest, with the script's
// hottest source lines (through the dist file's source map).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sequential } from './browser.mjs';

/**
 * Samples the worker thread of `instance`'s context with V8's profiler while the page sends
 * `requests` cart requests, and splits the thread's busy time per request into: the worker
 * script's own JavaScript (with the built-ins it calls: URL, Headers, Request), the `fetch()` calls
 * it makes, and the rest (the browser's fetch-event and response plumbing, GC), the same for any
 * worker. Sampling slows the worker down; these figures are for comparing b, c and d, not latency.
 */
export async function profileWorker(browser, instance, requests, distDir) {
  const { targetInfo } = await instance.cdp.send('Target.getTargetInfo');
  const session = await browser.newBrowserCDPSession();
  const { targetInfos } = await session.send('Target.getTargets');
  const target = targetInfos.find((info) => info.type === 'service_worker' && info.browserContextId === targetInfo.browserContextId);
  if (target === undefined) throw new Error(`no running service worker in context ${instance.key}`);
  // Playwright's CDP sessions cannot address a flattened child session, so the worker is attached
  // the older way and spoken to through Target.sendMessageToTarget.
  const { sessionId } = await session.send('Target.attachToTarget', { targetId: target.targetId, flatten: false });
  let lastId = 0;
  const pending = new Map();
  session.on('Target.receivedMessageFromTarget', (event) => {
    const message = JSON.parse(event.message);
    pending.get(message.id)?.(message);
    pending.delete(message.id);
  });
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = ++lastId;
      pending.set(id, (message) => (message.error ? reject(new Error(`${method}: ${message.error.message}`)) : resolve(message.result)));
      session.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params }) }).catch(reject);
    });
  await send('Profiler.enable');
  await send('Profiler.setSamplingInterval', { interval: 50 });
  await send('Profiler.start');
  await sequential(instance.page, requests, instance.init, 200, instance.url);
  const { profile } = await send('Profiler.stop');
  await session.send('Target.detachFromTarget', { sessionId });
  await session.detach();
  return analyseProfile(profile, target.url, requests, distDir);
}

/** Totals of one profile per request, and the worker script's 12 hottest source lines. */
export function analyseProfile(profile, scriptUrl, requests, distDir) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const mapper = sourceMapper(scriptUrl, distDir);
  const totals = { busy: 0, script: 0, fetchCalls: 0, other: 0 };
  const bySource = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const leaf = nodes.get(profile.samples[i]);
    const micros = profile.timeDeltas[i + 1] ?? 0;
    if (leaf.callFrame.functionName === '(idle)') continue;
    totals.busy += micros;
    let scriptFrame = null;
    for (let id = leaf.id; id !== undefined && scriptFrame === null; id = parents.get(id)) {
      if (nodes.get(id).callFrame.url === scriptUrl) scriptFrame = nodes.get(id).callFrame;
    }
    const isFetch = leaf.callFrame.url === '' && leaf.callFrame.functionName === 'fetch';
    if (isFetch) totals.fetchCalls += micros;
    else if (scriptFrame !== null) {
      totals.script += micros;
      const own = leaf.callFrame.url === scriptUrl ? leaf.callFrame : scriptFrame;
      const where = `${mapper(own.lineNumber, own.columnNumber)}${leaf.callFrame.url === '' ? ` → ${leaf.callFrame.functionName || '(native)'}` : ''}`;
      bySource.set(where, (bySource.get(where) ?? 0) + micros);
    } else totals.other += micros;
  }
  const perRequest = (micros) => Math.round((micros / requests) * 10) / 10;
  return {
    requests,
    usPerRequest: Object.fromEntries(Object.entries(totals).map(([name, micros]) => [name, perRequest(micros)])),
    scriptTop: [...bySource.entries()]
      .sort((x, y) => y[1] - x[1])
      .slice(0, Number(process.env.BENCH_PROFILE_TOP ?? 12))
      .map(([where, micros]) => ({ where, us: perRequest(micros) })),
  };
}

/**
 * Maps a position in a dist file to its source (`src/sw/outbound.ts:120 sendPage`) with the
 * file's source map; positions in other scripts are returned as they are.
 */
function sourceMapper(scriptUrl, distDir) {
  const file = new URL(scriptUrl).pathname.slice(1);
  const mapFile = join(distDir, `${file}.map`);
  if (!existsSync(join(distDir, file)) || !existsSync(mapFile)) return (line, column) => `${file}:${line + 1}:${column + 1}`;
  const map = JSON.parse(readFileSync(mapFile, 'utf8'));
  const digits = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const decode = (text) => {
    const values = [];
    let value = 0;
    let shift = 0;
    for (const char of text) {
      const digit = digits.indexOf(char);
      value += (digit & 31) << shift;
      if (digit & 32) shift += 5;
      else {
        values.push(value & 1 ? -(value >>> 1) : value >>> 1);
        value = 0;
        shift = 0;
      }
    }
    return values;
  };
  const lines = [];
  let source = 0;
  let sourceLine = 0;
  let sourceColumn = 0;
  let name = 0;
  for (const text of map.mappings.split(';')) {
    const segments = [];
    let column = 0;
    for (const segment of text.split(',').filter(Boolean)) {
      const [dColumn, dSource, dLine, dSourceColumn, dName] = decode(segment);
      column += dColumn;
      if (dSource === undefined) continue;
      source += dSource;
      sourceLine += dLine;
      sourceColumn += dSourceColumn;
      if (dName !== undefined) name += dName;
      segments.push({ column, source, line: sourceLine, name: dName === undefined ? undefined : name });
    }
    lines.push(segments);
  }
  return (line, column) => {
    let found;
    for (const segment of lines[line] ?? []) {
      if (segment.column > column) break;
      found = segment;
    }
    if (found === undefined) return `${file}:${line + 1}:${column + 1}`;
    const sourceFile = map.sources[found.source].replace(/^(\.\.\/)+/, '');
    const text = map.sourcesContent?.[found.source]?.split('\n')[found.line]?.trim().slice(0, 48) ?? '';
    return `${sourceFile}:${found.line + 1} ${text}`;
  };
}

