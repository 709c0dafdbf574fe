/**
 * The code blocks of the README and docs/, as the tests read them. Every fenced block carries a
 * marker on the line before it that says how it is tested:
 *
 * - `<!-- file: <project>/<path> … -->`: the whole file `<path>` of one or more fresh projects
 *   (freshProjects.ts), which the example specs build and drive as a user would after pasting it;
 * - `<!-- commands: <project> … -->`: shell commands a user runs in those projects, in order: the
 *   specs run them (an `npm install` is checked against the packages the project was installed with);
 * - `<!-- from <repository path> -->`: lines of that repository file, for what no project can build
 *   (a Rails initializer, a command's usage); `# …` or `// …` marks a cut;
 * - `<!-- run by <spec path> -->`: a spec runs the block itself;
 * - none, for a block of commands a developer types in a clone (`sh` only).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The create-vite templates a fresh project may start from, and the packages each one's package.json holds. */
export const TEMPLATE_PACKAGES = {
  'vanilla-ts': ['typescript', 'vite'],
  'react-ts': ['@types/node', '@types/react', '@types/react-dom', '@vitejs/plugin-react', 'oxlint', 'react', 'react-dom', 'typescript', 'vite'],
} as const;
export type Template = keyof typeof TEMPLATE_PACKAGES;

/**
 * The fresh projects the markers name, and how each starts: a create-vite template, or an empty folder
 * of the user's (which takes its packages from the `vanilla-ts` installation).
 */
export const FRESH_PROJECTS = {
  'static-site': 'none',
  'vite-pwa': 'vanilla-ts',
  serwist: 'vanilla-ts',
  bridge: 'vanilla-ts',
  'drop-in-ts': 'vanilla-ts',
  'spree-sdk': 'vanilla-ts',
  'spree-v3': 'vanilla-ts',
  offline: 'vanilla-ts',
  react: 'react-ts',
} as const satisfies Record<string, Template | 'none'>;
export type FreshProjectName = keyof typeof FRESH_PROJECTS;

/** The command the docs give for a project on `template`, which the template stands for. */
export function createCommand(template: Template): string {
  return `npm create vite@latest my-shop -- --template ${template}`;
}

/** How a block is tested. */
export type Marker =
  | { kind: 'file'; targets: Array<{ project: string; path: string }> }
  | { kind: 'commands'; projects: string[] }
  | { kind: 'from'; path: string }
  | { kind: 'run by'; path: string }
  | { kind: 'none' };

/** One fenced code block. */
export interface CodeBlock {
  /** The markdown file, relative to the repository root. */
  doc: string;
  /** The line of its opening fence, from 1. */
  line: number;
  lang: string;
  /** Its text, with a final newline, as a file would hold it. */
  code: string;
  marker: Marker;
}

/** The README and every page of docs/, in the order their commands run: the README first. */
export function docFiles(root: string): string[] {
  const pages = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md') && !name.startsWith('notes-'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...pages];
}

/** Reads the marker comment that precedes a fence, or `none`. */
export function parseMarker(line: string): Marker {
  const comment = /^<!--\s*(file|commands|from|run by):?\s+(.+?)\s*-->$/.exec(line.trim());
  if (comment === null) return { kind: 'none' };
  const [, kind, rest = ''] = comment;
  const words = rest.split(/\s+/);
  if (kind === 'file') {
    return {
      kind,
      targets: words.map((word) => {
        const slash = word.indexOf('/');
        if (slash <= 0) throw new Error(`a file marker names <project>/<path>, not ${word}`);
        return { project: word.slice(0, slash), path: word.slice(slash + 1) };
      }),
    };
  }
  if (kind === 'commands') return { kind, projects: words };
  return { kind: kind === 'from' ? 'from' : 'run by', path: rest };
}

