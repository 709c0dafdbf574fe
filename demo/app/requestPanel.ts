/**
 * The live panel's list of the last requests, as the shop's server received them, each with the name
 * of the credential header it carried. It reads the reference storefront's `GET /__control/requests`
 * (demo/storefront/README.md), which names headers and never shows their values.
 */
import { API } from './shopApi.js';

/** One request in the server's log. */
interface LoggedRequest {
  method: string;
  path: string;
  at: number;
  headers: string[];
}

/** How often the panel asks while the page is visible. */
const POLL_MS = 1500;
/** How many requests the panel lists, newest first. */
const SHOWN = 12;

/** Fills `rows` with the server's log now and every POLL_MS; `refresh()` asks at once. */
export function startRequestPanel(rows: HTMLElement): { refresh(): Promise<void> } {
  let pending: Promise<void> | null = null;
  const refresh = (): Promise<void> => (pending ??= load(rows).finally(() => (pending = null)));
  setInterval(() => {
    if (document.visibilityState === 'visible') void refresh();
  }, POLL_MS);
  void refresh();
  return { refresh };
}

async function load(rows: HTMLElement): Promise<void> {
  let requests: LoggedRequest[];
  try {
    const response = await fetch('/__control/requests', { cache: 'no-store' });
    if (!response.ok) return note(rows, 'This server keeps no request log (it is not the reference storefront).');
    requests = ((await response.json()) as { requests: LoggedRequest[] }).requests;
  } catch {
    return note(rows, "The request log is kept by the shop's server, which cannot be reached.");
  }
  if (requests.length === 0) return note(rows, 'No API requests yet.');
  rows.replaceChildren(...requests.slice(-SHOWN).reverse().map(row));
}

function row(request: LoggedRequest): HTMLTableRowElement {
  const tr = document.createElement('tr');
  const time = cell(new Date(request.at).toLocaleTimeString([], { hour12: false }));
  const what = cell('');
  const code = document.createElement('code');
  code.textContent = `${request.method} ${request.path.startsWith(API) ? request.path.slice(API.length) : request.path}`;
  what.append(code);
  const header = cell(request.headers.length > 0 ? request.headers.join(', ') : 'none');
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
