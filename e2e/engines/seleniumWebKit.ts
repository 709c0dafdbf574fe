/**
 * The driver over selenium-webdriver for Debian's WebKitGTK: WebKitWebDriver (webkit2gtk-driver)
 * runs MiniBrowser (libwebkit2gtk-4.1-0) in automation mode, on an Xvfb display of its own unless
 * DISPLAY names one (Playwright cannot drive Debian's WebKitGTK: `Unknown option --inspector-pipe`).
 *
 * WebDriver drives one window at a time, so every command switches to its tab first, and the
 * commands of all tabs go through one queue. MiniBrowser has no separate browser contexts: a
 * session is the set of tabs it opened (each test's storefront is an origin of its own, on a port
 * of its own). WebDriver has no console access: the flows record page errors in the page.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { Builder, type WebDriver } from 'selenium-webdriver';
import { sleep, type Engine, type Session, type Tab } from './driver.js';
import { leaveTheOrigin, WEBKIT_STOP } from './webkitStop.js';

const START_MS = 20_000;

export async function launchSeleniumWebKit(located: { driver: string; miniBrowser: string; xvfb: string | null }): Promise<Engine> {
  const children: ChildProcess[] = [];
  const stop = () => children.reverse().forEach((child) => child.kill());
  try {
    let display = process.env['DISPLAY'];
    if (located.xvfb !== null) {
      const xvfb = await startXvfb(located.xvfb);
      children.push(xvfb.process);
      display = xvfb.display;
    }
    const port = await freePort();
    const quiet = process.env['ENGINES_DEBUG'] !== '1';
    const driverProcess = spawn(located.driver, [`--port=${port}`], { env: { ...process.env, DISPLAY: display }, stdio: ['ignore', quiet ? 'ignore' : 'inherit', quiet ? 'ignore' : 'inherit'] });
    children.push(driverProcess);
    const server = `http://127.0.0.1:${port}`;
    await waitForDriver(server, driverProcess);
    const driver = await new Builder()
      .usingServer(server)
      .withCapabilities({ browserName: 'MiniBrowser', 'webkitgtk:browserOptions': { binary: located.miniBrowser, args: ['--automation'] } })
      .build();
    await driver.manage().setTimeouts({ script: 60_000, pageLoad: 30_000 });
    const version = String((await driver.getCapabilities()).get('browserVersion'));
    const browser = new WebKitBrowser(driver, await driver.getWindowHandle());
    return {
      name: 'webkit',
      version: `WebKitGTK ${version} (MiniBrowser)`,
      via: 'selenium-webdriver (WebKitWebDriver)',
      newSession: async () => new WebKitSession(browser),
      async close() {
        // A tab stuck in a script must not keep the worker from ending: the processes go regardless.
        await Promise.race([driver.quit().catch(() => {}), sleep(5_000)]);
        stop();
      },
    };
  } catch (error) {
    stop();
    throw error;
  }
}

/** One MiniBrowser: its window handles, and the queue every WebDriver command goes through. */
class WebKitBrowser {
  readonly driver: WebDriver;
  /** The first tab, kept on about:blank between sessions so the browser never closes. */
  readonly home: string;
  #current: string;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(driver: WebDriver, home: string) {
    this.driver = driver;
    this.home = home;
    this.#current = home;
  }

  /** Runs `command` with `handle`'s tab selected, after every command queued before it. */
  in<T>(handle: string, command: () => Promise<T>): Promise<T> {
    return this.#enqueue(async () => {
      if (this.#current !== handle) {
        await this.driver.switchTo().window(handle);
        this.#current = handle;
      }
      return command();
    });
  }

  #enqueue<T>(command: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(command);
    this.#queue = run.catch(() => {});
    return run;
  }

  /** Opens a tab and returns its handle. */
  newTab(): Promise<string> {
    return this.#enqueue(async () => {
      await this.driver.switchTo().newWindow('tab');
      this.#current = await this.driver.getWindowHandle();
      return this.#current;
    });
  }

  /** Closes `handle`'s tab and goes back to the home tab. */
  closeTab(handle: string): Promise<void> {
    return this.in(handle, async () => {
      await this.driver.close();
      await this.driver.switchTo().window(this.home);
      this.#current = this.home;
    });
  }
}

