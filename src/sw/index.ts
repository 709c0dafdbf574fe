/** storefront-auth-sw/sw: the interceptor, for an app's own (Workbox) service worker. */
export { installStorefrontAuth } from './installStorefrontAuth.js';
export type { InstallOptions, RouteRegistry } from './installStorefrontAuth.js';
export { addStaticRoutes, storefrontAuthRoutes } from './storefrontAuthRoutes.js';
export type { RouterCondition, RouterRule, RouterSource, RouterUrlPattern } from './staticRoutes.js';
export type { StorefrontAuthOptions } from './options.js';
export type { PresetName } from './presets.js';
export { StorefrontAuthError, isStorefrontAuthError } from '../shared/errors.js';
export type { StorefrontAuthErrorCode } from '../shared/errors.js';
export type { AuthState } from '../shared/state.js';
