// `npm run screenshots`: the README's pictures of the demo shop, taken by its end-to-end spec
// (e2e/demo-works-offline.spec.ts) as it runs: a guest with a cart, signed in, and offline.
// Writes docs/screenshots/*.png; run `npm run build` first (the npm script does).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dir = `${root}docs/screenshots`;
mkdirSync(dir, { recursive: true });
const run = spawnSync(process.execPath, [`${root}node_modules/@playwright/test/cli.js`, 'test', 'e2e/demo-works-offline.spec.ts', '--workers=1'], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, DEMO_SCREENSHOTS: dir },
});
if (run.status !== 0) process.exit(run.status ?? 1);
for (const file of readdirSync(dir).filter((name) => name.endsWith('.png'))) {
  console.log(`docs/screenshots/${file.padEnd(20)} ${String(statSync(`${dir}/${file}`).size).padStart(7)} B`);
}
