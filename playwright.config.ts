import { defineConfig } from '@playwright/test';
import { chromium } from '@playwright/test';
import { existsSync } from 'node:fs';

// Playwright's own Chromium where one is installed (a developer laptop); otherwise Debian's, run
// directly rather than through /usr/bin/chromium, whose wrapper adds flags and noise. The flags
// keep Chromium from reaching for Google services, which a closed network refuses at every start.
const DEBIAN_CHROMIUM = '/usr/lib/chromium/chromium';
const ownBrowser = (() => {
  try {
    return existsSync(chromium.executablePath());
  } catch {
    return false;
  }
})();
const executablePath = process.env['CHROMIUM_PATH'] ?? (ownBrowser || !existsSync(DEBIAN_CHROMIUM) ? undefined : DEBIAN_CHROMIUM);

export default defineConfig({
  testDir: 'e2e',
  testMatch: '*.spec.ts',
  fullyParallel: true,
  ...(process.env['CI'] ? { workers: 2 } : {}),
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  forbidOnly: Boolean(process.env['CI']),
  reporter: [['list']],
  use: {
    browserName: 'chromium',
    headless: true,
    launchOptions: {
      ...(executablePath === undefined ? {} : { executablePath }),
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
});
