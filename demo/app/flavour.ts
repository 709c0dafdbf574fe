/**
 * Which storefront API the demo shop is built for, and the wire details the page and its worker
 * share: the storefront-auth preset, the API's root and the headers of the page's own calls.
 * `npm run demo` builds and serves the `store` flavour (Storefront API v2, demo/build/); `npm run
 * demo:v3` the `spree-v3` one (Spree 5's Store API, demo/build-v3/). demo/buildDemo.mjs sets
 * DEMO_FLAVOUR at build time, so each build holds one flavour and works offline as it is.
 */
import type { StorefrontAuthOptions } from '../../src/sw/index.js';

/** Set by demo/buildDemo.mjs (esbuild's `define`). */
declare const DEMO_FLAVOUR: 'store' | 'spree-v3';

/** The reference storefront's default publishable key (`npm run demo:v3` starts it with this one). */
export const DEMO_PUBLISHABLE_KEY = 'pk_test_storefront_auth';

/** The wire details of one flavour. */
export interface Flavour {
  readonly name: 'store' | 'spree-v3';
  /** What the app's worker passes to `installStorefrontAuth`, besides its base URL. */
  readonly auth: Pick<StorefrontAuthOptions, 'preset' | 'publishableKey'>;
  /** The API's root path on this origin; the live panel shows paths without it. */
  readonly apiRoot: string;
  /** Headers on every call the page sends itself (the Store API wants its key on each, as the official SDK sends it). */
  readonly headers: Readonly<Record<string, string>>;
}

const FLAVOURS: Record<Flavour['name'], Flavour> = {
  store: { name: 'store', auth: { preset: 'store' }, apiRoot: '/api/v2/storefront', headers: {} },
  'spree-v3': {
    name: 'spree-v3',
    auth: { preset: 'spree-v3', publishableKey: DEMO_PUBLISHABLE_KEY },
    apiRoot: '/api/v3/store',
    headers: { 'X-Spree-Api-Key': DEMO_PUBLISHABLE_KEY },
  },
};

/** The flavour this build is for. */
export const flavour: Flavour = FLAVOURS[DEMO_FLAVOUR];

/** The public product list, which the app's worker keeps a copy of for offline visits. */
export const PRODUCTS_PATH = `${flavour.apiRoot}/products`;
