// Builds the static site into dist/: the pages of site/ and, at the web root, the two prebuilt
// scripts from the package (and the worker's debug build) (the worker's scope is the folder it is served from, so it goes at `/`).
// STOREFRONT_URL=https://api.your-shop.example npm run build points the pages at your API.
import { copyFileSync, cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
rmSync('dist', { recursive: true, force: true });
cpSync('site', 'dist', { recursive: true });
copyFileSync(require.resolve('storefront-auth-sw/storefront-auth-sw.js'), 'dist/storefront-auth-sw.js');
copyFileSync(require.resolve('storefront-auth-sw/storefront-auth.js'), 'dist/storefront-auth.js');
// The worker's debug build, which it runs instead of itself with `data-debug` (docs/debugging.md).
copyFileSync(require.resolve('storefront-auth-sw/storefront-auth-sw.debug.js'), 'dist/storefront-auth-sw.debug.js');

const api = process.env.STOREFRONT_URL;
if (api) writeFileSync('dist/index.html', readFileSync('dist/index.html', 'utf8').replaceAll('https://api.shop.example', api.replace(/\/$/, '')));
console.log(`dist/: the site, storefront-auth.js and storefront-auth-sw.js${api ? `, for the API at ${api}` : ''}`);
