// The bench's outputs from its results object: bench/results.md (also printed) and docs/bench.svg.
import { PRODUCT } from './browser.mjs';
import { LARGE_CART } from './conditions.mjs';
import { NAVIGATION_CONDITIONS, WITHOUT_START } from './navigation.mjs';
import { describePhases } from './storm.mjs';

/** The results as Markdown tables: latency, ratios, cold starts, CPU per request, storm, sizes, budgets. */
export function renderMarkdown(results) {
  const f = (value, digits = 2) => (typeof value === 'number' ? value.toFixed(digits) : String(value));
  const { latencyMs: lat, throughputPerS: tput, coldStartMs: cold, ratios, runs, navigation, storm, machine } = results;
  const lines = [
    `Measured ${results.date.slice(0, 10)} on ${machine.cpu} (${machine.cores} cores, ${machine.os}), Chromium ${machine.chromium}, Node ${machine.node};`,
    `load average ${machine.loadAverageBefore[0]} before, ${f(machine.loadAverageDuring.median)} during (median of 5 s samples; max ${f(machine.loadAverageDuring.max)}), ${machine.loadAverageAfter[0]} after: the machine is shared, so every figure carries that noise.`,
    `${results.config.rounds} rounds × ${results.config.batch} sequential cart calls (half as many account calls) per context and round, ${results.config.replicas} context(s) per condition,`,
    `${results.config.parallelTotal} per throughput batch with ${results.config.inFlight} in flight, ${cold.b.n} cold starts each; sealed tokens ${results.config.sealTokens === false ? 'off (BENCH_SEAL=0)' : 'on'} in (c) and (d).`,
    'Latencies are compared as trimmed means (the middle 80 %): pages get 0.1 ms timers, so medians of ~7 ms step by ~1.5 %.',
    '',
    '| context | call | trimmed mean ms | median ms | p95 ms | req/s, 8 in flight | cold start median ms |',
    '|---|---|---:|---:|---:|---:|---:|',
  ];
  for (const [key, name] of Object.entries(results.contexts)) {
    for (const [call, entry] of Object.entries(lat[key])) {
      lines.push(`| (${key}) ${name} | ${call} | ${f(entry.trimmedMean)} | ${f(entry.median)} | ${f(entry.p95)} | ${call === 'cart' && tput[key] ? f(tput[key].median, 0) : '–'} | ${call === 'cart' && cold[key] ? f(cold[key].median) : '–'} |`);
    }
  }
  lines.push(
    '',
    `A 200 KB cart document (GET ${LARGE_CART}, one canned answer for every context, ${results.largeCartMs.c?.first.n ?? 0} per context), from fetch() to its first and to its last byte of body; floor (a) is the cheaper of its two forms for each:`,
    '',
    '| context | first byte, trimmed mean ms | median ms | last byte, trimmed mean ms | median ms |',
    '|---|---:|---:|---:|---:|',
    ...Object.entries(results.largeCartMs).map(([key, { first, last }]) => `| (${key}) ${results.contexts[key]} | ${f(first.trimmedMean)} | ${f(first.median)} | ${f(last.trimmedMean)} | ${f(last.median)} |`),
    '',
    `Ratios of trimmed means: this run, and over the ${runs.n} run(s) of this build (bench/runs/; load average during each: ${runs.loadAverages.map((load) => f(load.during, 1)).join(', ')}).`,
    `Floor (a) is the cheaper of its two forms in each run (this run: ${results.run.floorPick.v2} for v2, ${results.run.floorPick.v3} for spree-v3; the runs: ${runs.floorPicks.map((pick) => pick.v2).join(', ')}).`,
    '',
    '| ratio | this run | median of runs | runs (oldest first) |',
    '|---|---:|---:|---|',
    ...Object.entries(runs.ratios).map(([name, entry]) => `| ${name} | ${f(ratios[name] ?? results.run.ratios[name], 3)} | ${f(entry.median, 3)} | ${entry.perRun.map((value) => f(value, 3)).join(', ')} |`),
    '',
    'The account row is budgeted as a sealed call (account documents are sealed); its ratio to floor (b) (d account/bFloor) shows the body rewrite beside the bearer.',
    '',
    'Against the pass-through worker (no budget: a body rewrite costs more than any pass-through), this run:',
    '',
    '| ratio | trimmed means | medians | per round: median (quartiles) | throughput |',
    '|---|---:|---:|---:|---:|',
    ...Object.entries(results.history).map(
      ([name, ratio]) => `| ${name} | ${f(ratio.trimmedMean, 3)} | ${f(ratio.median, 3)} | ${f(ratio.pairedMedian, 3)} (${f(ratio.pairedQuartiles[0], 3)}–${f(ratio.pairedQuartiles[1], 3)}) | ${f(ratio.throughput, 3)} |`,
    ),
    '',
    `Navigation to ${navigation.url} (a style, a script, an image, an image from another origin, a products call), ${navigation.documentMs.none.n} per condition, interleaved; document time is the navigation entry's responseEnd. Chromium as shipped starts a stopped worker beside a navigation its static routes send to the network, without waiting for it (any worker with a fetch handler: the navigation floor); the second Chromium runs without that start (${WITHOUT_START}):`,
    '',
    '| Chromium | condition | trimmed mean ms | median ms | p95 ms | × no worker (trimmed means) | stopped worker woke |',
    '|---|---|---:|---:|---:|---:|---:|',
    ...[
      ['as shipped', navigation.documentMs, navigation.woke],
      ['without the start', navigation.withoutStart.documentMs, navigation.withoutStart.woke],
    ].flatMap(([browser, rows, woke]) =>
      Object.entries(rows).map(([key, entry]) => `| ${browser} | ${NAVIGATION_CONDITIONS[key]} | ${f(entry.trimmedMean)} | ${f(entry.median)} | ${f(entry.p95)} | ${f(entry.trimmedMean / rows.none.trimmedMean, 3)} | ${key in woke ? `${woke[key]} of ${entry.n}` : '–'} |`),
    ),
    '',
    `The page's cart call ${navigation.cartCallAfterMs} ms after each load, trimmed mean / median ms: ${Object.entries(navigation.cartCallMs)
      .map(([key, entry]) => `${NAVIGATION_CONDITIONS[key]} ${f(entry.trimmedMean)} / ${f(entry.median)}`)
      .join('; ')} (a worker Chromium started beside the navigation has loaded the credentials by then: it loads them as it starts).`,
    '',
    `Fetch events the worker's handler received during the same navigations with the debug build (its log, "fetch event N", read from the worker's console; the control, one cart call afterwards, logged ${navigation.fetchEvents.controlCartCallEvents}): ${['running', 'stopped']
      .map((state) => [state, navigation.fetchEvents[state]])
      .map(([state, entry]) => `${state}: ${entry.fetchEvents} in ${entry.navigations} navigations, ${entry.outsideStorefrontPaths} outside the storefront paths${entry.paths.length ? ` (${entry.paths.join(', ')})` : ''}`)
      .join('; ')}.`,
    '',
    `Cold start on an on-disk profile (IndexedDB on disk; the table's contexts keep it in memory), median / p95 ms: ${Object.entries(results.coldStartOnDiskProfileMs)
      .map(([key, entry]) => `(${key}) ${f(entry.median)} / ${f(entry.p95)}`)
      .join(', ')}.`,
    '',
    `A request storefront-auth leaves alone (GET ${PRODUCT}, no respondWith), median / p95 ms: ${Object.entries(results.untouchedLatencyMs)
      .map(([key, entry]) => `(${key}) ${f(entry.median)} / ${f(entry.p95)}`)
      .join(', ')}.`,
    '',
    'Worker thread, µs of CPU per warm cart call (V8 sampling profile; sampling slows it, compare columns only); each storefront-auth row is budgeted against its floor\'s own script (a sealed call against floor (a) in its read form, which does what the worker does with a cart document; an unsealed one against floor (b)):',
    '',
    '| worker | busy | its own script | its fetch() calls | fetch-event and response plumbing, GC |',
    '|---|---:|---:|---:|---:|',
    ...Object.entries(results.workerProfile).map(([key, entry]) => `| (${key}) ${results.contexts[key]} | ${f(entry.usPerRequest.busy, 0)} | ${f(entry.usPerRequest.script, 0)} | ${f(entry.usPerRequest.fetchCalls, 0)} | ${f(entry.usPerRequest.other, 0)} |`),
    '',
    'Where storefront-auth\'s own script spends it, µs per warm request (top lines, through the source map):',
    '',
    ...['c', 'd', 'c0', 'd0'].filter((key) => results.workerProfile[key] !== undefined).flatMap((key) => [
      `- (${key}) ${results.contexts[key]}: ${results.workerProfile[key].scriptTop
        .slice(0, 6)
        .map((line) => `${line.where} ${f(line.us, 0)}`)
        .join('; ')}`,
    ]),
    '',
    `Refresh storm, ${storm.tabs} tabs, expired token: ${storm.rounds.map((round) => f(round.ms, 1)).join(', ')} ms (median ${f(storm.summary.median, 1)}),`,
    `refresh grants per storm ${storm.rounds.map((round) => round.refreshGrants).join(', ')}; one refresh round trip ${f(storm.reference.refreshMedian)} ms + one request ${f(storm.reference.requestMedian)} ms;`,
    `the same 10-tab burst with a fresh token (no refresh): median ${f(storm.summary.controlMedian, 1)} ms; storm minus that burst, per round: median ${f(storm.summary.overControlMedian, 1)} ms;`,
    `10 tabs at once through the pass-through worker (no refresh, no storefront-auth): median ${f(storm.summary.passThroughBurstMedian, 1)} ms.`,
    '',
    ...describePhases(storm),
    '',
    '| file | bytes | gzip | gzip budget | ceiling (size test) |',
    '|---|---:|---:|---:|---:|',
    ...Object.entries(results.sizes).map(([file, size]) => `| dist/${file} | ${size.bytes} | ${size.gzip} | ${size.budget ?? '–'} | ${size.ceiling} |`),
    '',
    '| budget | limit | measured | verdict |',
    '|---|---|---:|---|',
    ...results.budgets.map((budget) => `| ${budget.name} | ${budget.limit} | ${typeof budget.value === 'number' && !Number.isInteger(budget.value) ? f(budget.value, 3) : budget.value} | ${budget.pass === null ? 'pending (fewer runs than the budget asks)' : budget.pass ? 'pass' : '**fail**'} |`),
    '',
  );
  return `${lines.join('\n')}\n`;
}