class WebKitSession implements Session {
  readonly #browser: WebKitBrowser;
  readonly #tabs = new Set<WebKitTab>();
  readonly workerStop = WEBKIT_STOP;

  constructor(browser: WebKitBrowser) {
    this.#browser = browser;
  }

  async open(url: string): Promise<Tab> {
    const tab = new WebKitTab(this.#browser, await this.#browser.newTab(), () => this.#tabs.delete(tab));
    this.#tabs.add(tab);
    await tab.goto(url);
    return tab;
  }

  stopServiceWorkers(): Promise<void> {
    return leaveTheOrigin([...this.#tabs], (tab) => tab.currentUrl());
  }

  async close(): Promise<void> {
    for (const tab of [...this.#tabs]) await tab.close();
  }
}

class WebKitTab implements Tab {
  readonly #browser: WebKitBrowser;
  readonly #handle: string;
  readonly #closed: () => void;

  constructor(browser: WebKitBrowser, handle: string, closed: () => void) {
    this.#browser = browser;
    this.#handle = handle;
    this.#closed = closed;
  }

  /**
   * The function's source and a JSON argument go in; the page sends back JSON of the outcome, so a
   * result crosses as it would through Playwright, and an error as its message.
   */
  async evaluate<R, A = undefined>(fn: (arg: A) => R | Promise<R>, arg?: A): Promise<R> {
    const script = `
      const done = arguments[arguments.length - 1];
      const arg = arguments[0] === null ? undefined : JSON.parse(arguments[0]);
      Promise.resolve()
        .then(() => (${fn.toString()})(arg))
        .then(
          (value) => done(JSON.stringify({ value })),
          (error) => done(JSON.stringify({ error: String(error instanceof Error ? error.stack || error.message : error) })),
        );`;
    const outcome = JSON.parse(await this.#browser.in(this.#handle, () => this.#browser.driver.executeAsyncScript<string>(script, arg === undefined ? null : JSON.stringify(arg)))) as { value?: R; error?: string };
    if (outcome.error !== undefined) throw new Error(`In WebKit: ${outcome.error}`);
    return outcome.value as R;
  }

  goto(url: string): Promise<void> {
    return this.#browser.in(this.#handle, () => this.#browser.driver.get(url));
  }

  reload(): Promise<void> {
    return this.#browser.in(this.#handle, () => this.#browser.driver.navigate().refresh());
  }

  currentUrl(): Promise<string> {
    return this.#browser.in(this.#handle, () => this.#browser.driver.getCurrentUrl());
  }

  async close(): Promise<void> {
    this.#closed();
    await this.#browser.closeTab(this.#handle);
  }
}

/** Starts Xvfb on the first free display, which it writes to the pipe named by `-displayfd`. */
async function startXvfb(binary: string): Promise<{ process: ChildProcess; display: string }> {
  const child = spawn(binary, ['-displayfd', '3', '-nolisten', 'tcp', '-screen', '0', '1280x1024x24'], { stdio: ['ignore', 'ignore', 'ignore', 'pipe'] });
  const display = await new Promise<string>((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`${binary} named no display within ${START_MS / 1000} s`)), START_MS);
    child.once('exit', (code) => reject(new Error(`${binary} exited with ${code} before naming a display`)));
    child.stdio[3]!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\n')) {
        clearTimeout(timer);
        resolve(`:${text.trim()}`);
      }
    });
  });
  return { process: child, display };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('No port'))));
    });
  });
}

/** Waits until WebKitWebDriver answers `/status`. */
async function waitForDriver(server: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + START_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`WebKitWebDriver exited with ${child.exitCode}`);
    const ready = await fetch(`${server}/status`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return;
    await sleep(100);
  }
  throw new Error(`WebKitWebDriver did not answer within ${START_MS / 1000} s`);
}
