/**
 * The demo's calls to the storefront API: plain `fetch`, with no token anywhere (the worker adds the
 * credentials), and a running answer to "can the shop's API be reached?", which the page states in
 * plain words rather than leaving the shopper with a spinner.
 */
import { flavour } from './flavour.js';
import { SAVED_COPY_HEADER } from './productsRoute.js';

/** Whether the last call reached the API, and if not, what the page is showing instead. */
export type Reachability = { reachable: true } | { reachable: false; detail: string };

/** Sends the page's API calls and reports, after each one, whether the API could be reached. */
export class ShopApi {
  readonly #report: (reachability: Reachability) => void;

  /** `report` is called after every call with what it found. */
  constructor(report: (reachability: Reachability) => void) {
    this.#report = report;
  }

  /**
   * `fetch(apiRoot + path)` with the flavour's headers; `null` when the API could not be reached (a network error: the browser is
   * offline or the server is down). A saved copy from the worker also counts as unreachable.
   */
  async call(path: string, init: RequestInit = {}): Promise<Response | null> {
    let response: Response;
    try {
      const headers = new Headers(flavour.headers);
      new Headers(init.headers).forEach((value, name) => headers.set(name, value));
      response = await fetch(flavour.apiRoot + path, { ...init, headers });
    } catch {
      this.unreachable('');
      return null;
    }
    const savedAt = response.headers.get(SAVED_COPY_HEADER);
    if (savedAt !== null) this.unreachable(`The products are the list saved on ${new Date(savedAt).toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' })}.`);
    else if (response.status >= 500) this.unreachable(`It answered ${response.status}.`);
    else this.#report({ reachable: true });
    return response;
  }

  /** Records that the API could not be reached; `detail` says what the page shows instead. */
  unreachable(detail: string): void {
    this.#report({ reachable: false, detail });
  }
}

/** The body of a JSON answer, or `null` when the answer was not a 2xx JSON document. */
export async function documentOf<T>(response: Response | null): Promise<T | null> {
  if (response === null || !response.ok) return null;
  try {
    return (await response.json()) as T;
  } catch {
    return null;
  }
}
