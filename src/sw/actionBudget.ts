/**
 * One bridge action, one time budget (docs/behaviour.md, "Bounds on every wait"). The bridge gives
 * up after 10 s, so a change made later is one the page was told had timed out. The budget starts
 * when the worker receives the message, and everything the action does before its change is made
 * shares it: the wait for storage, the refresh lock and a refresh (which alone may last 15 s +
 * 8 s), and the change-making request itself, which gets what is left (`OwnLimits.budget`).
 */
import { OWN_REQUEST_BUDGET_MS } from './outbound.js';

/** A new action's budget: a signal that aborts `OWN_REQUEST_BUDGET_MS` from now. */
export function startActionBudget(): AbortSignal {
  return AbortSignal.timeout(OWN_REQUEST_BUDGET_MS);
}

/**
 * `wait`'s outcome, or a rejection with `spent()` once `budget` is spent first. `wait` itself runs
 * on (a refresh is shared with other requests and keeps its own bounds); its late failure is
 * handled here, so nothing is left unhandled. The listener stays: once `wait` has settled, a late
 * `reject` does nothing (the worker's size counts every byte).
 */
export function withinBudget<T>(wait: Promise<T>, budget: AbortSignal, spent: () => Error): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const giveUp = (): void => reject(spent());
    if (budget.aborted) giveUp();
    budget.addEventListener('abort', giveUp);
    wait.then(resolve, reject);
  });
}
