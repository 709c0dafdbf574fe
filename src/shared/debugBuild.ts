/**
 * Whether this is a debug build. build.mjs defines STOREFRONT_AUTH_DEBUG as `false` for the
 * production standalone worker, and esbuild then drops every line this guards: the decision log and
 * the long error messages, leaving codes and short messages (Workbox strips its logger and its
 * messages from its production builds alike). The debug worker, the ES modules and Node (tests)
 * leave it undefined, so they keep everything.
 */
declare const STOREFRONT_AUTH_DEBUG: boolean | undefined;

/** `false` only in a production build, where esbuild removes what it guards. */
export const DEBUG_BUILD: boolean = typeof STOREFRONT_AUTH_DEBUG === 'undefined' || STOREFRONT_AUTH_DEBUG;
