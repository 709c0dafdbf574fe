/**
 * The drop-in in a tab of any engine: the cross-engine counterparts of support.ts's page helpers,
 * over the driver's `Tab` instead of a Playwright `Page`. Every function here crosses into the
 * page with plain data only.
 */
import type { AuthState } from '../../src/shared/state.js';
import type { DropInAttributes, PageFetchResult, Storefront } from '../support.js';
import { sleep, type Session, type Tab } from './driver.js';

/** A change, sessionexpired or storageunavailable event the page received. */
export interface RecordedEvent {
  type: string;
  detail: unknown;
}

/** The tabs one test opened on the test site, with the drop-in loaded. */
export class Shop {
  readonly session: Session;
  readonly storefront: Storefront;
  readonly tabs: Tab[] = [];

  constructor(session: Session, storefront: Storefront) {
    this.session = session;
    this.storefront = storefront;
  }

  /** Opens a page of the test site with the drop-in (`attributes` as its `data-*`), ready. */
  async open(attributes: DropInAttributes = {}, path = '/site/blank.html'): Promise<Tab> {
    const tab = await this.session.open(this.storefront.url + path);
    this.tabs.push(tab);
    await addDropIn(tab, attributes);
    return tab;
  }

  /** Errors and unhandled rejections recorded in every tab still open (WebDriver shows no console). */
  async pageErrors(): Promise<string[]> {
    const all = await Promise.all(this.tabs.map((tab) => tab.evaluate(() => (window as unknown as { pageErrors?: string[] }).pageErrors ?? []).catch(() => [])));
    return all.flat();
  }
}

/**
 * Adds the drop-in's script tag to the tab's page (again after a reload), records page errors in
 * `window.pageErrors` and the drop-in's events in `window.events`, and waits for `ready`.
 */
export function addDropIn(tab: Tab, attributes: DropInAttributes = {}): Promise<void> {
  return tab.evaluate(async (attributes) => {
    const pageErrors: string[] = [];
    const events: Array<{ type: string; detail: unknown }> = [];
    Object.assign(window, { pageErrors, events });
    window.addEventListener('error', (event) => pageErrors.push(`error: ${event.message}`));
    window.addEventListener('unhandledrejection', (event) => pageErrors.push(`unhandled rejection: ${String(event.reason)}`));
    const script = document.createElement('script');
    script.src = '/storefront-auth.js';
    Object.assign(script.dataset, attributes);
    const loaded = new Promise((resolve, reject) => {
      script.onload = resolve;
      script.onerror = () => reject(new Error('/storefront-auth.js did not load'));
    });
    document.head.append(script);
    await loaded;
    for (const type of ['change', 'sessionexpired', 'storageunavailable']) {
      window.storefrontAuth.addEventListener(type, (event) => events.push({ type, detail: (event as CustomEvent).detail }));
    }
    await window.storefrontAuth.ready;
  }, attributes);
}

/** Runs `fetch(url, init)` in the tab; the URL is relative to the page unless absolute. */
export function pageFetch(tab: Tab, url: string, init: RequestInit = {}): Promise<PageFetchResult> {
  return tab.evaluate(
    async ({ url, init }) => {
      const response = await fetch(url, init);
      return { status: response.status, body: await response.text() };
    },
    { url, init },
  );
}

export function getState(tab: Tab): Promise<AuthState> {
  return tab.evaluate(() => window.storefrontAuth.getState());
}

export function createCart(tab: Tab): Promise<AuthState> {
  return tab.evaluate(() => window.storefrontAuth.createCart());
}

export function login(tab: Tab, credentials: { username: string; password: string }): Promise<AuthState> {
  return tab.evaluate((credentials) => window.storefrontAuth.login(credentials), credentials);
}

export function logout(tab: Tab): Promise<AuthState> {
  return tab.evaluate(() => window.storefrontAuth.logout());
}

/** The events the tab's page recorded since the drop-in was added. */
export function recordedEvents(tab: Tab): Promise<RecordedEvent[]> {
  return tab.evaluate(() => (window as unknown as { events: RecordedEvent[] }).events);
}

/** Waits until the tab's state says the access token has expired, plus `extraMs`. */
export async function waitForExpiry(tab: Tab, extraMs = 100): Promise<void> {
  const state = await getState(tab);
  const wait = (state.accessTokenExpiresAt ?? Date.now()) - Date.now() + extraMs;
  if (wait > 0) await sleep(wait);
}

/**
 * Starts `count` account requests at once in each tab, without waiting for them, then collects
 * their statuses (0 for a network error): a storm from several tabs, as near to at once as the
 * tool allows (WebDriver starts one tab's after the other's).
 */
export async function storm(tabs: Tab[], count: number): Promise<number[]> {
  const fire = (tab: Tab) =>
    tab.evaluate((count) => {
      const all = Array.from({ length: count }, () => fetch('/api/v2/storefront/account').then((response) => response.status, () => 0));
      Object.assign(window, { storm: Promise.all(all) });
    }, count);
  await Promise.all(tabs.map(fire));
  const settled = await Promise.all(tabs.map((tab) => tab.evaluate(() => (window as unknown as { storm: Promise<number[]> }).storm)));
  return settled.flat();
}
