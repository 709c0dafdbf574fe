// `npm run demo`: the reference storefront with the demo shop (demo/app, built into demo/build/ by
// `npm run build`) at its root, so the shop's API is the page's own origin. Prints the URL to open.
// `npm run demo:v3` (`--v3`): the same against the storefront's spree-v3 flavour, Spree 5's Store
// API, with the shop built for it (demo/build-v3/: preset spree-v3 and the publishable key). It
// listens on 8788, another origin than 8787, so the two demos never share a browser's worker or storage.
import { existsSync } from 'node:fs';
import { DEMO_BUILDS } from './buildDemo.mjs';
import { startStorefront } from './storefront/server.mjs';
import { startFailureMessage } from './storefront/startFailure.mjs';

const v3 = process.argv.includes('--v3');
const command = v3 ? 'npm run demo:v3' : 'npm run demo';
const build = DEMO_BUILDS[v3 ? 'spree-v3' : 'store'];
if (!existsSync(`${build}sw.js`)) {
  console.error(`demo/${v3 ? 'build-v3' : 'build'}/ is missing: run \`npm run build\` first (or \`${command}\`, which builds).`);
  process.exit(1);
}
const port = Number(process.env.PORT ?? (v3 ? 8788 : 8787));
let storefront;
try {
  storefront = await startStorefront({
    port,
    rotation: process.env.ROTATION ?? 'doorkeeper',
    static: [{ prefix: '/', dir: build }],
    ...(process.env.ACCESS_TOKEN_LIFETIME ? { accessTokenLifetime: Number(process.env.ACCESS_TOKEN_LIFETIME) } : {}),
    // demo/app/flavour.ts builds in the storefront's default publishable key.
    ...(v3 ? { flavour: 'spree-v3' } : {}),
  });
} catch (error) {
  console.error(await startFailureMessage(error, port, (other) => `PORT=${other} ${command}`));
  process.exit(1);
}
// Service workers need a secure context; http://127.0.0.1 and http://localhost count as one.
console.log(`storefront-auth demo shop${v3 ? " against Spree 5's Store API (spree-v3)" : ''}: open ${storefront.url}/`);
if (v3) console.log(`Store API: ${storefront.apiUrl}/api/v3/store, publishable key ${storefront.v3.publishableKey}, JWTs for ${storefront.accessTokenLifetime} s.`);
console.log(`Sign in as ${storefront.user.username} / ${storefront.user.password}. Ctrl-C stops.`);
const stop = () => storefront.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
