// The packaging test (docs/behaviour.md, "What it ships"): packs the package as npm would publish
// it, installs the tarball into a fresh consumer folder and checks, from the consumer's side, the
// tarball's contents, the `exports` map, the entry points' runtime names and the published types.
// Needs a built dist/ (`node build.mjs`; this test never builds) and the npm registry or npm's
// cache.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const NAME = 'storefront-auth-sw';

/** The four artifacts (docs/behaviour.md, "What it ships"), the standalone worker's debug build, and the declarations of the two ES modules and the drop-in. */
const ARTIFACTS = ['storefront-auth-sw.js', 'storefront-auth-sw.debug.js', 'storefront-auth.js', 'index.js', 'sw.js', 'react.js'];
const DECLARATIONS = ['index.d.ts', 'sw.d.ts', 'storefront-auth.d.ts', 'react.d.ts'];

/** The TypeScript the repo builds with, so the consumer type-checks as the declarations were emitted. */
const TS_VERSION = (JSON.parse(readFileSync(join(REPO, 'node_modules/typescript/package.json'), 'utf8')) as { version: string }).version;
/** React's types as the repo has them: `react` is an optional peer, so a consumer of `./react` installs them itself. */
const REACT_TYPES_VERSION = (JSON.parse(readFileSync(join(REPO, 'node_modules/@types/react/package.json'), 'utf8')) as { version: string }).version;

interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** What `probe.mjs` prints for one specifier, run by Node in the consumer folder. */
interface Probe {
  resolved: string;
  exports?: Record<string, string>;
  recognisesItsError?: boolean;
  error?: { name: string; message: string; stack: string };
}

interface PackInfo {
  filename: string;
  files: { path: string }[];
}

/** The environment for child processes: not a node:test child, and NODE_ENV left to each call. */
function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env['NODE_TEST_CONTEXT'];
  if (extra['NODE_ENV'] === undefined) delete env['NODE_ENV'];
  return env;
}

/** Runs a command to its end; resolves with its exit code rather than rejecting on a non-zero one. */
function run(command: string, args: readonly string[], cwd: string, env = childEnv()): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error === null) resolve({ code: 0, stdout, stderr });
      else if (typeof error.code === 'number') resolve({ code: error.code, stdout, stderr });
      else reject(error);
    });
  });
}

/** Every file under `dir`, as a path relative to it with forward slashes. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((path) => statSync(join(dir, path)).isFile())
    .map((path) => path.split(sep).join('/'));
}

/** The first stack frame of an error's stack text. */
function topFrame(stack: string): string {
  return stack.split('\n').find((line) => line.trimStart().startsWith('at ')) ?? '';
}

const PROBE = `
const [specifier, mode] = process.argv.slice(2);
const result = { resolved: import.meta.resolve(specifier) };
if (mode !== '--resolve-only') {
  try {
    const mod = await import(specifier);
    result.exports = Object.fromEntries(Object.keys(mod).sort().map((key) => [key, typeof mod[key]]));
    if (typeof mod.StorefrontAuthError === 'function' && typeof mod.isStorefrontAuthError === 'function') {
      result.recognisesItsError = mod.isStorefrontAuthError(new mod.StorefrontAuthError('invalid_grant', 'probe'));
    }
  } catch (error) {
    result.error = { name: String(error?.name), message: String(error?.message), stack: String(error?.stack) };
  }
}
console.log(JSON.stringify(result));
`;

/** A worker-like global for Node: `self` is the global object, as in a service worker. */
const WORKER_GLOBAL = 'globalThis.self = globalThis;\n';

const PAGE_CONSUMER = `import { StorefrontAuth, isStorefrontAuthError, type AuthChange, type AuthState, type WriteQueued, type WriteSettled } from '${NAME}';

const auth = await StorefrontAuth.register({ baseUrl: 'https://api.shop.example', preset: 'spree', offlineWrites: true });
auth.addEventListener('writequeued', (event) => {
  const queued: WriteQueued = event.detail;
  console.log(queued.id, queued.method, queued.path);
});
auth.addEventListener('writesettled', (event) => {
  const settled: WriteSettled = event.detail;
  if (settled.outcome === 'rejected') console.log(settled.id, settled.status);
});
auth.addEventListener('change', (event) => {
  const change: AuthChange = event.detail;
  console.log(change.signedIn, change.cart?.number, change.warning?.code);
});
auth.addEventListener('sessionexpired', (event) => console.log(event.detail.signedIn));
try {
  const state: AuthState = await auth.login({ username: 'a', password: 'b' });
  const expiresAt: number | null = state.accessTokenExpiresAt;
  const pending: number = state.pendingWrites;
  console.log(pending);
  console.log(state.signedIn, expiresAt, state.cart?.number, auth.baseUrl);
  await auth.createCart();
  await auth.logout();
} catch (error) {
  if (isStorefrontAuthError(error) && error.code === 'invalid_grant') console.log(error.status, error.message);
}
`;

