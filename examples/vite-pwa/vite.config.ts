import { defineConfig } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';

export default defineConfig({
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
