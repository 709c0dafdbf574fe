/**
 * The presets (docs/behaviour.md, "Configuration"): each names a dialect, one file per server in
 * `dialects/` (dialect.ts).
 */
import { isPresetName, PRESET_NAMES, type PresetName } from '../shared/presetName.js';
import type { Dialect } from './dialect.js';
import { spree } from './dialects/spree.js';
import { spreeV3 } from './dialects/spreeV3.js';
import { store } from './dialects/store.js';

export type { PresetName };
export { isPresetName, PRESET_NAMES };

/** The dialect of `name`; `publishableKey` is checked by the caller where the preset needs one. */
export function dialectFor(name: PresetName, publishableKey: string): Dialect {
  if (name === 'spree-v3') return spreeV3(publishableKey);
  return name === 'spree' ? spree : store;
}
