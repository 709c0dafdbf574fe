/**
 * The signed-in shopper's order list as this tab last loaded it, so an offline visit shows it (said
 * to be a saved copy) instead of a spinner. It lives in sessionStorage: this tab only, gone when the
 * tab closes, and forgotten at sign-out. It holds the lines the page showed (number, state, count,
 * total), never a response: a cart document carries the order token.
 */

/** The sessionStorage key. */
const KEY = 'demo-orders';

/** A saved list: when it was loaded (ISO 8601) and its lines. */
export interface SavedOrders {
  at: string;
  lines: string[];
}

/** Keeps `lines` as the last list loaded now; best effort (storage may be full or blocked). */
export function saveOrders(lines: string[]): void {
  try {
    sessionStorage.setItem(KEY, JSON.stringify({ at: new Date().toISOString(), lines } satisfies SavedOrders));
  } catch {
    // No saved copy: offline, the page says the orders cannot be loaded.
  }
}

/** The last list loaded in this tab, or `null` (none, or not of the saved shape). */
export function savedOrders(): SavedOrders | null {
  try {
    const saved = JSON.parse(sessionStorage.getItem(KEY) ?? 'null') as Partial<SavedOrders> | null;
    return typeof saved?.at === 'string' && Array.isArray(saved.lines) && saved.lines.every((line) => typeof line === 'string') ? { at: saved.at, lines: saved.lines } : null;
  } catch {
    return null;
  }
}

/** Forgets the list (sign-out, or a session that ended). */
export function forgetOrders(): void {
  sessionStorage.removeItem(KEY);
}