const WORKER_CONSUMER = `import { installStorefrontAuth, type InstallOptions } from '${NAME}/sw';
import { Router } from 'workbox-routing';

installStorefrontAuth({ baseUrl: 'https://api.shop.example', preset: 'store', offlineWrites: true });
const options: InstallOptions = { baseUrl: 'https://api.shop.example', preset: 'spree', router: new Router() };
installStorefrontAuth(options);
installStorefrontAuth();
`;

/**
 * A page script beside the drop-in's script tag: the type import declares each global the drop-in
 * sets, under its bare name as under `window.`, so docs/recipes.md's drop-in page code type-checks
 * as written.
 */
const DROPIN_CONSUMER = `import type {} from '${NAME}/storefront-auth.js';
import type { AuthState } from '${NAME}';

const show = (state: AuthState): string => JSON.stringify(state);
storefrontAuth.addEventListener('change', (event) => console.log(show(event.detail), event.detail.signedIn));
await storefrontAuth.ready;
const state = await window.storefrontAuth.createCart();
console.log(state.cart?.number, storefrontAuth.baseUrl, window.isStorefrontAuthError(new window.StorefrontAuthError('timeout', 'probe')));
try {
  await storefrontAuth.login({ username: 'shopper@example.com', password: 'secret' });
} catch (error) {
  if (isStorefrontAuthError(error) && error.code === 'invalid_grant') console.log(error.status, error.message);
  else if (error instanceof StorefrontAuthError) console.log(error.code);
}
const other = await StorefrontAuth.register({ baseUrl: 'https://api.shop.example', preset: 'spree' });
console.log(other.baseUrl === window.StorefrontAuth.name);
`;

/** A React app's component and root: the provider with the bridge's options, and the hook. */
const REACT_CONSUMER = `import { createElement, type ReactElement } from 'react';
import { StorefrontAuthProvider, useStorefrontAuth, type StorefrontAuthValue } from '${NAME}/react';
import { isStorefrontAuthError, type AuthState } from '${NAME}';

function Cart(): ReactElement {
  const auth: StorefrontAuthValue = useStorefrontAuth();
  const state: AuthState | null = auth.state;
  const add = async (): Promise<void> => {
    try {
      await auth.createCart();
    } catch (error) {
      if (isStorefrontAuthError(error) && error.code === 'no_service_worker') console.log(auth.error?.message);
    }
  };
  return createElement('button', { onClick: () => void add() }, state?.cart?.number ?? 'no cart');
}

export const app = createElement(StorefrontAuthProvider, { options: { baseUrl: 'https://api.shop.example', preset: 'spree-v3', publishableKey: 'pk_x' } }, createElement(Cart));
`;

/** Each line marked `// ✗` must be a type error, and no other line may be one. */
const BAD_CONSUMER = `import { StorefrontAuth, isStorefrontAuthError, type AuthState } from '${NAME}';
import { installStorefrontAuth } from '${NAME}/sw';
import type {} from '${NAME}/storefront-auth.js';
import { StorefrontAuthProvider, useStorefrontAuth } from '${NAME}/react';

export const wrongType: AuthState = { signedIn: 'yes', accessTokenExpiresAt: null, cart: null }; // ✗
export const incomplete: AuthState = { signedIn: true }; // ✗
export const misspelt = StorefrontAuth.register({ baseURL: 'https://api.shop.example' }); // ✗
export const noSuchCode = (error: unknown) => isStorefrontAuthError(error) && error.code === 'invalid_grnt'; // ✗
installStorefrontAuth({ baseUrl: 'https://api.shop.example', debug: 'yes' }); // ✗
installStorefrontAuth({ router: 'default' }); // ✗
export const unknownPreset = StorefrontAuth.register({ preset: 'spre' }); // ✗
export const noSuchMethod = storefrontAuth.signIn(); // ✗
storefrontAuth.addEventListener('writesettled', (event) => console.log(event.detail.outcome === 'sent')); // ✗
export const noCount: AuthState = { signedIn: false, accessTokenExpiresAt: null, cart: null }; // ✗
export const noSuchGlobal = isStorefrontAuthErr(new Error('x')); // ✗
export const stateMayBeNull = () => useStorefrontAuth().state.signedIn; // ✗
export const optionsChecked = StorefrontAuthProvider({ options: { preset: 'spree-v4' } }); // ✗
export const notAnError = StorefrontAuthError('timeout', 'called without new'); // ✗
`;

