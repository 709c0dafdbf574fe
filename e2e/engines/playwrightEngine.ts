/**
 * The driver over Playwright: Chromium always (Playwright's own or Debian's), Firefox and WebKit
 * only where Playwright's own builds are installed, since Playwright cannot drive Debian's.
 * A session is a browser context, a tab a page.
 */
import { chromium, firefox, webkit, type BrowserContext, type LaunchOptions, type Page } from '@playwright/test';
import type { Engine, EngineName, Session, Tab } from './driver.js';
import { CHROMIUM_STOP, FIREFOX_PREFS, FIREFOX_STOP, firefoxIdleStop } from './workerStops.js';
import { leaveTheOrigin, WEBKIT_STOP } from './webkitStop.js';

const TYPES = { chromium, firefox, webkit };
const LABELS: Record<EngineName, string> = { chromium: 'Chromium', firefox: 'Firefox', webkit: 'WebKit' };

export async function launchPlaywright(name: EngineName, launchOptions: LaunchOptions): Promise<Engine> {
  const browser = await TYPES[name].launch({ ...launchOptions, ...(name === 'firefox' ? { firefoxUserPrefs: FIREFOX_PREFS } : {}) });
  return {
    name,
    version: `${LABELS[name]} ${browser.version()}`,
    via: 'Playwright',
    newSession: async () => new PlaywrightSession(name, await browser.newContext()),
    close: () => browser.close(),
  };
}

class PlaywrightSession implements Session {
  readonly #name: EngineName;
  readonly #context: BrowserContext;
  readonly workerStop: string;

  constructor(name: EngineName, context: BrowserContext) {
    this.#name = name;
    this.#context = context;
    this.workerStop = { chromium: CHROMIUM_STOP, firefox: FIREFOX_STOP, webkit: WEBKIT_STOP }[name];
  }

  async open(url: string): Promise<Tab> {
    const page = await this.#context.newPage();
    await page.goto(url);
    return new PlaywrightTab(page);
  }

  async stopServiceWorkers(): Promise<void> {
    const pages = this.#context.pages();
    if (this.#name === 'firefox') return firefoxIdleStop();
    if (this.#name === 'webkit') return leaveTheOrigin(pages.map((page) => new PlaywrightTab(page)), (tab) => tab.page.url());
    const page = pages[0] ?? (await this.#context.newPage());
    const cdp = await this.#context.newCDPSession(page);
    await cdp.send('ServiceWorker.enable');
    await cdp.send('ServiceWorker.stopAllWorkers');
    await cdp.detach();
  }

  close(): Promise<void> {
    return this.#context.close();
  }
}

class PlaywrightTab implements Tab {
  readonly page: Page;

  constructor(page: Page) {
    this.page = page;
  }

  evaluate<R, A = undefined>(fn: (arg: A) => R | Promise<R>, arg?: A): Promise<R> {
    // Playwright's own serialisation, as the Chromium specs use it.
    return this.page.evaluate(fn as (arg: unknown) => R | Promise<R>, arg as unknown);
  }

  async goto(url: string): Promise<void> {
    await this.page.goto(url);
  }

  async reload(): Promise<void> {
    await this.page.reload();
  }

  close(): Promise<void> {
    return this.page.close();
  }
}
