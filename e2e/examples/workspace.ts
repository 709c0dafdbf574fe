/**
 * The example projects of examples/ as the end-to-end specs use them: each is copied into
 * examples/.work/<name>/ (its node_modules kept between runs), installed from its own lockfile with
 * the package packed from this repository, built and served. The `examples-setup` project packs and
 * installs once (examples.setup.ts); each spec builds and drives its example.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { root } from '../support.js';

/** The examples, by folder name under examples/. */
export const EXAMPLES = ['static', 'vite-pwa', 'serwist', 'spree-sdk', 'spree-v3', 'react'] as const;
export type ExampleName = (typeof EXAMPLES)[number];

/** Where the work copies live (gitignored); the packed tarball sits in `.pack/` beside them. */
export const WORK = join(root, 'examples/.work');
export const TARBALL = join(WORK, '.pack/storefront-auth-sw.tgz');

/** An example's work copy. */
export function workDir(name: ExampleName): string {
  return join(WORK, name);
}

/** The environment for an example's commands: no CI-wide NODE_ENV, npm quiet. */
function exampleEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false', ...extra };
  delete env['NODE_ENV'];
  return env;
}

/** Runs a command to its end; rejects with its output when it fails. */
export function run(command: string, args: readonly string[], cwd: string, extra: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, env: exampleEnv(extra), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error === null) resolve(stdout);
      else reject(new Error(`${command} ${args.join(' ')} in ${cwd} failed (${String(error.code)}):\n${stdout}\n${stderr}`));
    });
  });
}

/** Seconds since `start` (a `performance.now()`), for the timings each example prints. */
export function seconds(start: number): string {
  return `${((performance.now() - start) / 1000).toFixed(1)} s`;
}

/**
 * Copies examples/<name> over its work copy (sources only) and installs it: its lockfile's pinned
 * dependencies, and storefront-auth-sw from the tarball just packed (the lockfiles hold no integrity
 * for it, since every build packs a new one).
 */
export async function install(name: ExampleName): Promise<void> {
  const dir = workDir(name);
  mkdirSync(dir, { recursive: true });
  cpSync(join(root, 'examples', name), dir, { recursive: true, filter: (path) => !/[/\\](node_modules|dist)$/.test(path) });
  // npm keeps an installed package whose lockfile entry has no integrity: the old copy goes first.
  rmSync(join(dir, 'node_modules/storefront-auth-sw'), { recursive: true, force: true });
  // `npm install` installs the lockfile's versions and, with node_modules from an earlier run, changes
  // only what the lockfile changed; `npm ci` would delete node_modules and install all of it again.
  // The lockfiles lock every platform's optional packages (test/readme.test.ts), so a user's `npm ci`
  // in a fresh copy works too.
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], dir);
  const installed = readFileSync(join(dir, 'node_modules/storefront-auth-sw/dist/sw.js'));
  if (!installed.equals(readFileSync(join(root, 'dist/sw.js')))) throw new Error(`examples/${name}: the installed storefront-auth-sw is not the one just packed`);
}

/** Builds the example with `npm run build` into its work copy's dist/, with the storefront's URL. */
export async function build(name: ExampleName, storefrontUrl: string): Promise<string> {
  const dir = workDir(name);
  rmSync(join(dir, 'dist'), { recursive: true, force: true });
  await run('npm', ['run', 'build'], dir, { STOREFRONT_URL: storefrontUrl, VITE_STOREFRONT_URL: storefrontUrl });
  return join(dir, 'dist');
}

/** A running Vite dev server of an example. */
export interface DevServer {
  url: string;
  close(): Promise<void>;
}

/**
 * Starts `npm run dev` (Vite) and resolves with the URL it prints. Vite takes no port 0: it starts at
 * 5173 and moves on to the next free port, so servers started side by side never share one.
 */
export function startDevServer(name: ExampleName, storefrontUrl: string): Promise<DevServer> {
  const child: ChildProcess = spawn('npm', ['run', 'dev', '--', '--host', '127.0.0.1'], {
    cwd: workDir(name),
    env: exampleEnv({ VITE_STOREFRONT_URL: storefrontUrl, NO_COLOR: '1', FORCE_COLOR: '0' }),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  const close = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.pid === undefined) return resolve();
      child.once('exit', () => resolve());
      process.kill(-child.pid, 'SIGTERM');
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => void close().then(() => reject(new Error(`vite did not start in 60 s:\n${output}`))), 60_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const url = /Local:\s+(http:\/\/\S+?)\/?\s/.exec(output)?.[1];
      if (url !== undefined) {
        clearTimeout(timer);
        resolve({ url, close });
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`vite exited (${String(code)}):\n${output}`));
    });
  });
}