function tsconfig(lib: string[], skipLibCheck: boolean, files: string[]): string {
  const compilerOptions = {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    lib: ['ES2022', ...lib],
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck,
    noEmit: true,
    types: [],
  };
  return `${JSON.stringify({ compilerOptions, files }, null, 2)}\n`;
}

describe('the packed package', { timeout: 180_000 }, () => {
  let tmp: string | undefined;
  let app = '';
  let packed: string[] = [];
  let installed = '';

  /** Node's view of a specifier from the consumer folder, with `probe.mjs`. */
  async function probe(specifier: string, options: { env?: NodeJS.ProcessEnv; preload?: string; resolveOnly?: boolean } = {}): Promise<Probe> {
    const args = [...(options.preload === undefined ? [] : ['--import', pathToFileURL(join(app, options.preload)).href]), 'probe.mjs', specifier];
    if (options.resolveOnly === true) args.push('--resolve-only');
    const result = await run(process.execPath, args, app, options.env);
    assert.equal(result.code, 0, `probe of ${specifier} failed:\n${result.stderr}`);
    return JSON.parse(result.stdout) as Probe;
  }

  /** `tsc -p <config>` with the consumer's own TypeScript. */
  function tsc(config: string): Promise<RunResult> {
    return run(process.execPath, [join(app, 'node_modules/typescript/bin/tsc'), '-p', config, '--pretty', 'false'], app);
  }

  before(
    async () => {
      for (const file of [...ARTIFACTS, ...DECLARATIONS]) {
        assert.ok(existsSync(join(REPO, 'dist', file)), `dist/${file} is missing: run \`node build.mjs\` first`);
      }
      tmp = await mkdtemp(join(tmpdir(), `${NAME}-package-`));

      // --ignore-scripts: packing must not build; it takes dist/ as `npm test` built it.
      const pack = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', tmp], REPO);
      assert.equal(pack.code, 0, `npm pack failed:\n${pack.stderr}`);
      const [info] = JSON.parse(pack.stdout) as PackInfo[];
      assert.ok(info, `npm pack printed no package:\n${pack.stdout}`);
      packed = info.files.map((file) => file.path);

      app = join(tmp, 'app');
      await mkdir(app);
      await writeFile(join(app, 'package.json'), `${JSON.stringify({ type: 'module', private: true }, null, 2)}\n`);
      const install = await run(
        'npm',
        ['install', join(tmp, info.filename), `typescript@${TS_VERSION}`, `@types/react@${REACT_TYPES_VERSION}`, '--no-audit', '--no-fund', '--prefer-offline'],
        app,
      );
      assert.equal(install.code, 0, `npm install failed:\n${install.stderr}`);
      installed = join(app, 'node_modules', NAME);

      await writeFile(join(app, 'probe.mjs'), PROBE);
      await writeFile(join(app, 'worker-global.mjs'), WORKER_GLOBAL);
      await writeFile(join(app, 'page.ts'), PAGE_CONSUMER);
      await writeFile(join(app, 'worker.ts'), WORKER_CONSUMER);
      await writeFile(join(app, 'dropin.ts'), DROPIN_CONSUMER);
      await writeFile(join(app, 'react.ts'), REACT_CONSUMER);
      await writeFile(join(app, 'bad.ts'), BAD_CONSUMER);
      // The brief's one-project setup needs skipLibCheck: TypeScript's own lib.dom.d.ts and
      // lib.webworker.d.ts conflict with each other (TS6200, TS2403) when both are checked.
      await writeFile(join(app, 'tsconfig.json'), tsconfig(['DOM', 'WebWorker'], true, ['page.ts', 'worker.ts']));
      // So the declarations themselves, and Workbox's and idb's, are checked per realm instead.
      await writeFile(join(app, 'tsconfig.page.json'), tsconfig(['DOM'], false, ['page.ts']));
      await writeFile(join(app, 'tsconfig.worker.json'), tsconfig(['WebWorker'], false, ['worker.ts']));
      await writeFile(join(app, 'tsconfig.dropin.json'), tsconfig(['DOM'], false, ['dropin.ts']));
      await writeFile(join(app, 'tsconfig.react.json'), tsconfig(['DOM'], false, ['react.ts']));
      await writeFile(join(app, 'tsconfig.bad.json'), tsconfig(['DOM', 'WebWorker'], true, ['bad.ts']));
    },
    { timeout: 170_000 },
  );

  after(async () => {
    if (tmp !== undefined) await rm(tmp, { recursive: true, force: true });
  });

  it('packs the artifacts, their declarations and dist/types, and nothing of the sources', () => {
    const files = new Set(packed);
    for (const file of ['package.json', ...[...ARTIFACTS, ...DECLARATIONS].map((name) => `dist/${name}`)]) {
      assert.ok(files.has(file), `the tarball lacks ${file}`);
    }
    const types = filesUnder(join(REPO, 'dist/types')).map((path) => `dist/types/${path}`);
    assert.ok(types.includes('dist/types/page/index.d.ts') && types.includes('dist/types/sw/index.d.ts'));
    assert.deepEqual(packed.filter((path) => path.startsWith('dist/types/')).sort(), types.sort());
    for (const path of packed) {
      assert.doesNotMatch(path, /^(src|e2e|demo|test)\/|(^|\/)node_modules\//, `the tarball holds ${path}`);
      assert.match(path, /^(package\.json|README(\.\w+)?|LICEN[CS]E(\.\w+)?|CHANGELOG\.md|dist\/.+|docs\/.+)$/i, `the tarball holds ${path}`);
    }
  });

  it('packs every file the README links to or shows, so the installed README has no dead link', () => {
    // The README travels in the tarball: a relative link there resolves inside node_modules.
    const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
    const linked = [...readme.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)].map((match) => match[1] ?? '').filter((target) => !/^[a-z]+:/i.test(target));
    assert.ok(linked.some((target) => target.startsWith('docs/')), 'the README links no docs page');
    const files = new Set(packed);
    for (const target of new Set(linked)) assert.ok(files.has(target.replace(/^\.\//, '')), `the README links ${target}, which the tarball lacks`);
  });

  it('points every exports target, main and types at a file in the tarball', () => {
    const manifest = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { main?: string; types?: string; exports: unknown };
    const targets = (value: unknown): string[] =>
      typeof value === 'string' ? [value] : typeof value === 'object' && value !== null ? Object.values(value).flatMap(targets) : [];
    const files = new Set(packed);
    const all = [...targets(manifest.exports), ...targets(manifest.main), ...targets(manifest.types)];
    assert.ok(all.length >= 6, `too few targets: ${all.join(', ')}`);
    for (const target of all) {
      // A missing `types` target fails silently: TypeScript falls back to the `.d.ts` beside `default`.
      assert.ok(files.has(target.replace(/^\.\//, '')), `${target} is not in the tarball`);
    }
  });

  it('installs with its runtime dependencies', () => {
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { name: string; dependencies: Record<string, string> };
    assert.equal(manifest.name, NAME);
    for (const dependency of ['workbox-core', 'workbox-routing']) {
      assert.ok(dependency in manifest.dependencies, `${dependency} is not a dependency`);
      assert.ok(existsSync(join(app, 'node_modules', dependency, 'package.json')), `${dependency} was not installed`);
    }
    const typescript = JSON.parse(readFileSync(join(app, 'node_modules/typescript/package.json'), 'utf8')) as { version: string };
    assert.equal(typescript.version, TS_VERSION);
  });

  it(`imports '${NAME}' in Node: the bridge`, async () => {
    const bridge = await probe(NAME);
    assert.equal(bridge.error, undefined, bridge.error?.stack);
    assert.equal(realpathSync(fileURLToPath(bridge.resolved)), realpathSync(join(installed, 'dist/index.js')));
    assert.equal(bridge.exports?.['StorefrontAuth'], 'function');
    assert.equal(bridge.exports?.['StorefrontAuthError'], 'function');
    assert.equal(bridge.exports?.['isStorefrontAuthError'], 'function');
    assert.equal(bridge.recognisesItsError, true);
  });

  it(`imports '${NAME}/sw' in Node: the interceptor`, async (t) => {
    const expectInterceptor = (interceptor: Probe, how: string): void => {
      assert.equal(interceptor.error, undefined, `${how}: ${interceptor.error?.stack}`);
      assert.equal(realpathSync(fileURLToPath(interceptor.resolved)), realpathSync(join(installed, 'dist/sw.js')));
      assert.equal(interceptor.exports?.['installStorefrontAuth'], 'function', how);
      assert.equal(interceptor.exports?.['StorefrontAuthError'], 'function', how);
      assert.equal(interceptor.exports?.['isStorefrontAuthError'], 'function', how);
      assert.equal(interceptor.recognisesItsError, true, how);
    };

    // As a bundler ships it (process.env.NODE_ENV replaced by "production"): Workbox's dev-only
    // code is skipped and the module graph (dist/sw.js, workbox-routing, workbox-core) loads.
    expectInterceptor(await probe(`${NAME}/sw`, { env: childEnv({ NODE_ENV: 'production' }) }), 'NODE_ENV=production');
    // In development mode with a worker's `self`. Node's global has no addEventListener, so this
    // also shows that importing the module registers no listener: only installStorefrontAuth does.
    expectInterceptor(await probe(`${NAME}/sw`, { preload: 'worker-global.mjs' }), 'with self = globalThis');

    // In plain Node, development mode, the import may fail only in Workbox itself:
    // workbox-core/_private/logger.js, when NODE_ENV is not "production", runs
    // `self.__WB_DISABLE_DEV_LOGS = false` as it is evaluated, and Node has no `self`.
    const plain = await probe(`${NAME}/sw`);
    if (plain.error === undefined) {
      expectInterceptor(plain, 'plain Node');
    } else {
      assert.equal(plain.error.name, 'ReferenceError', plain.error.stack);
      assert.equal(plain.error.message, 'self is not defined', plain.error.stack);
      assert.match(topFrame(plain.error.stack), /\/node_modules\/workbox-core\/_private\/logger\.js:/, plain.error.stack);
      t.diagnostic(`plain Node, no NODE_ENV: ${plain.error.name}: ${plain.error.message} ${topFrame(plain.error.stack).trim()}`);
    }
  });

  it('resolves every export, the two prebuilt scripts to the files that were built', async () => {
    const requireFromApp = createRequire(join(app, 'package.json'));
    const targets: Record<string, string> = {
      [NAME]: 'index.js',
      [`${NAME}/sw`]: 'sw.js',
      [`${NAME}/react`]: 'react.js',
      [`${NAME}/storefront-auth-sw.js`]: 'storefront-auth-sw.js',
      [`${NAME}/storefront-auth-sw.debug.js`]: 'storefront-auth-sw.debug.js',
      [`${NAME}/storefront-auth.js`]: 'storefront-auth.js',
    };
    for (const [specifier, file] of Object.entries(targets)) {
      const expected = realpathSync(join(installed, 'dist', file));
      const { resolved } = await probe(specifier, { resolveOnly: true });
      assert.equal(realpathSync(fileURLToPath(resolved)), expected, `import.meta.resolve('${specifier}')`);
      assert.equal(realpathSync(requireFromApp.resolve(specifier)), expected, `require.resolve('${specifier}')`);
      assert.ok(readFileSync(expected).equals(readFileSync(join(REPO, 'dist', file))), `${specifier} is not dist/${file}`);
    }
  });

  it('ships the React binding as a client module that imports React and the bridge by name, bundling neither', () => {
    const binding = readFileSync(join(installed, 'dist/react.js'), 'utf8');
    // Next.js renders a 'use client' module's components on the client from a server component's tree.
    assert.ok(binding.startsWith("'use client';\n"), binding.slice(0, 40));
    assert.match(binding, /from\s*"react"/);
    assert.match(binding, /from\s*"storefront-auth-sw"/);
    // One bridge per app: the error class and React's internals live in their own packages.
    assert.doesNotMatch(binding, /extends Error|name\s*=\s*"StorefrontAuthError"|__SECRET_INTERNALS|ReactCurrentDispatcher/);
  });

  it('type-checks a consumer of each entry point, each under its own lib, with the installed TypeScript', async () => {
    const results = await Promise.all(['tsconfig.json', 'tsconfig.page.json', 'tsconfig.worker.json', 'tsconfig.dropin.json', 'tsconfig.react.json'].map(async (config) => ({ config, result: await tsc(config) })));
    for (const { config, result } of results) {
      assert.equal(result.code, 0, `tsc -p ${config}:\n${result.stdout}${result.stderr}`);
    }
  });

  it('rejects a consumer that misuses the types: they are real, not any', async () => {
    const expected = BAD_CONSUMER.split('\n').flatMap((line, index) => (line.endsWith('// ✗') ? [index + 1] : []));
    const result = await tsc('tsconfig.bad.json');
    assert.notEqual(result.code, 0, 'bad.ts type-checked');
    const errors = result.stdout.split('\n').filter((line) => /^\S.*: error TS\d+/.test(line));
    const lines = errors.map((line) => {
      const match = /^bad\.ts\((\d+),\d+\): error TS\d+/.exec(line);
      assert.ok(match?.[1], `an error outside bad.ts's marked lines: ${line}`);
      return Number(match[1]);
    });
    assert.deepEqual([...new Set(lines)].sort((a, b) => a - b), expected, result.stdout);
  });
});
