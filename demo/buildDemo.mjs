// Builds the demo shop (demo/app) into demo/build/, the way an app with a Workbox worker is built:
// the page and the worker bundled by esbuild, the shell files copied, and the precache manifest
// (each shell file with a content hash as its revision) injected into the worker where it reads
// `self.__WB_MANIFEST`, as workbox-build's injectManifest does. build.mjs calls `buildDemo(options)`
// with the esbuild options of the library's own bundles, once per flavour: `store` (Storefront API
// v2) into demo/build/, `spree-v3` (Spree 5's Store API) into demo/build-v3/ (demo/app/flavour.ts).
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const app = fileURLToPath(new URL('app/', import.meta.url));

/** Where each flavour's build goes. */
export const DEMO_BUILDS = {
  store: fileURLToPath(new URL('build/', import.meta.url)),
  'spree-v3': fileURLToPath(new URL('build-v3/', import.meta.url)),
};

/** The shell files copied as they are; app.js is built, sw.js is the worker and never precached. */
const COPIED = ['index.html', 'app.css', 'manifest.webmanifest', 'icons'];

/**
 * Builds `flavour`'s folder (DEMO_BUILDS) from scratch with `common` esbuild options (the library's:
 * minified, source maps, the same browser targets and Workbox's NODE_ENV); resolves with the
 * precache manifest injected into sw.js.
 */
export async function buildDemo(common, flavour = 'store') {
  const out = DEMO_BUILDS[flavour];
  if (out === undefined) throw new TypeError(`flavour must be 'store' or 'spree-v3', not ${flavour}`);
  // Page and worker read it from demo/app/flavour.ts; esbuild drops the other flavour's calls.
  const define = { ...common.define, DEMO_FLAVOUR: JSON.stringify(flavour) };
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  for (const name of COPIED) cpSync(join(app, name), join(out, name), { recursive: true });
  await build({ ...common, define, entryPoints: [join(app, 'app.ts')], outfile: join(out, 'app.js'), format: 'esm' });

  const manifest = shellFiles(out).map((file) => ({
    url: `/${relative(out, file).split(sep).join('/')}`,
    revision: createHash('sha256').update(readFileSync(file)).digest('hex').slice(0, 16),
  }));
  await build({
    ...common,
    entryPoints: [join(app, 'sw.ts')],
    outfile: join(out, 'sw.js'),
    // A service worker is a classic script unless registered with { type: 'module' }.
    format: 'iife',
    define: { ...define, 'self.__WB_MANIFEST': JSON.stringify(manifest) },
  });
  return manifest;
}

/** Every file under `dir` but source maps and the worker itself, in a stable order. */
function shellFiles(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && !entry.name.endsWith('.map') && entry.name !== 'sw.js')
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name))
    .sort();
}
