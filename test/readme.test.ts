// The README's snippets are copies of the example projects (examples/): each code block marked
// `<!-- from examples/<path> -->` must appear in that file, line for line (indentation aside), so a
// snippet cannot drift from the code the example specs build and drive. And the examples stay
// reproducible: pinned versions, a lockfile, and the package from the packed tarball.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const README = readFileSync(join(REPO, 'README.md'), 'utf8');

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

interface Snippet {
  source: string | undefined;
  code: string;
  line: number;
  section: string;
}

/** Every fenced code block of the README, with the example file its marker names and its section. */
function snippets(markdown: string): Snippet[] {
  const found: Snippet[] = [];
  const lines = markdown.split('\n');
  let section = '';
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index] ?? '';
    if (/^##\s/.test(line)) section = line.replace(/^##\s+/, '');
    if (!line.startsWith('```')) continue;
    const end = lines.findIndex((candidate, at) => at > index && candidate.startsWith('```'));
    assert.ok(end > index, `README.md:${index + 1}: an unclosed code block`);
    const source = /^<!-- from (examples\/\S+) -->$/.exec(lines[index - 1] ?? '')?.[1];
    found.push({ source, code: lines.slice(index + 1, end).join('\n'), line: index + 1, section });
    index = end;
  }
  return found;
}

describe('the README snippets', () => {
  const all = snippets(README);

  it('copies every marked snippet from its example file', () => {
    const marked = all.filter((snippet) => snippet.source !== undefined);
    assert.ok(marked.length >= 10, `only ${marked.length} marked snippets`);
    for (const { source, code, line } of marked) {
      const path = join(REPO, source ?? '');
      assert.ok(existsSync(path), `README.md:${line} names ${source}, which does not exist`);
      assert.ok(appearsIn(code, readFileSync(path, 'utf8')), `README.md:${line}: the snippet is not in ${source} any more:\n${code}`);
    }
  });

  it('marks every snippet of "Three ways in", so none can drift unchecked', () => {
    const unmarked = all.filter((snippet) => snippet.section === 'Three ways in' && snippet.source === undefined);
    assert.deepEqual(unmarked.map(({ line }) => `README.md:${line}`), []);
  });

  it('tells a copied snippet from a changed one', () => {
    const file = 'const a = 1;\nif (a) {\n  run(a);\n}\n';
    assert.ok(appearsIn('run(a);\n}', file) === false, 'indentation is compared within the block');
    assert.ok(appearsIn('if (a) {\n  run(a);', file));
    assert.ok(appearsIn('    if (a) {\n      run(a);', file), 'a common indentation is ignored');
    assert.ok(!appearsIn('if (a) {\n  run(b);', file));
    assert.ok(!appearsIn('const a = 1;\n  run(a);', file), 'lines must be consecutive');
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
  }
});
