// examples/serwist (docs/recipes.md, "Your own worker on Serwist"): a Vite app whose Serwist worker
// (@serwist/vite) hands Serwist's router storefront-auth's routes, built from the packed package
// and served by the storefront.
import { join } from 'node:path';
import { expect, test } from '../support.js';
import { buildAndDrive } from './coreFlow.js';
import { workDir } from './workspace.js';

test.use({ storefrontOptions: { static: [{ prefix: '/', dir: join(workDir('serwist'), 'dist') }] } });

test('a Serwist worker serves storefront-auth on its own router: guest cart, sign-in, account, logout', async ({ page, storefront }) => {
  await buildAndDrive('serwist', page, storefront);
  // Serwist precached the shell: its router, not only storefront-auth's routes, serves this worker.
  const cached = await page.evaluate(async () => (await Promise.all((await caches.keys()).map(async (name) => (await caches.open(name)).keys()))).flat().map((request) => new URL(request.url).pathname));
  expect(cached).toContain('/index.html');
});
