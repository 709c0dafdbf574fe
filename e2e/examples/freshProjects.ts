/**
 * Fresh projects built from the README's and docs/' snippets, as a user would paste them: a Vite
 * project as `npm create vite@latest my-shop -- --template vanilla-ts` writes it today (create-vite
 * pinned here), or a plain folder for a static site; then the documented commands run in it (`cp`,
 * `npm pkg set`…), and the documented files are written into it whole.
 *
 * Installing every project afresh would cost a minute of `npm install` each, so they share one
 * installation: e2e/examples/fresh/vanilla-ts/ holds the template's package.json with the packages the
 * docs install added (pinned) and its lockfile; examples.setup.ts installs it once, with
 * storefront-auth-sw from the packed tarball, and each project links its node_modules. That the docs'
 * `npm install` lines name every package a project imports is checked in test/readme.test.ts.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { root } from '../support.js';
import { allCodeBlocks, CREATE_COMMAND, FRESH_PROJECTS, installedPackages, projectCommands, projectFiles, where, type CodeBlock, type FreshProjectName } from './docSnippets.js';
import { run, WORK } from './workspace.js';

/** The create-vite release whose template the projects start from (9.3.0: Vite 8, TypeScript 7). */
export const CREATE_VITE = 'create-vite@9.3.0';

/** The committed manifest and lockfile of the shared installation. */
export const MANIFEST_DIR = join(root, 'e2e/examples/fresh/vanilla-ts');
/** Where the fresh projects are made (gitignored, under examples/.work/). */
export const FRESH = join(WORK, 'fresh');
const BASE = join(FRESH, '.base');

/** A fresh project's folder. */
export function freshDir(name: FreshProjectName): string {
  return join(FRESH, name);
}

interface Manifest {
  devDependencies?: Record<string, string>;
  dependencies?: Record<string, string>;
}

/** The packages the shared installation holds, by name. */
export function baseManifest(): Manifest {
  return JSON.parse(readFileSync(join(MANIFEST_DIR, 'package.json'), 'utf8')) as Manifest;
}

/**
 * Scaffolds the Vite template with create-vite and installs the shared manifest into it, with
 * storefront-auth-sw from the tarball just packed. Its node_modules are kept between runs.
 */
export async function installFreshBase(): Promise<void> {
  const scratch = join(FRESH, '.template');
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(FRESH, { recursive: true });
  await run('npm', ['exec', '--yes', `--package=${CREATE_VITE}`, '--', 'create-vite', '.template', '--template', 'vanilla-ts'], FRESH);
  const template = JSON.parse(readFileSync(join(scratch, 'package.json'), 'utf8')) as Manifest;
  const pinned = baseManifest().devDependencies ?? {};
  for (const [name, range] of Object.entries(template.devDependencies ?? {})) {
    const major = /\d+/.exec(range)?.[0];
    if (pinned[name]?.split('.')[0] !== major) throw new Error(`${CREATE_VITE}'s template wants ${name}@${range}; e2e/examples/fresh/vanilla-ts/package.json pins ${String(pinned[name])}`);
  }
  // The template's files, over last run's (node_modules stays); then the manifest and its lockfile.
  for (const entry of ['index.html', 'tsconfig.json', 'src', 'public']) rmSync(join(BASE, entry), { recursive: true, force: true });
  mkdirSync(BASE, { recursive: true });
  cpSync(scratch, BASE, { recursive: true, filter: (path) => !path.endsWith('package.json') });
  for (const file of ['package.json', 'package-lock.json']) cpSync(join(MANIFEST_DIR, file), join(BASE, file));
  // npm keeps an installed package whose lockfile entry has no integrity: the old copy goes first.
  rmSync(join(BASE, 'node_modules/storefront-auth-sw'), { recursive: true, force: true });
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], BASE);
  const installed = readFileSync(join(BASE, 'node_modules/storefront-auth-sw/dist/sw.js'));
  if (!installed.equals(readFileSync(join(root, 'dist/sw.js')))) throw new Error('the fresh projects\' storefront-auth-sw is not the one just packed');
}

/** What a user does with one command of the docs, in the project's folder. */
async function runCommand(dir: string, name: FreshProjectName, text: string, from: CodeBlock): Promise<void> {
  if (text === CREATE_COMMAND) {
    if (FRESH_PROJECTS[name] !== 'vanilla-ts') throw new Error(`${where(from)}: ${name} does not start from the Vite template`);
    return;
  }
  if (text === 'cd my-shop') return;
  const packages = installedPackages(text);
  if (packages !== undefined) {
    // Installed once for every project (installFreshBase); test/readme.test.ts holds the names.
    const manifest = baseManifest();
    for (const { name: pkg, version } of packages) {
      const pinned = pkg === 'storefront-auth-sw' ? '' : (manifest.dependencies?.[pkg] ?? manifest.devDependencies?.[pkg]);
      if (pinned === undefined) throw new Error(`${where(from)}: ${pkg} is not in e2e/examples/fresh/vanilla-ts/package.json`);
      if (version !== undefined && !pinned.startsWith(version)) throw new Error(`${where(from)}: ${pkg}@${version}, but the projects are installed with ${pkg}@${pinned}`);
    }
    return;
  }
  await run('sh', ['-c', text], dir);
}

/**
 * Makes project `name` afresh from the docs as they stand: its start (the template, or an empty
 * folder), its folders, then the documented commands and files (whole) in the order a reader meets them.
 */
export async function makeFreshProject(name: FreshProjectName): Promise<string> {
  const blocks = allCodeBlocks(root);
  const dir = freshDir(name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  if (FRESH_PROJECTS[name] === 'vanilla-ts') {
    cpSync(BASE, dir, { recursive: true, filter: (path) => !/[/\\](node_modules|dist)$/.test(path) });
  } else {
    writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name, private: true, type: 'module' }, null, 2)}\n`);
  }
  if (!existsSync(join(BASE, 'node_modules'))) throw new Error('the fresh projects are not installed: run the examples-setup project');
  symlinkSync(join(BASE, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const files = projectFiles(blocks, name);
  if (files.size === 0) throw new Error(`no file of the docs is marked for ${name}`);
  // The folders the files go to exist already in a user's project (the site's folder, src/).
  for (const path of files.keys()) mkdirSync(dirname(join(dir, path)), { recursive: true });
  // In the order a reader meets them: the README's commands and files, then each page's.
  for (const block of blocks) {
    if (block.marker.kind === 'commands' && block.marker.projects.includes(name)) {
      for (const { text } of projectCommands([block], name)) await runCommand(dir, name, text, block);
    }
    if (block.marker.kind === 'file') {
      for (const target of block.marker.targets) if (target.project === name) writeFileSync(join(dir, target.path), block.code);
    }
  }
  return dir;
}
