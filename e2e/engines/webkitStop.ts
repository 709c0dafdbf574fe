/**
 * WebKit has no command to stop a service worker and no idle timeout to shorten: it stops a worker
 * once no page of its origin has used it for a while. So the tabs leave the origin (about:blank),
 * wait, and come back to where they were: a new document each, controlled by a worker that starts
 * afresh. The flow checks that the worker did start again (e2e/site/witnessed-sw.js).
 */
import { sleep, type Tab } from './driver.js';

/** How long the tabs stay away: WebKitGTK 2.50 stopped the worker about 10 s after the last page left. */
export const WEBKIT_AWAY_MS = 15_000;

export const WEBKIT_STOP = `no page: WebKit stops a worker that no page uses, so the tabs leave the origin for ${WEBKIT_AWAY_MS / 1000} s and come back`;

export async function leaveTheOrigin<T extends Tab>(tabs: T[], urlOf: (tab: T) => string | Promise<string>): Promise<void> {
  const urls = await Promise.all(tabs.map(urlOf));
  for (const tab of tabs) await tab.goto('about:blank');
  await sleep(WEBKIT_AWAY_MS);
  for (const [index, tab] of tabs.entries()) await tab.goto(urls[index]!);
}
