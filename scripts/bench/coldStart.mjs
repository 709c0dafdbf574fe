// The cold start on an on-disk profile: Playwright's contexts are off the record, their IndexedDB in
// memory, while a shopper's profile keeps it on disk, where the cold start must read it.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { startStorefront } from '../../demo/storefront/server.mjs';
import { evaluate, launchPersistent, sequential, sleep, workerStopper } from './browser.mjs';
import { summary } from './stats.mjs';

/**
 * The cold start of b and c in a persistent profile (IndexedDB on disk, as a shopper's browser
 * has it): a second Chromium, one context, the pass-through worker on one origin and storefront-auth
 * on another (a second storefront on another port), stopped and woken in alternation.
 */
export async function runDiskColdStart({ mainUrl, mounts, config, dropIn }) {
  const userDataDir = mkdtempSync(join(os.tmpdir(), 'storefront-auth-bench-'));
  const server = await startStorefront({ port: 0, static: mounts });
  const persistent = await launchPersistent(userDataDir);
  try {
    const pages = {
      b: { page: await persistent.newPage(), init: {} },
      c: { page: await persistent.newPage(), init: {} },
    };
    await pages.b.page.goto(`${mainUrl}/bench.html`);
    await evaluate(pages.b.page, () => window.bench.registerPassThrough());
    pages.b.init = { headers: { 'X-Store-Order-Token': await evaluate(pages.b.page, () => window.bench.ownCart()) } };
    await pages.c.page.goto(`${server.url}/bench.html`);
    await evaluate(pages.c.page, (attributes) => window.bench.loadDropIn(attributes), dropIn);
    await evaluate(pages.c.page, () => window.storefrontAuth.createCart());
    const cdp = await persistent.newCDPSession(pages.b.page);
    const stopWorkers = await workerStopper(cdp);
    const times = { b: [], c: [] };
    for (const key of ['b', 'c']) await sequential(pages[key].page, config.warmup, pages[key].init);
    for (let r = 0; r < config.coldRounds * config.replicas; r++) {
      for (const key of r % 2 ? ['c', 'b'] : ['b', 'c']) {
        await stopWorkers();
        await sleep(20);
        times[key].push(...(await sequential(pages[key].page, 1, pages[key].init)));
      }
    }
    return { b: summary(times.b), c: summary(times.c) };
  } finally {
    await persistent.close();
    await server.close();
    rmSync(userDataDir, { recursive: true, force: true });
  }
}
