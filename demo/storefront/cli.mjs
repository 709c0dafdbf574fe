#!/usr/bin/env node
// Runs the reference storefront on its own:
//   node demo/storefront/cli.mjs [--port 8787] [--host 127.0.0.1] [--access-token-lifetime 7200]
//     [--rotation doorkeeper|strict] [--revocation all|doorkeeper-5.5] [--flavour store|spree|spree-v3]
//     [--publishable-key pk_…] [--base-path /store] [--static [PREFIX=]DIR]...
// PORT, ACCESS_TOKEN_LIFETIME, ROTATION, REVOCATION, FLAVOUR, PUBLISHABLE_KEY and BASE_PATH work too; flags
// win. Port 0 is ephemeral. The access token lifetime defaults to 7200 s, and to 3600 s under spree-v3.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startStorefront } from './server.mjs';
import { startFailureMessage } from './startFailure.mjs';

const usage = 'Usage: node demo/storefront/cli.mjs [--port N] [--host H] [--access-token-lifetime S] [--rotation doorkeeper|strict] [--revocation all|doorkeeper-5.5] [--flavour store|spree|spree-v3] [--publishable-key K] [--base-path P] [--static [PREFIX=]DIR]...';

let values;
try {
  ({ values } = parseArgs({
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'access-token-lifetime': { type: 'string' },
      rotation: { type: 'string' },
      revocation: { type: 'string' },
      flavour: { type: 'string' },
      'publishable-key': { type: 'string' },
      'base-path': { type: 'string' },
      static: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
  }));
} catch (error) {
  console.error(`${/** @type {Error} */ (error).message}\n${usage}`);
  process.exit(2);
}
if (values.help) {
  console.log(usage);
  process.exit(0);
}

const env = process.env;
/** `--static DIR` mounts DIR at '/'; `--static /prefix/=DIR` mounts it under /prefix/. */
const mounts = (values.static ?? []).map((spec) => {
  const at = spec.indexOf('=');
  return at > 0 && spec.startsWith('/') ? { prefix: spec.slice(0, at), dir: resolve(spec.slice(at + 1)) } : { prefix: '/', dir: resolve(spec) };
});

const lifetime = values['access-token-lifetime'] ?? env['ACCESS_TOKEN_LIFETIME'];
const publishableKey = values['publishable-key'] ?? env['PUBLISHABLE_KEY'];
const settings = {
  port: Number(values.port ?? env['PORT'] ?? 8787),
  host: values.host ?? '127.0.0.1',
  accessTokenLifetime: lifetime === undefined ? undefined : Number(lifetime),
  rotation: /** @type {'doorkeeper' | 'strict'} */ (values.rotation ?? env['ROTATION'] ?? 'doorkeeper'),
  revocation: /** @type {'all' | 'doorkeeper-5.5'} */ (values.revocation ?? env['REVOCATION'] ?? 'all'),
  flavour: /** @type {'store' | 'spree' | 'spree-v3'} */ (values.flavour ?? env['FLAVOUR'] ?? 'store'),
  ...(publishableKey === undefined ? {} : { publishableKey }),
  basePath: values['base-path'] ?? env['BASE_PATH'] ?? '',
  static: mounts,
};

let storefront;
try {
  storefront = await startStorefront(settings);
} catch (error) {
  console.error(await startFailureMessage(error, settings.port, (other) => `PORT=${other} npm run storefront`, { host: settings.host }));
  process.exit(1);
}

if (storefront.v3) {
  const { login, refresh, logout, register, passwordReset, window } = storefront.v3.rateLimits;
  console.log(`Reference storefront listening on ${storefront.url} (flavour spree-v3: Spree 5.4+ Store API, JWTs for ${storefront.accessTokenLifetime} s, strict refresh-token rotation)`);
  console.log(`API at ${storefront.apiUrl}/api/v3/store, publishable key (X-Spree-Api-Key): ${storefront.v3.publishableKey}`);
  console.log(`Rate limits per IP per ${window} s: login ${login}, refresh ${refresh}, logout ${logout}, register ${register}, password reset ${passwordReset}`);
} else {
  const oauth = settings.flavour === 'spree' ? '/spree_oauth' : '/store_oauth';
  console.log(`Reference storefront listening on ${storefront.url} (flavour ${settings.flavour}, rotation ${settings.rotation}, revocation ${settings.revocation}, access tokens ${storefront.accessTokenLifetime} s)`);
  console.log(`API at ${storefront.apiUrl}/api/v2/storefront, tokens at ${storefront.apiUrl}${oauth}/token`);
}
console.log(`Demo user: ${storefront.user.username} / ${storefront.user.password} (also shopper2@example.com / secret456)`);
for (const { prefix, dir } of mounts) console.log(`Serving ${dir} at ${prefix}`);

let stopping = false;
const stop = (/** @type {string} */ signal) => {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: stopping.`);
  void storefront.close().then(() => process.exit(0));
};
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
