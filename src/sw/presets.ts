import type { PresetName } from '../shared/presetName.js';

/** The wire details that differ between servers of the storefront API (CONTRACT.md, "Configuration"). */
export interface Preset {
  readonly name: PresetName;
  /** The header that carries a guest's cart token. */
  readonly orderTokenHeader: string;
  /** The OAuth token path, under the base URL. */
  readonly tokenPath: string;
  /** Where tokens are revoked at logout, or `null` when the server has no such path. */
  readonly revokePath: string | null;
}

export type { PresetName };

/** SPEC.md's names (`store`) and a real Spree server's (`spree`, STOREFRONT-FACTS.md). */
export const PRESETS: Readonly<Record<PresetName, Preset>> = Object.freeze({
  store: { name: 'store', orderTokenHeader: 'X-Store-Order-Token', tokenPath: '/store_oauth/token', revokePath: null },
  spree: {
    name: 'spree',
    orderTokenHeader: 'X-Spree-Order-Token',
    tokenPath: '/spree_oauth/token',
    revokePath: '/spree_oauth/revoke',
  },
});

/** True when `name` is one of the preset names. */
export function isPresetName(name: string): name is PresetName {
  return Object.hasOwn(PRESETS, name);
}
