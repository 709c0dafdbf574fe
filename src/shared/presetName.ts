/** The names accepted by the `preset` option: `store` (SPEC.md) or `spree` (a real Spree server). */
export type PresetName = 'store' | 'spree';
