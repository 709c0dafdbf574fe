// The prebuilt worker goes to the web root (Vite serves and copies public/ as /): a worker controls
// the pages under the folder it is served from, and StorefrontAuthProvider registers
// /storefront-auth-sw.js.
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';

mkdirSync('public', { recursive: true });
const { resolve } = createRequire(import.meta.url);
copyFileSync(resolve('storefront-auth-sw/storefront-auth-sw.js'), 'public/storefront-auth-sw.js');
// Its debug build, which it runs instead of itself with `debug: true` (docs/debugging.md).
copyFileSync(resolve('storefront-auth-sw/storefront-auth-sw.debug.js'), 'public/storefront-auth-sw.debug.js');
