/**
 * Before the example specs: packs this repository once, as npm would publish it (the dist/ that
 * `npm test` built), and installs every example from the tarball, in parallel, and the installation
 * the fresh projects of the docs' snippets share (freshProjects.ts).
 */
import { test } from '@playwright/test';
import { dirname } from 'node:path';
// @ts-expect-error: a plain JavaScript script without declarations.
import { packForExamples } from '../../scripts/packForExamples.mjs';
import { installFreshBases } from './freshProjects.js';
import { EXAMPLES, install, seconds, TARBALL } from './workspace.js';

test('pack the package and install each example from the tarball', async () => {
  test.setTimeout(600_000);
  const packStart = performance.now();
  // ignoreScripts: prepare would rebuild dist/; the specs test the dist/ that was built.
  await (packForExamples as (dir: string, options: { ignoreScripts: boolean }) => Promise<string>)(dirname(TARBALL), { ignoreScripts: true });
  console.log(`[examples] npm pack: ${seconds(packStart)}`);
  await Promise.all([
    ...EXAMPLES.map(async (name) => {
      const start = performance.now();
      await install(name);
      console.log(`[examples] ${name}: installed in ${seconds(start)}`);
    }),
    (async () => {
      const start = performance.now();
      await installFreshBases();
      console.log(`[examples] the docs' fresh projects: installed in ${seconds(start)}`);
    })(),
  ]);
});
