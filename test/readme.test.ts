// The README and docs/ as a reader meets them. Every code block says how it is tested (its marker,
// e2e/examples/docSnippets.ts): a whole file of a fresh project, which the examples project builds and
// drives as pasted (e2e/examples/docs-snippets.spec.ts); the commands a user runs in one; lines of a
// repository file; or a block a spec runs itself. Here, without a browser: every block is marked, the
// projects' imports are the packages their commands install, the excerpts are in their files, every
// relative link and anchor resolves, and no page cites a document the repository lacks. And the
// examples stay reproducible: pinned versions, a lockfile, and the package from the packed tarball.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  allCodeBlocks,
  codeBlocks,
  createCommand,
  docFiles,
  FRESH_PROJECTS,
  importedPackages,
  installedPackages,
  parseMarker,
  projectCommands,
  projectFiles,
  splitCommands,
  TEMPLATE_PACKAGES,
  where,
  type FreshProjectName,
  type Template,
} from '../e2e/examples/docSnippets.js';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const read = (path: string) => readFileSync(join(REPO, path), 'utf8');
const blocks = allCodeBlocks(REPO);

/** The README is a front door of a few screens; the rest of what it used to hold is in docs/. */
const README_MAX_LINES = 280;

/** Lines without their common indentation, trailing spaces dropped. */
function dedent(lines: readonly string[]): string[] {
  const trimmed = lines.map((line) => line.trimEnd());
  const indents = trimmed.filter((line) => line !== '').map((line) => line.length - line.trimStart().length);
  const common = Math.min(...indents);
  return trimmed.map((line) => line.slice(common));
}

/** Whether `block`'s lines appear as consecutive lines of `file`, up to a common indentation. */
function appearsIn(block: string, file: string): boolean {
  const wanted = dedent(block.split('\n')).join('\n');
  const lines = file.split('\n');
  const count = block.split('\n').length;
  for (let start = 0; start + count <= lines.length; start += 1) {
    if (dedent(lines.slice(start, start + count)).join('\n') === wanted) return true;
  }
  return false;
}

/** The parts of an excerpt between its cuts (a line `// …` or `# …`), each to be found in the file. */
function excerptParts(code: string): string[] {
  return code
    .replace(/\n$/, '')
    .split(/^\s*(?:\/\/|#) …\s*$/m)
    .map((part) => part.replace(/^\n+|\n+$/g, ''))
    .filter((part) => part.trim() !== '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]+>/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a markdown file's headings (outside code blocks), numbered as GitHub numbers repeats. */
function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*)$/.exec(line);
    if (heading === null) continue;
    const base = slug(heading[1] ?? '');
    let name = base;
    for (let n = 1; found.has(name); n += 1) name = `${base}-${n}`;
    found.add(name);
  }
  return found;
}

/** The relative links of a markdown text outside its code blocks: `[text](target)`. */
function links(markdown: string): Array<{ target: string; line: number }> {
  const found: Array<{ target: string; line: number }> = [];
  let fenced = false;
  markdown.split('\n').forEach((line, index) => {
    if (line.startsWith('```')) fenced = !fenced;
    if (fenced) return;
    for (const match of line.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1] ?? '';
      if (!/^[a-z]+:/i.test(target)) found.push({ target, line: index + 1 });
    }
  });
  return found;
}

describe('the README', () => {
  const readme = read('README.md');

  it(`is a front door of at most ${README_MAX_LINES} lines`, () => {
    assert.ok(readme.split('\n').length <= README_MAX_LINES, `README.md has ${readme.split('\n').length} lines`);
  });

  it('gives the two commands, and names the Vite template the fresh projects start from', () => {
    const commands = /## Two commands\n[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    assert.deepEqual(
      commands.split('\n').filter((line) => line.trim() !== '').map((line) => splitCommands(line).join(' && ')),
      ['npm run demo', 'npm test'],
    );
    assert.ok(readme.includes(`\`${createCommand('vanilla-ts')}\``));
  });
});

