// The example page of docs/notes-issue-32.md (the README's "Offline cart writes" section) type-checks
// against the page bridge's own source, strictly, as a module of a page: the code block marked
// `<!-- type-checked: test/offlineWritesExample.test.ts -->`, with `storefront-auth-sw` resolved to
// src/page/index.ts. A renamed event, option or field fails it.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const NOTES = 'docs/notes-issue-32.md';
const MARKER = '<!-- type-checked: test/offlineWritesExample.test.ts -->';

/** The code block right after the marker. */
function example(markdown: string): string {
  const at = markdown.indexOf(MARKER);
  assert.ok(at >= 0, `${NOTES} has no block marked ${MARKER}`);
  const block = /^```ts\n([\s\S]*?)^```$/m.exec(markdown.slice(at + MARKER.length));
  assert.ok(block?.[1], `${NOTES}: no ts code block after the marker`);
  return block[1];
}

/** The diagnostics of `code` as a strict page module importing the bridge. */
function typeErrors(code: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'storefront-auth-example-'));
  try {
    const file = join(dir, 'example.ts');
    writeFileSync(file, code);
    const program = ts.createProgram([file], {
      strict: true,
      noUncheckedIndexedAccess: true,
      exactOptionalPropertyTypes: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      types: [],
      noEmit: true,
      baseUrl: REPO,
      paths: { 'storefront-auth-sw': ['src/page/index.ts'] },
    });
    return ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the offline writes example page', () => {
  const code = example(readFileSync(join(REPO, NOTES), 'utf8'));

  it('type-checks against the bridge', () => {
    assert.deepEqual(typeErrors(code), []);
  });

  it('would fail on a misspelt event or outcome', () => {
    assert.notDeepEqual(typeErrors(code.replace("'writesettled'", "'writeSettled'").replace("outcome === 'applied'", "outcome === 'done'")), []);
  });
});
