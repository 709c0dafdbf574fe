/**
 * One bridge action, one time budget (docs/behaviour.md, "Bounds on every wait"). The bridge gives
 * up after 10 s, so a change made later is one the page was told had timed out. The budget starts
 * when the worker receives the message, and everything the action does before its change is made
 * shares it: the wait for storage, the refresh lock and a refresh (which alone may last 15 s +
 * 8 s), and the change-making request itself, which gets what is left (`OwnLimits.budget`).
 */
import { OWN_REQUEST_BUDGET_MS } from './outbound.js';

/** When each action's budget ends, on `performance.now()`'s clock: a signal cannot say. */
const deadlines = new WeakMap<AbortSignal, number>();

/** A new action's budget: a signal that aborts `OWN_REQUEST_BUDGET_MS` from now. */
export function startActionBudget(): AbortSignal {
  const budget = AbortSignal.timeout(OWN_REQUEST_BUDGET_MS);
  deadlines.set(budget, performance.now() + OWN_REQUEST_BUDGET_MS);
  return budget;
}

/**
 * What is left of `budget`, ms: the bound on the storage waits that keep the change its request made
 * (a login's pair, a new cart), so that the reply still comes within the bridge's 10 s; once spent,
 * the memory copy takes the change at once and its write lands later. A signal this module did not
 * make has no end it knows of.
 */
export function budgetLeftMs(budget: AbortSignal): number {
  if (budget.aborted) return 0;
  const deadline = deadlines.get(budget);
  return deadline === undefined ? Infinity : Math.max(0, deadline - performance.now());
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