describe('the code blocks of the README and docs/', () => {
  it('each say how they are tested (a developer\'s `sh` commands aside)', () => {
    const unmarked = blocks.filter((block) => block.marker.kind === 'none' && block.lang !== 'sh');
    assert.deepEqual(unmarked.map(where), []);
  });

  it('name only the fresh projects the examples project makes, and each of those has files', () => {
    const named = blocks.flatMap((block) =>
      block.marker.kind === 'file' ? block.marker.targets.map((target) => target.project) : block.marker.kind === 'commands' ? block.marker.projects : [],
    );
    const unknown = named.filter((project) => !(project in FRESH_PROJECTS));
    assert.deepEqual(unknown, []);
    for (const project of Object.keys(FRESH_PROJECTS)) assert.ok(projectFiles(blocks, project).size > 0, `no file is marked for ${project}`);
  });

  for (const project of Object.keys(FRESH_PROJECTS) as FreshProjectName[]) {
    it(`${project}: imports only what its commands install (or the Vite template holds)`, () => {
      const installed = new Set(
        projectCommands(blocks, project).flatMap(({ text }) => (installedPackages(text) ?? []).map((pkg) => pkg.name)),
      );
      const start: Template | 'none' = FRESH_PROJECTS[project];
      if (start !== 'none') for (const name of TEMPLATE_PACKAGES[start]) installed.add(name);
      for (const [path, block] of projectFiles(blocks, project)) {
        const missing = importedPackages(block.code).filter((name) => !installed.has(name));
        assert.deepEqual(missing, [], `${where(block)}: ${project}/${path} imports what no command of ${project} installs`);
      }
    });
  }

  it('install only packages the fresh projects are installed with, at the versions they name', () => {
    for (const project of Object.keys(FRESH_PROJECTS) as FreshProjectName[]) {
      const start: Template | 'none' = FRESH_PROJECTS[project];
      const template = start === 'none' ? 'vanilla-ts' : start;
      const manifest = JSON.parse(read(`e2e/examples/fresh/${template}/package.json`)) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
      const pinned = { ...manifest.dependencies, ...manifest.devDependencies };
      for (const { text, from } of projectCommands(blocks, project)) {
        for (const { name, version } of installedPackages(text) ?? []) {
          assert.ok(name in pinned, `${where(from)}: ${name} is not in e2e/examples/fresh/${template}/package.json`);
          if (version !== undefined) assert.ok(pinned[name]?.startsWith(version), `${where(from)}: ${name}@${version}, installed as ${pinned[name]}`);
        }
      }
    }
  });

  it('quote repository files as they are, between the cuts they mark', () => {
    for (const block of blocks) {
      if (block.marker.kind !== 'from') continue;
      const path = join(REPO, block.marker.path);
      assert.ok(existsSync(path), `${where(block)} names ${block.marker.path}, which does not exist`);
      const file = readFileSync(path, 'utf8');
      for (const part of excerptParts(block.code)) assert.ok(appearsIn(part, file), `${where(block)}: not in ${block.marker.path}:\n${part}`);
    }
  });

  it('run by a spec: the spec exists and reads the page', () => {
    for (const block of blocks) {
      if (block.marker.kind !== 'run by') continue;
      const path = join(REPO, block.marker.path);
      assert.ok(existsSync(path), `${where(block)} names ${block.marker.path}, which does not exist`);
      assert.ok(readFileSync(path, 'utf8').includes(block.doc), `${block.marker.path} does not read ${block.doc}`);
    }
  });

  it('reads markers, commands and imports as a user would type them', () => {
    assert.deepEqual(parseMarker('<!-- file: vite-pwa/tsconfig.json serwist/tsconfig.json -->'), {
      kind: 'file',
      targets: [
        { project: 'vite-pwa', path: 'tsconfig.json' },
        { project: 'serwist', path: 'tsconfig.json' },
      ],
    });
    assert.deepEqual(parseMarker('<!-- from demo/doorkeeper/application.rb -->'), { kind: 'from', path: 'demo/doorkeeper/application.rb' });
    assert.deepEqual(parseMarker('A sentence.'), { kind: 'none' });
    assert.deepEqual(splitCommands('npm ci && npm pack   # writes the tarball'), ['npm ci', 'npm pack']);
    assert.deepEqual(splitCommands('npm pkg set scripts.build="tsc && vite build" # both'), ['npm pkg set scripts.build="tsc && vite build"']);
    assert.deepEqual(installedPackages('npm install -D @spree/sdk axios@0.25'), [
      { name: '@spree/sdk', version: undefined },
      { name: 'axios', version: '0.25' },
    ]);
    assert.equal(installedPackages('cp a b'), undefined);
    assert.deepEqual(importedPackages("import a from '@scope/pkg/deep/path';\nimport { b } from 'pkg';\nimport './local';\nimport type {} from 'other/x.js';\nawait import('node:fs');"), [
      '@scope/pkg',
      'other',
      'pkg',
    ]);
    const [block] = codeBlocks('x.md', 'Text\n<!-- commands: bridge -->\n```sh\nnpm install storefront-auth-sw\n```\n');
    assert.deepEqual(block?.marker, { kind: 'commands', projects: ['bridge'] });
    assert.equal(block?.code, 'npm install storefront-auth-sw\n');
    assert.deepEqual(excerptParts('a\nb\n// …\nc\n'), ['a\nb', 'c']);
  });

  it('tells a quoted snippet from a changed one', () => {
    const file = 'const a = 1;\nif (a) {\n  run(a);\n}\n';
    assert.ok(appearsIn('run(a);\n}', file) === false, 'indentation is compared within the block');
    assert.ok(appearsIn('if (a) {\n  run(a);', file));
    assert.ok(appearsIn('    if (a) {\n      run(a);', file), 'a common indentation is ignored');
    assert.ok(!appearsIn('if (a) {\n  run(b);', file));
    assert.ok(!appearsIn('const a = 1;\n  run(a);', file), 'lines must be consecutive');
  });
});

