/**
 * The thin interface the cross-engine flows drive a browser through, so that each flow is written
 * once and runs in Chromium, Firefox and WebKit. Three implementations, one per tool that can drive
 * the engine here: Playwright (`playwrightEngine.ts`, Chromium, and Firefox and WebKit where
 * Playwright's own builds are installed), puppeteer-core over WebDriver BiDi (`puppeteerFirefox.ts`,
 * Debian's Firefox ESR) and selenium-webdriver (`seleniumWebKit.ts`, Debian's WebKitGTK MiniBrowser).
 *
 * Everything that crosses into a tab is plain data: `evaluate` sends the function's source and a
 * JSON argument, and gets back a JSON value, as every one of the three tools does.
 */

export type EngineName = 'chromium' | 'firefox' | 'webkit';

/** The engines, in the order each flow runs in them; the label is the `describe` title the report groups by. */
export const ENGINES: ReadonlyArray<{ name: EngineName; label: string }> = [
  { name: 'chromium', label: 'Chromium' },
  { name: 'firefox', label: 'Firefox' },
  { name: 'webkit', label: 'WebKit' },
];

/** A launched browser, shared by the tests of one Playwright worker. */
export interface Engine {
  readonly name: EngineName;
  /** The browser as it names itself, with its version: `Firefox 153.7.0esr`. */
  readonly version: string;
  /** The tool that drives it: `Playwright`, `puppeteer-core (WebDriver BiDi)`, `selenium-webdriver (WebKitWebDriver)`. */
  readonly via: string;
  /** A browsing session for one test; where the tool can, with storage of its own. */
  newSession(): Promise<Session>;
  close(): Promise<void>;
}

/** What one test opens in an engine; closing it closes every tab it opened. */
export interface Session {
  open(url: string): Promise<Tab>;
  /**
   * Makes the browser stop the service workers of the session's tabs, the way it does by itself,
   * and resolves once they are stopped (`workerStop` says how). The tabs stay open and on the page
   * they were on, but in WebKit each was taken off the origin and brought back (a new document,
   * without the drop-in), since WebKit stops only a worker that no page uses.
   */
  stopServiceWorkers(): Promise<void>;
  /** How this engine stops a worker, and what that costs: shown in the report. */
  readonly workerStop: string;
  close(): Promise<void>;
}

/** One tab (a page of its own, with its own window handle). */
export interface Tab {
  /** Runs `fn(arg)` in the page and resolves with its (awaited, JSON-serialisable) result; rejects with its error's message. */
  evaluate<R, A = undefined>(fn: (arg: A) => R | Promise<R>, arg?: A): Promise<R>;
  /** Navigates the tab and waits for the load. */
  goto(url: string): Promise<void>;
  /** Reloads the page and waits for the load. */
  reload(): Promise<void>;
  close(): Promise<void>;
}

/** Waits `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
