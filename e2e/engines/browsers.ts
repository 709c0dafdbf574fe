/**
 * Where each engine's browser is on this machine, and which tool drives it: Playwright's own build
 * where one is installed (a developer laptop after `npx playwright install`), else Debian's
 * packages, which Playwright cannot drive except for Chromium (docs/browser-support.md).
 */
import { chromium, firefox, webkit, type LaunchOptions } from '@playwright/test';
import { existsSync, readdirSync } from 'node:fs';
import type { EngineName } from './driver.js';

const DEBIAN_CHROMIUM = '/usr/lib/chromium/chromium';
// The real binary: /usr/bin/firefox-esr is a wrapper script that puppeteer cannot drive.
const DEBIAN_FIREFOX = '/usr/lib/firefox-esr/firefox-esr';
const WEBKIT_WEBDRIVER = '/usr/bin/WebKitWebDriver';
const XVFB = '/usr/bin/Xvfb';

/** How an engine is driven here, or what to install for it. */
export type Located =
  | { tool: 'playwright'; launchOptions: LaunchOptions }
  | { tool: 'puppeteer'; executablePath: string }
  | { tool: 'selenium'; driver: string; miniBrowser: string; xvfb: string | null }
  | { tool: null; missing: string };

/** Chromium's flags: no reaching for Google services, which a closed network refuses at every start. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

function ownBuild(type: typeof chromium): boolean {
  try {
    return existsSync(type.executablePath());
  } catch {
    return false;
  }
}

/**
 * Chromium for Playwright: its own build, else Debian's, run directly rather than through
 * /usr/bin/chromium, whose wrapper adds flags and noise; `CHROMIUM_PATH` names another. `extraArgs`
 * come after the usual switches.
 */
export function chromiumLaunchOptions(extraArgs: readonly string[] = []): LaunchOptions {
  const executablePath = process.env['CHROMIUM_PATH'] ?? (ownBuild(chromium) || !existsSync(DEBIAN_CHROMIUM) ? undefined : DEBIAN_CHROMIUM);
  return { ...(executablePath === undefined ? {} : { executablePath }), args: [...CHROMIUM_ARGS, ...extraArgs] };
}

/** MiniBrowser ships in libwebkit2gtk-4.1-0, in the library folder of the machine's architecture. */
function miniBrowser(): string | null {
  if (process.env['MINIBROWSER_PATH']) return process.env['MINIBROWSER_PATH'];
  for (const dir of existsSync('/usr/lib') ? readdirSync('/usr/lib') : []) {
    const path = `/usr/lib/${dir}/webkit2gtk-4.1/MiniBrowser`;
    if (existsSync(path)) return path;
  }
  return null;
}

/** Finds `name`'s browser: Playwright's own build first, then Debian's. */
export function locate(name: EngineName): Located {
  switch (name) {
    case 'chromium': {
      const options = chromiumLaunchOptions();
      if (options.executablePath === undefined && !ownBuild(chromium)) return { tool: null, missing: 'Chromium (apt-get install chromium, or npx playwright install chromium)' };
      return { tool: 'playwright', launchOptions: options };
    }
    case 'firefox': {
      if (ownBuild(firefox)) return { tool: 'playwright', launchOptions: {} };
      const executablePath = process.env['FIREFOX_PATH'] ?? DEBIAN_FIREFOX;
      if (existsSync(executablePath)) return { tool: 'puppeteer', executablePath };
      return { tool: null, missing: `Firefox (${executablePath}: apt-get install firefox-esr, or npx playwright install firefox)` };
    }
    case 'webkit': {
      if (ownBuild(webkit)) return { tool: 'playwright', launchOptions: {} };
      const binary = miniBrowser();
      const xvfb = process.env['DISPLAY'] ? null : XVFB;
      const lacking = [
        existsSync(WEBKIT_WEBDRIVER) ? null : `${WEBKIT_WEBDRIVER} (webkit2gtk-driver)`,
        binary === null ? 'MiniBrowser (libwebkit2gtk-4.1-0)' : null,
        xvfb !== null && !existsSync(xvfb) ? `${XVFB} (xvfb), or a DISPLAY` : null,
      ].filter((what) => what !== null);
      if (lacking.length > 0 || binary === null) return { tool: null, missing: `WebKitGTK: ${lacking.join(', ')} (apt-get install webkit2gtk-driver libwebkit2gtk-4.1-0 xvfb, or npx playwright install webkit)` };
      return { tool: 'selenium', driver: WEBKIT_WEBDRIVER, miniBrowser: binary, xvfb };
    }
  }
}
