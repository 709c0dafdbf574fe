/**
 * A real Spree 4.x server's Storefront API v2 (docs/servers.md, "Spree's storefront endpoints"):
 * the v2 shape with Spree's names, and Doorkeeper's revocation endpoint, which logout uses.
 */
import type { Dialect } from '../dialect.js';
import { storefrontV2 } from './storefrontV2.js';

/** The `spree` preset (docs/behaviour.md, "Configuration"). */
export const spree: Dialect = storefrontV2({ name: 'spree', orderTokenHeader: 'X-Spree-Order-Token', tokenPath: '/spree_oauth/token', revokePath: '/spree_oauth/revoke' });
