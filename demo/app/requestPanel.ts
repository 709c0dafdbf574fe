/**
 * The live panel's list of the last requests, as the shop's server received them, each with the name
 * of the credential header it carried. It reads the reference storefront's `GET /__control/requests`
 * (demo/storefront/README.md), which names headers and never shows their values.
 */
import { flavour } from './flavour.js';

/** One request in the server's log. */
interface LoggedRequest {
  method: string;
  path: string;
  at: number;
  headers: string[];
}

/** How often the panel asks while the page is visible and the server answers. */
const POLL_MS = 1500;
/** The longest wait between asks while the server cannot be reached (the wait doubles up to it). */
const MAX_POLL_MS = 30_000;
/** How many requests the panel lists, newest first. */
const SHOWN = 12;

/**
 * Fills `rows` with the server's log now and every POLL_MS; `refresh()` asks at once. Each failed
 * fetch is an error line in the console (net::ERR_INTERNET_DISCONNECTED, ERR_CONNECTION_REFUSED), so
 * the panel does not ask while the browser is offline, waits longer after each failure, and asks
 * again as soon as the browser is back online.
 */
export function startRequestPanel(rows: HTMLElement): { refresh(): Promise<void> } {
  let pending: Promise<void> | null = null;
  let delay = POLL_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const refresh = (): Promise<void> => {
    if (!navigator.onLine) {
      note(rows, "You're offline: the request log is kept by the shop's server and shows again when you're back online.");
      return Promise.resolve();
    }
    return (pending ??= load(rows)
      .then((reached) => void (delay = reached ? POLL_MS : Math.min(delay * 2, MAX_POLL_MS)))
      .finally(() => (pending = null)));
  };
  // One timer at a time: a poll that starts another chain (`online`) cancels the one before.
  const poll = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      // Offline, `online` starts the polling again; there is nothing to ask until then.
      if (!navigator.onLine) return;
      if (document.visibilityState === 'visible') void refresh().then(poll);
      else poll();
    }, delay);
  };
  addEventListener('online', () => {
    delay = POLL_MS;
    void refresh().then(poll);
  });
  void refresh().then(poll);
  return { refresh };
}

/** Shows the server's log; resolves with whether the server could be reached. */
async function load(rows: HTMLElement): Promise<boolean> {
  let requests: LoggedRequest[];
  try {
    const response = await fetch('/__control/requests', { cache: 'no-store' });
    if (!response.ok) {
      note(rows, 'This server keeps no request log (it is not the reference storefront).');
      return true;
    }
    requests = ((await response.json()) as { requests: LoggedRequest[] }).requests;
  } catch {
    note(rows, "The request log is kept by the shop's server, which cannot be reached.");
    return false;
  }
  if (requests.length === 0) note(rows, 'No API requests yet.');
  else rows.replaceChildren(...requests.slice(-SHOWN).reverse().map(row));
  return true;
}

function row(request: LoggedRequest): HTMLTableRowElement {
  const tr = document.createElement('tr');
  const time = cell(new Date(request.at).toLocaleTimeString([], { hour12: false }));
  const what = cell('');
  const code = document.createElement('code');
  // The panel is a narrow column: a long path breaks after a slash rather than mid-word.
  const path = request.path.startsWith(flavour.apiRoot) ? request.path.slice(flavour.apiRoot.length) : request.path;
  code.append(`${request.method} `, ...path.split(/(?<=\/)/).flatMap((part, index) => (index === 0 ? [part] : [document.createElement('wbr'), part])));
  what.append(code);
  const header = cell(request.headers.length > 0 ? '' : 'none');
  // One header name never breaks at its own hyphen (`x-spree-token`): the list wraps between names.
  header.append(...request.headers.flatMap((name, index) => [...(index === 0 ? [] : [', ']), Object.assign(document.createElement('span'), { textContent: name })]));
  header.className = request.headers.length > 0 ? 'header' : 'none';
  tr.append(time, what, header);
  return tr;
}

function cell(text: string): HTMLTableCellElement {
  const td = document.createElement('td');
  td.textContent = text;
  return td;
}

function note(rows: HTMLElement, text: string): void {
  const td = cell(text);
  td.colSpan = 3;
  const tr = document.createElement('tr');
  tr.append(td);
  rows.replaceChildren(tr);
}
