import { defineConfig } from '@playwright/test';
import { chromiumLaunchOptions } from './e2e/engines/browsers.js';

// Projects. `chromium`: the specs in e2e/, in Chromium (Playwright's own where installed, else
// Debian's, or CHROMIUM_PATH: e2e/engines/browsers.ts). `examples`: the example projects of
// examples/, each installed from the packed package, built and driven in Chromium (e2e/examples/);
// `examples-setup` packs and installs them first. `engines`: the cross-engine suite in e2e/engines/,
// each flow in Chromium, Firefox and WebKit, driven by whichever tool can drive the browser
// installed; it launches its browsers itself, on one worker, and closes with a report per engine.
export default defineConfig({
  testDir: 'e2e',
  testMatch: '*.spec.ts',
  fullyParallel: true,
  ...(process.env['CI'] ? { workers: 2 } : {}),
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  forbidOnly: Boolean(process.env['CI']),
  reporter: [['./e2e/engines/engineReport.ts'], ['list']],
  use: {
    browserName: 'chromium',
    headless: true,
    launchOptions: chromiumLaunchOptions(),
  },
  // The engines project last: its one worker starts once every Chromium spec has been handed out,
  // so the timing-sensitive load spec (3 s tokens, 20 tabs) does not share the two cores with a
  // Firefox or WebKit; when it did, 34 of its requests ended in a 401 at the page.
  projects: [
    { name: 'chromium', testIgnore: ['engines/**', 'examples/**'] },
    { name: 'examples-setup', testDir: 'e2e/examples', testMatch: 'examples.setup.ts', timeout: 600_000 },
    { name: 'examples', testDir: 'e2e/examples', dependencies: ['examples-setup'], timeout: 180_000 },
    { name: 'engines', testDir: 'e2e/engines', fullyParallel: false, workers: 1 },
  ],
});
