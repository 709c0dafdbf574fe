// Builds the four dist files of CONTRACT.md, minified with source maps, plus declarations and the
// standalone worker's debug build, and prints each file's gzip size (STYLE.md rule 10); then the
// demo shop. `node build.mjs` from the repo root; `node build.mjs --lib` builds the package alone
// (npm's `prepare`, run by `npm ci`, `npm pack` and `npm install <git url>`, so it stays cheap).
import { build } from 'esbuild';
import { execFile } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { minify } from 'terser';
import { WORKER_INTERNAL } from './scripts/workerInternal.mjs';

// idb's index adds two extensions to its proxies as it loads (its `replaceTraps` calls): the
// `db.get(store, key)` shortcuts and async iteration. No bundler can tell that such calls are unused;
// storefront-auth uses neither (src/sw/credentialStorage.ts goes through transactions), so they are
// marked pure and the two prebuilt workers leave them out (-454 B gzip); an app's bundler, which
// gets idb from the ES module, keeps them for the app. Loud if idb changes its index.
const idbCoreOnly = {
  name: 'idb-core-only',
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/]idb[\\/]build[\\/]index\.js$/ }, async ({ path }) => {
      const source = await readFile(path, 'utf8');
      const marked = source.replace(/^replaceTraps\(/gm, '/* @__PURE__ */ replaceTraps(');
      if (marked.split('@__PURE__').length !== 3) throw new Error(`build.mjs: ${path} no longer extends its proxies with two replaceTraps calls; check idbCoreOnly`);
      return { contents: marked, loader: 'js' };
    });
  },
};

// The standalone worker calls two of Workbox Router's methods, registerRoute and addFetchListener
// (src/sw/standalone.ts), and handleRequest and findMatchingRoute run for them. A class's methods
// are not tree-shaken, so the rest (the `routes` getter, the CACHE_URLS listener, the default and
// catch handler setters, and unregisterRoute, the one user of WorkboxError) are cut from its source
// for the two prebuilt workers (-301 B gzip), as is Route's setCatchHandler (-11 B). With no setter
// left, no default or catch handler can exist, so handleRequest's branches that would run them are
// cut too (-118 B): it calls the matched route's handler, and answers nothing when none matched,
// as it did. dist/sw.js keeps the whole Router for the app that bundles it. Loud if a method or a
// branch is no longer in Workbox 7's layout.
const WORKBOX_UNUSED = {
  'Router.js': ['get routes', 'addCacheListener', 'setDefaultHandler', 'setCatchHandler', 'unregisterRoute'],
  'Route.js': ['setCatchHandler'],
};
/** Router's code for default and catch handlers: each from its first line up to the line after it. */
const ROUTER_HANDLER_BRANCHES = [
  ['        this._defaultHandlerMap = new Map();\n', '    }\n'],
  ["        // If we don't have a handler because there was no matching route, then\n", '        if (!handler) {\n'],
  ["        // Get route's catch handler, if it exists\n", '        return responsePromise;\n'],
];
const workboxInUse = {
  name: 'workbox-in-use',
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/]workbox-routing[\\/]Router?\.js$/ }, async ({ path }) => {
      let source = await readFile(path, 'utf8');
      const router = path.endsWith('Router.js');
      for (const method of WORKBOX_UNUSED[router ? 'Router.js' : 'Route.js']) {
        // A method at the class body's indentation, from its signature to its closing brace.
        const pattern = new RegExp(`^    ${method}\\([^)]*\\) \\{\\n[\\s\\S]*?^    \\}\\n`, 'gm');
        if (source.match(pattern)?.length !== 1) throw new Error(`build.mjs: ${path} no longer has one ${method} method in Workbox 7's layout; check workboxInUse`);
        source = source.replace(pattern, '');
      }
      if (router) {
        for (const [from, to] of ROUTER_HANDLER_BRANCHES) {
          const start = source.indexOf(from);
          const end = source.indexOf(to, start);
          if (start < 0 || source.indexOf(from, start + 1) >= 0 || end < 0) throw new Error(`build.mjs: ${path} no longer has one "${from.trim()}"; check workboxInUse`);
          source = source.slice(0, start) + source.slice(end);
        }
        // What is left calls the matched route's handler and reads no default or catch handler.
        if (/_defaultHandlerMap|atchHandler/.test(source) || !source.includes('responsePromise = handler.handle(')) throw new Error(`build.mjs: ${path} is not Router as workboxInUse expects it after the cuts; check it`);
      }
      return { contents: source, loader: 'js' };
    });
    // Each Workbox module imports its package's `_version.js`, which only puts the package's version
    // in the script's text for tools that look for it: `self['workbox:core:7.4.0'] && _()` reads a
    // property no one sets, a no-op. The prebuilt workers leave it out (-36 B gzip). Loud if the
    // file ever holds anything else.
    build.onLoad({ filter: /[\\/]node_modules[\\/]workbox-[a-z-]+[\\/]_version\.js$/ }, async ({ path }) => {
      const source = await readFile(path, 'utf8');
      if (!/^"use strict";\n\/\/ @ts-ignore\ntry \{\n {4}self\['workbox:[a-z-]+:[\w.-]+'\] && _\(\);\n\}\ncatch \(e\) \{ \}\n?$/.test(source)) throw new Error(`build.mjs: ${path} is no longer only Workbox's version mark; check workboxInUse`);
      return { contents: '', loader: 'js' };
    });
  },
};

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
// and one copy of idb with the app (CONTRACT.md, "Artifacts").
const external = ['idb', 'workbox-core', 'workbox-core/*', 'workbox-routing', 'workbox-routing/*'];

