/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** The storefront API, from .env or the environment. */
  readonly VITE_STOREFRONT_URL: string;
}
