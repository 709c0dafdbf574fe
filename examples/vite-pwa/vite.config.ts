import { defineConfig } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';

export default defineConfig({
  // The dev server pre-bundles the worker's dependencies too, from the start: found later, they would
  // make Vite re-bundle and reload the page.
  optimizeDeps: { entries: ['index.html', 'src/sw.ts'] },
  plugins: [
    VitePWA({
      strategies: 'injectManifest',
      srcDir: 'src',
      filename: 'sw.ts',
      // src/main.ts registers the worker itself: no registerSW.js is injected to register it twice.
      injectRegister: false,
      manifest: false,
      injectManifest: { globPatterns: ['**/*.{js,css,html}'] },
      // The dev server serves the worker too, as an ES module at /dev-sw.js?dev-sw (not at /sw.js).
      devOptions: { enabled: true, type: 'module' },
    }),
  ],
});