/** A grouped bar chart (median and p95) of warm latency and of cold starts, as a standalone SVG. */
export function renderSvg(results) {
  const esc = (text) => String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const width = 760;
  const height = 360;
  const top = 70;
  const bottom = 300;
  const colours = { median: '#2a7f8f', p95: '#9fd0d8' };
  const panel = (x0, panelWidth, title, entries) => {
    const max = Math.max(...entries.flatMap((entry) => [entry.median, entry.p95])) * 1.15;
    const scale = (value) => ((bottom - top) * value) / max;
    const group = panelWidth / entries.length;
    const bar = Math.min(28, group / 3);
    const parts = [`<text x="${x0 + panelWidth / 2}" y="${top - 22}" text-anchor="middle" font-weight="600">${esc(title)}</text>`];
    parts.push(`<line x1="${x0}" y1="${bottom}" x2="${x0 + panelWidth}" y2="${bottom}" stroke="#444"/>`);
    entries.forEach((entry, i) => {
      const centre = x0 + group * i + group / 2;
      for (const [j, kind] of ['median', 'p95'].entries()) {
        const h = scale(entry[kind]);
        const x = centre - bar - 1 + j * (bar + 2);
        parts.push(`<rect x="${x.toFixed(1)}" y="${(bottom - h).toFixed(1)}" width="${bar}" height="${h.toFixed(1)}" fill="${colours[kind]}"><title>${esc(`${entry.label} ${kind}: ${entry[kind].toFixed(2)} ms`)}</title></rect>`);
        parts.push(`<text x="${(x + bar / 2).toFixed(1)}" y="${(bottom - h - 4).toFixed(1)}" text-anchor="middle" font-size="10">${entry[kind].toFixed(kind === 'median' && entry.median < 10 ? 2 : 1)}</text>`);
      }
      parts.push(`<text x="${centre}" y="${bottom + 16}" text-anchor="middle" font-size="11">${esc(entry.short)}</text>`);
      parts.push(`<text x="${centre}" y="${bottom + 30}" text-anchor="middle" font-size="10" fill="#555">${esc(entry.sub)}</text>`);
    });
    return parts.join('\n');
  };
  const names = { a: ['(a)', 'no worker'], b: ['(b)', 'pass-through'], aPipe: ['floor a', 'pipe'], aRead: ['floor a', 'read'], bFloor: ['floor b', 'header'], c: ['(c)', 'guest'], d: ['(d)', 'signed in'] };
  const warm = Object.keys(names).map((key) => ({ ...results.latencyMs[key].cart, short: names[key][0], sub: names[key][1], label: names[key].join(' ') }));
  const cold = Object.keys(results.coldStartMs).map((key) => ({ ...results.coldStartMs[key], short: names[key][0], sub: names[key][1], label: names[key].join(' ') }));
  const { machine } = results;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="12">
<rect width="100%" height="100%" fill="#fff"/>
<text x="20" y="22" font-size="14" font-weight="600">GET /api/v2/storefront/cart, ms (lower is better; floors: the least a body rewrite, a header)</text>
<text x="${width - 20}" y="22" text-anchor="end" font-size="10" fill="#555">${esc(`${results.date.slice(0, 10)}, Chromium ${machine.chromium}, ${machine.cores} × ${machine.cpu}`)}</text>
${panel(30, 430, `Warm request (${results.latencyMs.a.cart.n} per condition)`, warm)}
${panel(490, 250, `Worker stopped, first request (${results.coldStartMs.b.n} each)`, cold)}
<rect x="20" y="${height - 22}" width="10" height="10" fill="${colours.median}"/><text x="35" y="${height - 13}" font-size="11">median</text>
<rect x="90" y="${height - 22}" width="10" height="10" fill="${colours.p95}"/><text x="105" y="${height - 13}" font-size="11">p95</text>
<text x="${width - 20}" y="${height - 13}" text-anchor="end" font-size="10" fill="#555">npm run bench (scripts/bench/)</text>
</svg>
`;
}
