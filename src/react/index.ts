/** storefront-auth-sw/react: the React binding over the page bridge. */
export { StorefrontAuthProvider } from './StorefrontAuthProvider.js';
export type { StorefrontAuthProviderProps } from './StorefrontAuthProvider.js';
export { useStorefrontAuth } from './useStorefrontAuth.js';
export type { StorefrontAuthValue } from './useStorefrontAuth.js';
