/**
 * How the React binding takes back what a bridge adds to the page (its `message` listener on
 * `navigator.serviceWorker`, its `online` listener on `window`) when a provider unmounts: the
 * listeners' `{ signal }` under this key of the options it registers with. Not a `BridgeOptions` member nor
 * an export of the package, so no public name; `Symbol.for`, since `dist/react.js` and
 * `dist/index.js` each bundle this module and must find one key.
 */
export const RELEASE: unique symbol = Symbol.for('storefront-auth-sw');

/** The options with the React binding's signal. */
export type ReleasableOptions<T> = T & { [RELEASE]?: { signal: AbortSignal } };
