// Builds the dist files (the two prebuilt scripts, the bridge, the interceptor and the React
// binding), minified with source maps, plus declarations and the standalone worker's debug build,
// and prints each file's gzip size (each held to its ceiling by test/size.test.ts); then the demo
// shop. `node build.mjs` from the repo root; `node build.mjs --lib` builds the package alone (npm's
// `prepare`, run by `npm ci`, `npm pack` and `npm install <git url>`, so it stays cheap).
import { build } from 'esbuild';
import { execFile } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { minify } from 'terser';

const common = {
  bundle: true,
  minify: true,
  sourcemap: true,
  target: ['chrome109', 'firefox115', 'safari16.4'],
  logLevel: 'warning',
  legalComments: 'none',
  // Workbox reads process.env.NODE_ENV to keep its dev-only asserts and logs; a browser has no
  // `process`, so the bundles must have it replaced (and the production build drops those paths).
  // STOREFRONT_AUTH_DEBUG (src/shared/debugBuild.ts): true keeps the log lines and long messages.
  define: { 'process.env.NODE_ENV': '"production"', STOREFRONT_AUTH_DEBUG: 'true' },
};

// The ES modules leave their dependencies to the app's bundler, so it shares one Workbox router
// and one copy of idb with the app (docs/behaviour.md, "What it ships").
const external = ['idb', 'workbox-core', 'workbox-core/*', 'workbox-routing', 'workbox-routing/*'];

// The React binding imports the bridge by the package's own name, so that an app importing both
// `storefront-auth-sw` and `storefront-auth-sw/react` bundles one bridge (one StorefrontAuthError),
// and leaves React to the app.
const reactExternal = ['react', 'storefront-auth-sw'];
const bridgeByName = {
  name: 'bridge-by-name',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/page\/index\.js$/ }, () => ({ path: 'storefront-auth-sw', external: true }));
  },
};

// The production standalone worker drops its log lines and long messages (src/shared/debugBuild.ts);
// its debug build, which it runs for `debug=1`, the drop-in and the ES modules keep them.
const production = { ...common.define, STOREFRONT_AUTH_DEBUG: 'false' };

// The two prebuilt scripts get a second minifier pass: terser's compressor, two passes, function
// declarations hoisted (which gzip likes), fed esbuild's source map so that the map still leads to
// src/. It renames local variables only, never a property, so the built files keep the names of the
// stored records and messages that another release reads. The ES modules, which an app's bundler
// minifies again, and the debug build keep esbuild's output.
async function squeeze(file) {
  const map = `${file}.map`;
  const code = readFileSync(file, 'utf8').replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
  const result = await minify(code, {
    ecma: 2020,
    compress: { ecma: 2020, passes: 2, hoist_funs: true },
    mangle: true,
    format: { ecma: 2020 },
    sourceMap: { content: readFileSync(map, 'utf8'), url: map.slice(map.lastIndexOf('/') + 1) },
  });
  writeFileSync(file, `${result.code}\n`);
  writeFileSync(map, result.map);
}

rmSync('dist', { recursive: true, force: true });
await Promise.all([
  build({ ...common, define: production, entryPoints: ['src/sw/standalone.ts'], outfile: 'dist/storefront-auth-sw.js', format: 'iife' }).then(() => squeeze('dist/storefront-auth-sw.js')),
  build({ ...common, entryPoints: ['src/sw/standalone.ts'], outfile: 'dist/storefront-auth-sw.debug.js', format: 'iife' }),
  build({ ...common, entryPoints: ['src/page/dropin.ts'], outfile: 'dist/storefront-auth.js', format: 'iife' }).then(() => squeeze('dist/storefront-auth.js')),
  build({ ...common, entryPoints: ['src/page/index.ts'], outfile: 'dist/index.js', format: 'esm', external }),
  build({ ...common, entryPoints: ['src/sw/index.ts'], outfile: 'dist/sw.js', format: 'esm', external }),
  // 'use client': Next.js (Spree's own storefront) may then render the provider from a server component's tree.
  build({ ...common, entryPoints: ['src/react/index.ts'], outfile: 'dist/react.js', format: 'esm', external: reactExternal, plugins: [bridgeByName], banner: { js: "'use client';" } }),
]);

// The declarations of each side are emitted with that side's lib only (src/page: DOM; src/sw:
// WebWorker), so a page's .d.ts never names a worker global, nor the worker's a page one.
const declare = (project) =>
  promisify(execFile)(process.execPath, ['node_modules/typescript/bin/tsc', '-p', project, '--noEmit', 'false', '--declaration', '--emitDeclarationOnly', '--rootDir', 'src', '--outDir', 'dist/types'])
    .catch((error) => {
      process.stdout.write(error.stdout ?? '');
      throw new Error(`declarations of ${project} failed`);
    });
await Promise.all([declare('src/page/tsconfig.json'), declare('src/sw/tsconfig.json')]);
// After the page's: the React project's program holds the page's files too, and writes them again.
await declare('src/react/tsconfig.json');
writeFileSync('dist/index.d.ts', "export * from './types/page/index.js';\n");
writeFileSync('dist/sw.d.ts', "export * from './types/sw/index.js';\n");
writeFileSync('dist/react.d.ts', "export * from './types/react/index.js';\n");
// The drop-in's global `window.storefrontAuth`, for TypeScript pages that load it with a script tag:
// `/// <reference types="storefront-auth-sw/storefront-auth.js" />` or a type-only import of it.
writeFileSync('dist/storefront-auth.d.ts', "import './types/page/dropin.js';\nexport {};\n");

for (const file of ['storefront-auth-sw.js', 'storefront-auth-sw.debug.js', 'storefront-auth.js', 'index.js', 'sw.js', 'react.js']) {
  const bytes = readFileSync(`dist/${file}`);
  console.log(`dist/${file.padEnd(28)} ${String(bytes.length).padStart(6)} B, ${String(gzipSync(bytes, { level: 9 }).length).padStart(5)} B gzip`);
}

if (process.argv.includes('--lib')) process.exit(0);

// A separate step: the demo shop (demo/app), an app with its own Workbox worker composing
// storefront-auth, built into demo/build/ for `npm run demo` and the end-to-end specs, and for
// Spree 5's Store API into demo/build-v3/ for `npm run demo:v3`.
const { buildDemo } = await import('./demo/buildDemo.mjs');
console.log(`demo/build/: the demo shop, ${(await buildDemo(common)).length} files precached by its worker`);
console.log(`demo/build-v3/: the demo shop for the Store API (spree-v3), ${(await buildDemo(common, 'spree-v3')).length} files precached`);
