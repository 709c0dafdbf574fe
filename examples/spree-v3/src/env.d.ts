/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** The Store API's origin, from .env or the environment. */
  readonly VITE_STOREFRONT_URL: string;
  /** The Store API's publishable key (`pk_…`). */
  readonly VITE_SPREE_PUBLISHABLE_KEY: string;
}
