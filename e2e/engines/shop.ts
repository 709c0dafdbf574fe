/**
 * The drop-in in a tab of any engine: the cross-engine counterparts of support.ts's page helpers,
 * over the driver's `Tab` instead of a Playwright `Page`. Every function here crosses into the
 * page with plain data only.
 */
import type { AuthState } from '../../src/shared/state.js';
import type { DropInAttributes, PageFetchResult, Storefront } from '../support.js';
import { sleep, type Session, type Tab } from './driver.js';

/** A change, sessionexpired, storageunavailable, writequeued or writesettled event the page received. */
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

  /** Opens a page with the drop-in set for the storefront's spree-v3 flavour (`v3DropIn`), ready. */
  openV3(attributes: DropInAttributes = {}): Promise<Tab> {
    return this.open(v3DropIn(this.storefront, attributes));
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
    for (const type of ['change', 'sessionexpired', 'storageunavailable', 'writequeued', 'writesettled']) {
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

/** Where the Store API lives under the storefront's URL (spree-v3). */
export const V3 = '/api/v3/store';

/** The drop-in's attributes for a storefront of the spree-v3 flavour: the preset and the storefront's publishable key. */
export function v3DropIn(storefront: Storefront, attributes: DropInAttributes = {}): DropInAttributes {
  if (storefront.v3 === null) throw new Error('The storefront is not of the spree-v3 flavour: use spreeV3Storefront()');
  return { preset: 'spree-v3', publishableKey: storefront.v3.publishableKey, ...attributes };
}

/** The headers a page's own Store API call carries, as the official SDK sends them: its publishable key, and JSON. */
export function v3Headers(storefront: Storefront, headers: Record<string, string> = {}): Record<string, string> {
  return { 'Content-Type': 'application/json', 'X-Spree-Api-Key': v3DropIn(storefront).publishableKey ?? '', ...headers };
}

/** A page's own Store API call: `fetch(V3 + path)` with `v3Headers`, the body (if any) as JSON. */
export function v3Fetch(tab: Tab, storefront: Storefront, path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<PageFetchResult> {
  return pageFetch(tab, V3 + path, {
    method: init.method ?? 'GET',
    headers: v3Headers(storefront, init.headers),
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
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

/** A bridge call's rejection, reduced to plain values (`null` if it resolved). */
export interface CaughtError {
  name: string;
  code: string;
  status?: number;
}

/** Runs a bridge method in the tab and returns its error, or `null` when it resolved. */
export function bridgeError(tab: Tab, method: 'login' | 'logout' | 'createCart', argument?: unknown): Promise<CaughtError | null> {
  return tab.evaluate(
    ({ method, argument }) =>
      (window.storefrontAuth[method] as (argument?: unknown) => Promise<unknown>).call(window.storefrontAuth, argument).then(
        () => null,
        (error: CaughtError) => ({ name: error.name, code: error.code, ...(error.status === undefined ? {} : { status: error.status }) }),
      ),
    { method, argument },
  );
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
 * Starts `count` account requests (`url` with `init`; by default v2's account) at once in each tab,
 * without waiting for them, then collects their statuses (0 for a network error): a storm from
 * several tabs, as near to at once as the tool allows (WebDriver starts one tab's after the other's).
 */
export async function storm(tabs: Tab[], count: number, url = '/api/v2/storefront/account', init: RequestInit = {}): Promise<number[]> {
  const fire = (tab: Tab) =>
    tab.evaluate(({ count, url, init }) => {
      const all = Array.from({ length: count }, () => fetch(url, init).then((response) => response.status, () => 0));
      Object.assign(window, { storm: Promise.all(all) });
    }, { count, url, init });
  await Promise.all(tabs.map(fire));
  const settled = await Promise.all(tabs.map((tab) => tab.evaluate(() => (window as unknown as { storm: Promise<number[]> }).storm)));
  return settled.flat();
}
