// Packs this repository as npm would publish it into <dir>/storefront-auth-sw.tgz, the file the
// examples depend on (`file:../.pack/storefront-auth-sw.tgz`). `npm run examples:pack` packs into
// examples/.pack (npm's prepare builds dist/ first); the example specs call packForExamples.
import { execFile } from 'node:child_process';
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Packs into `dir` (emptied first); `ignoreScripts` packs dist/ as it is, without prepare's build. */
export async function packForExamples(dir, { ignoreScripts = false } = {}) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const args = ['pack', '--json', '--pack-destination', dir, ...(ignoreScripts ? ['--ignore-scripts'] : [])];
  const { stdout } = await promisify(execFile)('npm', args, { cwd: root, maxBuffer: 16 * 1024 * 1024 });
  // prepare's build prints to stdout before npm's JSON.
  const [info] = JSON.parse(stdout.slice(stdout.indexOf('\n[') + 1 || 0));
  const tarball = join(dir, 'storefront-auth-sw.tgz');
  renameSync(join(dir, info.filename), tarball);
  return tarball;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(`${await packForExamples(join(root, 'examples/.pack'))}: now \`npm install\` in an example`);
}
