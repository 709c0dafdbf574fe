// `npm run demo`: the reference storefront and the demo site on one origin, so the drop-in's
// default base URL (the page's origin) is the API. Prints the URL to open.
import { fileURLToPath } from 'node:url';
import { startStorefront } from './storefront/server.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const port = Number(process.env.PORT ?? 8787);
const storefront = await startStorefront({
  port,
  accessTokenLifetime: Number(process.env.ACCESS_TOKEN_LIFETIME ?? 7200),
  rotation: process.env.ROTATION ?? 'doorkeeper',
  static: [
    { prefix: '/', dir: `${root}demo/site` },
    { prefix: '/', dir: `${root}dist` },
  ],
});
console.log(`storefront-auth demo: open ${storefront.url}/`);
console.log(`Sign in as ${storefront.user.username} / ${storefront.user.password}. Ctrl-C stops.`);
const stop = () => storefront.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
