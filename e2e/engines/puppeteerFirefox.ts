/**
 * The driver over puppeteer-core for Debian's Firefox ESR, through WebDriver BiDi (Playwright
 * cannot drive it: its `newContext()` fails on `emulation.setMediaFeaturesOverride`). A session is
 * a BiDi user context (its own storage), a tab a page. Firefox wants a HOME of the user's own, so
 * each launch gets a temporary one. `ENGINES_DEBUG=1` shows Firefox's output, page and worker
 * console lines included.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type BrowserContext, type Page } from 'puppeteer-core';
import type { Engine, Session, Tab } from './driver.js';
import { FIREFOX_PREFS, FIREFOX_STOP, firefoxIdleStop } from './workerStops.js';

export async function launchPuppeteerFirefox(executablePath: string): Promise<Engine> {
  const home = mkdtempSync(join(tmpdir(), 'storefront-auth-firefox-'));
  let browser: Browser;
  try {
    browser = await puppeteer.launch({
      browser: 'firefox',
      executablePath,
      headless: true,
      env: { ...process.env, HOME: home },
      extraPrefsFirefox: FIREFOX_PREFS,
      dumpio: process.env['ENGINES_DEBUG'] === '1',
    });
  } catch (error) {
    rmSync(home, { recursive: true, force: true });
    throw error;
  }
  // "firefox/153.7.0"; the binary's name tells an ESR.
  const version = (await browser.version()).replace(/^firefox\//i, '');
  return {
    name: 'firefox',
    version: `Firefox${executablePath.includes('-esr') ? ' ESR' : ''} ${version}`,
    via: 'puppeteer-core (WebDriver BiDi)',
    newSession: async () => new FirefoxSession(await browser.createBrowserContext()),
    async close() {
      await browser.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

class FirefoxSession implements Session {
  readonly #context: BrowserContext;
  readonly workerStop = FIREFOX_STOP;

  constructor(context: BrowserContext) {
    this.#context = context;
  }

  async open(url: string): Promise<Tab> {
    const page = await this.#context.newPage();
    await page.goto(url);
    return new FirefoxTab(page);
  }

  stopServiceWorkers(): Promise<void> {
    return firefoxIdleStop();
  }

  close(): Promise<void> {
    return this.#context.close();
  }
}

class FirefoxTab implements Tab {
  readonly #page: Page;

  constructor(page: Page) {
    this.#page = page;
  }

  evaluate<R, A = undefined>(fn: (arg: A) => R | Promise<R>, arg?: A): Promise<R> {
    return this.#page.evaluate(fn as (arg: unknown) => R | Promise<R>, arg as unknown) as Promise<R>;
  }

  async goto(url: string): Promise<void> {
    await this.#page.goto(url);
  }

  async reload(): Promise<void> {
    await this.#page.reload();
  }

  close(): Promise<void> {
    return this.#page.close();
  }
}
