/** The names accepted by the `preset` option: `store` (the storefront API v2's own names), `spree` (Spree 4.x's v2) or `spree-v3` (Spree 5's Store API). */
export type PresetName = 'store' | 'spree' | 'spree-v3';

/** Every preset name, for messages and checks on either side. */
export const PRESET_NAMES: readonly PresetName[] = ['store', 'spree', 'spree-v3'];

/** True when `name` is one of the preset names. */
export function isPresetName(name: string): name is PresetName {
  return (PRESET_NAMES as readonly string[]).includes(name);
}

/** True when the preset needs a publishable key: the bridge refuses to register without one, as the worker's dialect does (dialects/spreeV3.ts). */
export function needsPublishableKey(name: PresetName): boolean {
  return name === 'spree-v3';
}
