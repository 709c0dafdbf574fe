/** storefront-auth-sw: the page bridge. */
export { StorefrontAuth } from './StorefrontAuth.js';
export type { AuthChange, BridgeOptions, StorefrontAuthEventMap } from './StorefrontAuth.js';
export { StorefrontAuthError, isStorefrontAuthError } from '../shared/errors.js';
export type { StorefrontAuthErrorCode } from '../shared/errors.js';
export type { AuthState } from '../shared/state.js';
export type { WriteOutcome, WriteQueued, WriteSettled } from '../shared/writeEvents.js';
export type { PresetName } from '../shared/presetName.js';