// The production standalone worker drops its log lines and long messages (src/shared/debugBuild.ts);
// its debug build, which it runs for `debug=1`, the drop-in and the ES modules keep them.
const production = { ...common.define, STOREFRONT_AUTH_DEBUG: 'false' };

// The two prebuilt scripts get a second minifier pass: terser's compressor, two passes, function
// declarations hoisted (which gzip likes: -94 B), fed esbuild's source map so that the map still
// leads to src/ (the production worker -757 B gzip in all, the drop-in -70 B). The ES modules, which
// an app's bundler minifies again, and the debug build keep esbuild's output. The production worker
// alone also has `internal` property names mangled (WORKER_INTERNAL).
async function squeeze(file, internal = []) {
  const map = `${file}.map`;
  const code = readFileSync(file, 'utf8').replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
  const nameCache = {};
  const result = await minify(code, {
    ecma: 2020,
    compress: { ecma: 2020, passes: 2, hoist_funs: true },
    // terser leaves DOM property names alone, and gives no mangled name one that the code uses unmangled.
    mangle: internal.length === 0 ? true : { properties: { regex: new RegExp(`^(?:${internal.join('|')})$`) } },
    nameCache,
    format: { ecma: 2020 },
    sourceMap: { content: readFileSync(map, 'utf8'), url: map.slice(map.lastIndexOf('/') + 1) },
  });
  // A name terser kept (a DOM property's) or that the code no longer uses is a stale entry: loud.
  const kept = internal.filter((name) => nameCache.props?.props?.[`$${name}`] === undefined);
  if (kept.length > 0) throw new Error(`build.mjs: ${file} kept ${kept.join(', ')} unmangled; take them out of WORKER_INTERNAL`);
  writeFileSync(file, `${result.code}\n`);
  writeFileSync(map, result.map);
}

rmSync('dist', { recursive: true, force: true });
await Promise.all([
  build({ ...common, define: production, plugins: [idbCoreOnly, workboxInUse], entryPoints: ['src/sw/standalone.ts'], outfile: 'dist/storefront-auth-sw.js', format: 'iife' }).then(() => squeeze('dist/storefront-auth-sw.js', WORKER_INTERNAL)),
  build({ ...common, plugins: [idbCoreOnly, workboxInUse], entryPoints: ['src/sw/standalone.ts'], outfile: 'dist/storefront-auth-sw.debug.js', format: 'iife' }),
  build({ ...common, entryPoints: ['src/page/dropin.ts'], outfile: 'dist/storefront-auth.js', format: 'iife' }).then(() => squeeze('dist/storefront-auth.js')),
  build({ ...common, entryPoints: ['src/page/index.ts'], outfile: 'dist/index.js', format: 'esm', external }),
  build({ ...common, entryPoints: ['src/sw/index.ts'], outfile: 'dist/sw.js', format: 'esm', external }),
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
writeFileSync('dist/index.d.ts', "export * from './types/page/index.js';\n");
writeFileSync('dist/sw.d.ts', "export * from './types/sw/index.js';\n");
// The drop-in's global `window.storefrontAuth`, for TypeScript pages that load it with a script tag:
// `/// <reference types="storefront-auth-sw/storefront-auth.js" />` or a type-only import of it.
writeFileSync('dist/storefront-auth.d.ts', "import './types/page/dropin.js';\nexport {};\n");

for (const file of ['storefront-auth-sw.js', 'storefront-auth-sw.debug.js', 'storefront-auth.js', 'index.js', 'sw.js']) {
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
