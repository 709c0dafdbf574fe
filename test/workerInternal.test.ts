// The production worker's mangled property names (scripts/workerInternal.mjs) against every field of
// a value that outlives one build or leaves the worker: the stored records, the messages and
// announcements, the state and errors the pages read, the options. A name in both would be written
// under a mangled name that the next release does not know. The fields are read from the source's
// types with the TypeScript compiler, following nested types (a Credentials' cart and session), so
// a field added to any of them later is checked too.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { WORKER_INTERNAL } from '../scripts/workerInternal.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
/** Each file, and the exported types in it whose values outlive the build or leave the worker. */
const OUTLIVING: Record<string, string[]> = {
  'src/sw/credentialStorage.ts': ['Credentials', 'RefreshKey'],
  'src/sw/queuedWrite.ts': ['QueuedWrite'],
  'src/sw/tokenResponse.ts': ['Session'],
  'src/sw/refreshBackoff.ts': ['Backoff'],
  'src/shared/protocol.ts': ['WorkerRequest', 'WorkerReply', 'Announcement'],
  'src/shared/state.ts': ['AuthState'],
  'src/shared/errors.ts': ['SerializedError'],
  'src/sw/options.ts': ['StorefrontAuthOptions'],
};

/** Every property name of the named types, and of the project's own types they hold, by type. */
function fieldNames(): Map<string, Set<string>> {
  const files = Object.keys(OUTLIVING).map((file) => `${root}${file}`);
  const program = ts.createProgram(files, { strict: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, lib: ['lib.es2022.d.ts', 'lib.webworker.d.ts'], noEmit: true });
  const checker = program.getTypeChecker();
  const names = new Map<string, Set<string>>();
  /** The project's own named types and anonymous literal types (`{ number: string }`): not a lib type such as Promise. */
  const ownOrLiteral = (type: ts.Type): boolean => {
    const symbol = type.aliasSymbol ?? type.getSymbol();
    if (symbol === undefined || symbol.getName() === '__type' || symbol.getName() === '__object') return true;
    return symbol.getDeclarations()?.some((declaration) => declaration.getSourceFile().fileName.startsWith(`${root}src/`)) ?? false;
  };
  const visit = (type: ts.Type, found: Set<string>, seen: Set<ts.Type>): void => {
    if (seen.has(type)) return;
    seen.add(type);
    if (type.isUnionOrIntersection()) {
      for (const member of type.types) visit(member, found, seen);
      return;
    }
    // Only object types: a string's or a number's methods are not fields.
    if ((type.flags & ts.TypeFlags.Object) === 0) return;
    // An array's fields are its elements'.
    if (checker.isArrayType(type)) {
      for (const element of checker.getTypeArguments(type as ts.TypeReference)) visit(element, found, seen);
      return;
    }
    if (!ownOrLiteral(type)) return;
    for (const property of type.getProperties()) {
      found.add(property.getName());
      const declaration = property.valueDeclaration ?? property.getDeclarations()?.[0];
      if (declaration !== undefined) visit(checker.getTypeOfSymbolAtLocation(property, declaration), found, seen);
    }
  };
  for (const [file, typeNames] of Object.entries(OUTLIVING)) {
    const source = program.getSourceFile(`${root}${file}`);
    assert.ok(source, `${file} is read`);
    const exported = checker.getExportsOfModule(checker.getSymbolAtLocation(source)!);
    for (const typeName of typeNames) {
      const symbol = exported.find((candidate) => candidate.getName() === typeName);
      assert.ok(symbol, `${file} exports ${typeName}`);
      const found = new Set<string>();
      visit(checker.getDeclaredTypeOfSymbol(symbol), found, new Set());
      names.set(typeName, found);
    }
  }
  return names;
}

describe("the production worker's mangled property names", () => {
  const names = fieldNames();

  it('reads the fields of every type, nested ones included', () => {
    // Without these, the check below would pass on a reader that finds nothing.
    for (const [typeName, field] of [
      ['Credentials', 'cart'],
      ['Credentials', 'refreshKey'],
      ['Credentials', 'accessToken'],
      ['Credentials', 'token'],
      ['Credentials', 'signInId'],
      ['QueuedWrite', 'notBefore'],
      ['Announcement', 'outcome'],
      ['Session', 'refreshToken'],
      ['Backoff', 'until'],
      ['WorkerRequest', 'baseUrl'],
      ['WorkerReply', 'changeId'],
      ['Announcement', 'type'],
      ['AuthState', 'signedIn'],
      ['SerializedError', 'code'],
      ['StorefrontAuthOptions', 'publishableKey'],
    ] as const) {
      assert.ok(names.get(typeName)?.has(field), `${typeName} has ${field}`);
    }
  });

  it('are none of those fields', () => {
    const internal = new Set<string>(WORKER_INTERNAL);
    const clashes = [...names].flatMap(([typeName, fields]) => [...fields].filter((field) => internal.has(field)).map((field) => `${typeName}.${field}`));
    assert.deepEqual(clashes, [], 'take these names out of WORKER_INTERNAL (scripts/workerInternal.mjs)');
  });
});