describe('the pages', () => {
  const pages = [...docFiles(REPO), 'demo/storefront/README.md', 'demo/doorkeeper/README.md', 'CHANGELOG.md'];

  it('link only to files and headings that exist', () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const { target, line } of links(read(page))) {
        const [path = '', anchor] = target.split('#');
        const file = path === '' ? page : normalize(join(dirname(page), decodeURI(path)));
        if (!existsSync(join(REPO, file))) broken.push(`${page}:${line}: ${target}`);
        else if (anchor !== undefined && file.endsWith('.md') && !anchors(read(file)).has(anchor)) broken.push(`${page}:${line}: ${target} (no such heading)`);
      }
    }
    assert.deepEqual(broken, []);
  });

  it('cite no document the repository lacks, and no issue number', () => {
    const cited: string[] = [];
    for (const page of pages.filter((name) => name !== 'CHANGELOG.md')) {
      read(page)
        .split('\n')
        .forEach((text, index) => {
          if (/STORE(FRONT|-API-V3)-FACTS|\b(SPEC|CONTRACT|STYLE)\.md|\/work\/|\bissues? #?\d+/i.test(text)) cited.push(`${page}:${index + 1}: ${text.trim()}`);
        });
    }
    assert.deepEqual(cited, []);
  });

  it('reads headings as GitHub anchors them', () => {
    assert.equal(slug("Spree 5's Store API, with `@spree/sdk`"), 'spree-5s-store-api-with-spreesdk');
    assert.equal(slug('Your own Workbox worker: Vite and vite-plugin-pwa'), 'your-own-workbox-worker-vite-and-vite-plugin-pwa');
    assert.deepEqual([...anchors('# A\n## B\n```\n# not a heading\n```\n## B\n')], ['a', 'b', 'b-1']);
  });
});

/**
 * The optional packages `lockfile` names without an entry of their own, as `package -> dependency`.
 * `npm ci` refuses such a lockfile on every platform ("Missing: @rollup/rollup-darwin-arm64 from lock
 * file"), not only on the platform that lacks one: each optional dependency of a locked package must be
 * locked too, found as Node resolves it (its own node_modules, then each folder above).
 */
function unlockedOptionals(lockfile: { packages: Record<string, { optionalDependencies?: Record<string, string> }> }): string[] {
  const missing: string[] = [];
  for (const [path, entry] of Object.entries(lockfile.packages)) {
    for (const dependency of Object.keys(entry.optionalDependencies ?? {})) {
      let from = path;
      let found = false;
      for (;;) {
        if (`${from === '' ? '' : `${from}/`}node_modules/${dependency}` in lockfile.packages) {
          found = true;
          break;
        }
        if (from === '') break;
        const at = from.lastIndexOf('/node_modules/');
        from = at === -1 ? '' : from.slice(0, at);
      }
      if (!found) missing.push(`${path || '(root)'} -> ${dependency}`);
    }
  }
  return missing;
}

