// `npm run demo`: the reference storefront with the demo shop (demo/app, built into demo/build/ by
// `npm run build`) at its root, so the shop's API is the page's own origin. Prints the URL to open.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startStorefront } from './storefront/server.mjs';
import { startFailureMessage } from './storefront/startFailure.mjs';

const build = fileURLToPath(new URL('build/', import.meta.url));
if (!existsSync(`${build}sw.js`)) {
  console.error('demo/build/ is missing: run `npm run build` first (or `npm run demo`, which builds).');
  process.exit(1);
}
const port = Number(process.env.PORT ?? 8787);
let storefront;
try {
  storefront = await startStorefront({
    port,
    accessTokenLifetime: Number(process.env.ACCESS_TOKEN_LIFETIME ?? 7200),
    rotation: process.env.ROTATION ?? 'doorkeeper',
    static: [{ prefix: '/', dir: build }],
  });
} catch (error) {
  console.error(startFailureMessage(error, port, (other) => `PORT=${other} npm run demo`));
  process.exit(1);
}
// Service workers need a secure context; http://127.0.0.1 and http://localhost count as one.
console.log(`storefront-auth demo shop: open ${storefront.url}/`);
console.log(`Sign in as ${storefront.user.username} / ${storefront.user.password}. Ctrl-C stops.`);
const stop = () => storefront.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
