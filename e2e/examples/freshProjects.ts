/**
 * Fresh projects built from the README's and docs/' snippets, as a user would paste them: a Vite
 * project as `npm create vite@latest my-shop -- --template <template>` writes it today (create-vite
 * pinned here), or a plain folder for a static site; then the documented commands run in it (`cp`,
 * `npm pkg set`…), and the documented files are written into it whole.
 *
 * Installing every project afresh would cost a minute of `npm install` each, so the projects of one
 * template share one installation: e2e/examples/fresh/<template>/ holds the template's package.json with
 * the packages the docs install added (pinned) and its lockfile; examples.setup.ts installs it once, with
 * storefront-auth-sw from the packed tarball, and each project links its node_modules. That the docs'
 * `npm install` lines name every package a project imports is checked in test/readme.test.ts.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { root } from '../support.js';
import { allCodeBlocks, createCommand, FRESH_PROJECTS, installedPackages, projectCommands, projectFiles, TEMPLATE_PACKAGES, where, type CodeBlock, type FreshProjectName, type Template } from './docSnippets.js';
import { run, WORK } from './workspace.js';

/** The create-vite release whose templates the projects start from (9.3.0: Vite 8, TypeScript 7). */
export const CREATE_VITE = 'create-vite@9.3.0';

/** Where the fresh projects are made (gitignored, under examples/.work/). */
export const FRESH = join(WORK, 'fresh');

/** The committed manifest and lockfile of a template's shared installation. */
function manifestDir(template: Template): string {
  return join(root, 'e2e/examples/fresh', template);
}

/** A template's shared installation. */
function baseDir(template: Template): string {
  return join(FRESH, `.${template}`);
}

/** The template a project's packages come from: its own, or `vanilla-ts`'s for a plain folder. */
function templateOf(name: FreshProjectName): Template {
  const start: Template | 'none' = FRESH_PROJECTS[name];
  return start === 'none' ? 'vanilla-ts' : start;
}

/** A fresh project's folder. */
export function freshDir(name: FreshProjectName): string {
  return join(FRESH, name);
}

interface Manifest {
  devDependencies?: Record<string, string>;
  dependencies?: Record<string, string>;
}

/** The packages a template's shared installation holds, by name. */
function baseManifest(template: Template): Manifest {
  return JSON.parse(readFileSync(join(manifestDir(template), 'package.json'), 'utf8')) as Manifest;
}

/** Installs the shared installation of every template a project starts from, in parallel. */
export async function installFreshBases(): Promise<void> {
  const templates = new Set(Object.keys(FRESH_PROJECTS).map((name) => templateOf(name as FreshProjectName)));
  await Promise.all([...templates].map((template) => installFreshBase(template)));
}

/**
 * Scaffolds `template` with create-vite and installs its shared manifest into it, with
 * storefront-auth-sw from the tarball just packed. Its node_modules are kept between runs.
 */
async function installFreshBase(template: Template): Promise<void> {
  const scratch = join(FRESH, `.scaffold-${template}`);
  const base = baseDir(template);
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(FRESH, { recursive: true });
  await run('npm', ['exec', '--yes', `--package=${CREATE_VITE}`, '--', 'create-vite', `.scaffold-${template}`, '--template', template], FRESH);
  const scaffold = JSON.parse(readFileSync(join(scratch, 'package.json'), 'utf8')) as Manifest;
  const wanted = { ...scaffold.dependencies, ...scaffold.devDependencies };
  const pinned = { ...baseManifest(template).dependencies, ...baseManifest(template).devDependencies };
  if (Object.keys(wanted).sort().join() !== [...TEMPLATE_PACKAGES[template]].join()) throw new Error(`${CREATE_VITE}'s ${template} holds ${Object.keys(wanted).join(', ')}: update TEMPLATE_PACKAGES`);
  for (const [name, range] of Object.entries(wanted)) {
    if (pinned[name]?.split('.')[0] !== /\d+/.exec(range)?.[0]) throw new Error(`${CREATE_VITE}'s ${template} wants ${name}@${range}; e2e/examples/fresh/${template}/package.json pins ${String(pinned[name])}`);
  }
  // The template's files, over last run's (node_modules stays); then the manifest and its lockfile.
  mkdirSync(base, { recursive: true });
  for (const entry of readdirSync(base)) if (entry !== 'node_modules') rmSync(join(base, entry), { recursive: true, force: true });
  cpSync(scratch, base, { recursive: true, filter: (path) => !path.endsWith('package.json') });
  for (const file of ['package.json', 'package-lock.json']) cpSync(join(manifestDir(template), file), join(base, file));
  // npm keeps an installed package whose lockfile entry has no integrity: the old copy goes first.
  rmSync(join(base, 'node_modules/storefront-auth-sw'), { recursive: true, force: true });
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], base);
  const installed = readFileSync(join(base, 'node_modules/storefront-auth-sw/dist/sw.js'));
  if (!installed.equals(readFileSync(join(root, 'dist/sw.js')))) throw new Error(`the fresh ${template} projects' storefront-auth-sw is not the one just packed`);
}

/** What a user does with one command of the docs, in the project's folder. */
async function runCommand(dir: string, name: FreshProjectName, text: string, from: CodeBlock): Promise<void> {
  const start: Template | 'none' = FRESH_PROJECTS[name];
  if (text.startsWith('npm create vite')) {
    if (start === 'none' || text !== createCommand(start)) throw new Error(`${where(from)}: ${name} starts from ${start}, not \`${text}\``);
    return;
  }
  if (text === 'cd my-shop') return;
  const packages = installedPackages(text);
  if (packages !== undefined) {
    // Installed once per template (installFreshBases); test/readme.test.ts holds the names.
    const manifest = baseManifest(templateOf(name));
    for (const { name: pkg, version } of packages) {
      const pinned = pkg === 'storefront-auth-sw' ? '' : (manifest.dependencies?.[pkg] ?? manifest.devDependencies?.[pkg]);
      if (pinned === undefined) throw new Error(`${where(from)}: ${pkg} is not in e2e/examples/fresh/${templateOf(name)}/package.json`);
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
  const base = baseDir(templateOf(name));
  if (!existsSync(join(base, 'node_modules'))) throw new Error('the fresh projects are not installed: run the examples-setup project');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  if (FRESH_PROJECTS[name] === 'none') writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name, private: true, type: 'module' }, null, 2)}\n`);
  else cpSync(base, dir, { recursive: true, filter: (path) => !/[/\\](node_modules|dist)$/.test(path) });
  symlinkSync(join(base, 'node_modules'), join(dir, 'node_modules'), 'dir');
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