describe('unlockedOptionals', () => {
  it('finds an optional package locked beside its dependent, above it, or nowhere', () => {
    const packages = {
      '': {},
      'node_modules/rollup': { optionalDependencies: { '@rollup/rollup-linux-x64-gnu': '4.0.0', '@rollup/rollup-darwin-arm64': '4.0.0' } },
      'node_modules/@rollup/rollup-linux-x64-gnu': {},
      'node_modules/a/node_modules/b': { optionalDependencies: { c: '1.0.0', d: '1.0.0' } },
      'node_modules/a/node_modules/c': {},
    };
    assert.deepEqual(unlockedOptionals({ packages }), ['node_modules/rollup -> @rollup/rollup-darwin-arm64', 'node_modules/a/node_modules/b -> d']);
  });
});

describe('the examples', () => {
  const examples = readdirSync(join(REPO, 'examples'), { withFileTypes: true }).filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'));

  it('are the six the example specs drive', () => {
    assert.deepEqual(examples.map((entry) => entry.name).sort(), ['react', 'serwist', 'spree-sdk', 'spree-v3', 'static', 'vite-pwa']);
  });

  for (const { name } of examples) {
    it(`${name}: pins its dependencies, locks them, and takes storefront-auth-sw from the packed tarball`, () => {
      const dir = join(REPO, 'examples', name);
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
      const dependencies = { ...manifest.dependencies, ...manifest.devDependencies };
      assert.equal(dependencies['storefront-auth-sw'], 'file:../.pack/storefront-auth-sw.tgz');
      for (const [dependency, version] of Object.entries(dependencies)) {
        if (dependency !== 'storefront-auth-sw') assert.match(version, /^\d+\.\d+\.\d+$/, `${name}: ${dependency}@${version} is not pinned`);
      }
      const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string; integrity?: string }> };
      const locked = lock.packages['node_modules/storefront-auth-sw'];
      assert.ok(locked, `${name}: the lockfile lacks storefront-auth-sw`);
      // Each build packs a new tarball: an integrity here would make npm refuse it, or reuse its cached copy.
      assert.equal(locked.integrity, undefined, `${name}: the lockfile pins the integrity of one tarball`);
      for (const [dependency, version] of Object.entries(dependencies)) {
        if (dependency !== 'storefront-auth-sw') assert.equal(lock.packages[`node_modules/${dependency}`]?.version, version, `${name}: ${dependency} is locked at another version`);
      }
    });

    it(`${name}: its lockfile locks every platform's optional packages, so \`npm ci\` installs it on any machine`, () => {
      const lock = JSON.parse(readFileSync(join(REPO, 'examples', name, 'package-lock.json'), 'utf8')) as Parameters<typeof unlockedOptionals>[0];
      assert.deepEqual(unlockedOptionals(lock), [], `examples/${name}/package-lock.json: regenerate it with \`rm -rf node_modules package-lock.json && npm install\``);
    });
  }

  for (const template of new Set(Object.values(FRESH_PROJECTS).filter((start) => start !== 'none'))) {
    it(`the fresh ${template} projects' shared installation: pinned, locked, storefront-auth-sw from the tarball`, () => {
      const dir = join(REPO, 'e2e/examples/fresh', template);
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
      const dependencies = { ...manifest.dependencies, ...manifest.devDependencies };
      assert.equal(dependencies['storefront-auth-sw'], 'file:../../.pack/storefront-auth-sw.tgz');
      const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string; integrity?: string }> };
      assert.equal(lock.packages['node_modules/storefront-auth-sw']?.integrity, undefined);
      for (const [dependency, version] of Object.entries(dependencies)) {
        if (dependency === 'storefront-auth-sw') continue;
        assert.match(version, /^\d+\.\d+\.\d+$/, `${dependency}@${version} is not pinned`);
        assert.equal(lock.packages[`node_modules/${dependency}`]?.version, version, `${dependency} is locked at another version`);
      }
      assert.deepEqual(unlockedOptionals(lock as unknown as Parameters<typeof unlockedOptionals>[0]), [], `e2e/examples/fresh/${template}/package-lock.json lacks optional packages`);
    });
  }
});
