import { defineConfig } from 'vite';

export default defineConfig({
  // The Spree SDK and its axios fetcher are UMD bundles that read Node's `global`; a page has globalThis.
  define: { global: 'globalThis' },
});
