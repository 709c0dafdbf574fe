/** SPEC.md's own names: the `store` dialect, the Storefront API v2 shape with `X-Store-Order-Token`. */
import type { Dialect } from '../dialect.js';
import { storefrontV2 } from './storefrontV2.js';

/** The `store` preset (CONTRACT.md, "Configuration"): no revocation path. */
export const store: Dialect = storefrontV2({ name: 'store', orderTokenHeader: 'X-Store-Order-Token', tokenPath: '/store_oauth/token', revokePath: null });
