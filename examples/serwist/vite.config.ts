import { serwist } from '@serwist/vite';
import { defineConfig } from 'vite';

export default defineConfig({
  plugins: [
    // Builds src/sw.ts into dist/sw.js, a classic script, with the precache list where it reads self.__SW_MANIFEST.
    serwist({ swSrc: 'src/sw.ts', swDest: 'sw.js', globDirectory: 'dist', injectionPoint: 'self.__SW_MANIFEST', rollupFormat: 'iife' }),
  ],
});
