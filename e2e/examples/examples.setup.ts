/**
 * Before the example specs: packs this repository once, as npm would publish it (the dist/ that
 * `npm test` built), and installs every example from the tarball, in parallel.
 */
import { test } from '@playwright/test';
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { root } from '../support.js';
import { EXAMPLES, install, run, seconds, TARBALL } from './workspace.js';

test('pack the package and install each example from the tarball', async () => {
  test.setTimeout(600_000);
  const packStart = performance.now();
  const pack = dirname(TARBALL);
  rmSync(pack, { recursive: true, force: true });
  mkdirSync(pack, { recursive: true });
  // --ignore-scripts: prepack would rebuild dist/; the specs test the dist/ that was built.
  const [info] = JSON.parse(await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', pack], root)) as { filename: string }[];
  if (info === undefined) throw new Error('npm pack printed no package');
  renameSync(join(pack, info.filename), TARBALL);
  console.log(`[examples] npm pack: ${seconds(packStart)}`);
  await Promise.all(
    EXAMPLES.map(async (name) => {
      const start = performance.now();
      await install(name);
      console.log(`[examples] ${name}: installed in ${seconds(start)}`);
    }),
  );
});
