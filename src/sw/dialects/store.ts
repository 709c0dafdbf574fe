/** The storefront API v2's own names (docs/servers.md, "The storefront API v2"): the `store` dialect, the Storefront API v2 shape with `X-Store-Order-Token`. */
import type { Dialect } from '../dialect.js';
import { storefrontV2 } from './storefrontV2.js';

/** The `store` preset (docs/behaviour.md, "Configuration"): no revocation path. */
export const store: Dialect = storefrontV2({ name: 'store', orderTokenHeader: 'X-Store-Order-Token', tokenPath: '/store_oauth/token', revokePath: null });