/** Every fenced block of one markdown text. */
export function codeBlocks(doc: string, markdown: string): CodeBlock[] {
  const lines = markdown.split('\n');
  const blocks: CodeBlock[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const fence = /^(`{3,})(\S*)\s*$/.exec(lines[index] ?? '');
    if (fence === null) continue;
    const [, ticks = '```', lang = ''] = fence;
    const end = lines.findIndex((candidate, at) => at > index && candidate.trimEnd() === ticks);
    if (end < 0) throw new Error(`${doc}:${index + 1}: an unclosed code block`);
    const code = `${lines.slice(index + 1, end).join('\n')}\n`;
    blocks.push({ doc, line: index + 1, lang, code, marker: parseMarker(lines[index - 1] ?? '') });
    index = end;
  }
  return blocks;
}

/** Every block of the README and docs/. */
export function allCodeBlocks(root: string): CodeBlock[] {
  return docFiles(root).flatMap((doc) => codeBlocks(doc, readFileSync(join(root, doc), 'utf8')));
}

/** Where a block stands, for messages. */
export function where(block: CodeBlock): string {
  return `${block.doc}:${block.line}`;
}

/** One command of a `commands` block, as a user would type it. */
export interface Command {
  /** The words, without a trailing `# comment`. */
  text: string;
  from: CodeBlock;
}

/** Splits a shell line into its commands: `&&` separates them, and `#` starts a comment, outside quotes. */
export function splitCommands(line: string): string[] {
  const commands: string[] = [];
  let quote: string | undefined;
  let text = '';
  for (let index = 0; index < line.length; index += 1) {
    const char = line[index] ?? '';
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
    } else if (char === '"' || char === "'") {
      quote = char;
    } else if (char === '#' && (index === 0 || /\s/.test(line[index - 1] ?? ''))) {
      break;
    } else if (char === '&' && line[index + 1] === '&') {
      commands.push(text);
      text = '';
      index += 1;
      continue;
    }
    text += char;
  }
  commands.push(text);
  return commands.map((command) => command.trim()).filter((command) => command !== '');
}

/** The commands of every `commands` block for `project`, in document order. */
export function projectCommands(blocks: readonly CodeBlock[], project: string): Command[] {
  return blocks
    .filter((block) => block.marker.kind === 'commands' && block.marker.projects.includes(project))
    .flatMap((block) => block.code.split('\n').flatMap((line) => splitCommands(line).map((text) => ({ text, from: block }))));
}

/** The files of `project`, by path; two blocks may not both write one path. */
export function projectFiles(blocks: readonly CodeBlock[], project: string): Map<string, CodeBlock> {
  const files = new Map<string, CodeBlock>();
  for (const block of blocks) {
    if (block.marker.kind !== 'file') continue;
    for (const target of block.marker.targets) {
      if (target.project !== project) continue;
      const earlier = files.get(target.path);
      if (earlier !== undefined) throw new Error(`${where(block)} and ${where(earlier)} both write ${project}/${target.path}`);
      files.set(target.path, block);
    }
  }
  return files;
}

/** The packages an `npm install` command names, without versions; `undefined` for another command. */
export function installedPackages(command: string): Array<{ name: string; version: string | undefined }> | undefined {
  const words = command.split(/\s+/);
  if (words[0] !== 'npm' || !['install', 'i', 'add'].includes(words[1] ?? '')) return undefined;
  return words
    .slice(2)
    .filter((word) => !word.startsWith('-'))
    .map((word) => {
      const at = word.indexOf('@', 1);
      return at < 0 ? { name: word, version: undefined } : { name: word.slice(0, at), version: word.slice(at + 1) };
    });
}

/** The bare packages a source file imports (`import … from 'x'`, `import('x')`), by package name. */
export function importedPackages(source: string): string[] {
  const specifiers = [...source.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g)].map((match) => match[1] ?? '');
  const names = specifiers
    .filter((specifier) => !/^(\.|\/|node:|virtual:|https?:)/.test(specifier))
    .map((specifier) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/'));
  return [...new Set(names)].sort();
}
