/**
 * How each engine is made to stop a service worker the way it does by itself, whichever tool drives
 * it. Chromium stops workers on request (CDP `ServiceWorker.stopAllWorkers`); Firefox stops an
 * idle worker after `dom.serviceWorkers.idle_timeout`, which the launch shortens; WebKit has neither:
 * see `WEBKIT_STOP`.
 */
import { sleep } from './driver.js';

/** Firefox stops a worker this long after its last event (30 s by default). */
export const FIREFOX_IDLE_MS = 2_000;

/** Firefox stops a worker whose events last this much longer than FIREFOX_IDLE_MS. */
export const FIREFOX_EXTENDED_MS = 3_000;

/** Firefox's prefs for the suite, whichever tool launches it. */
export const FIREFOX_PREFS: Record<string, string | number | boolean> = {
  'dom.serviceWorkers.idle_timeout': FIREFOX_IDLE_MS,
  // The longest a worker with a pending event (a `respondWith`, a `waitUntil`) is kept past the idle
  // timeout (default 5 min), after which Firefox stops it: short enough that a flow can see Firefox
  // stop a worker in the middle of a refresh (within the worker's own 8 s budget), long enough for
  // every event of the flows to end well before.
  'dom.serviceWorkers.idle_extended_timeout': FIREFOX_EXTENDED_MS,
  // Page and worker console lines on stdout, seen with ENGINES_DEBUG=1.
  'devtools.console.stdout.content': true,
  // Nothing to fetch on a closed network.
  'app.normandy.enabled': false,
  'messaging-system.rsexperimentloader.enabled': false,
};

export const FIREFOX_STOP = `idle: Firefox stops a worker ${FIREFOX_IDLE_MS / 1000} s after its last event (dom.serviceWorkers.idle_timeout), so the tabs keep still for ${(FIREFOX_IDLE_MS + 1_000) / 1000} s`;

/** Keeps the tabs still until Firefox has stopped the idle worker. */
export function firefoxIdleStop(): Promise<void> {
  return sleep(FIREFOX_IDLE_MS + 1_000);
}

export const CHROMIUM_STOP = 'CDP ServiceWorker.stopAllWorkers';
