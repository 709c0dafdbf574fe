// examples/static (README, "A static site: the script tag"): a static site with the drop-in script
// tag and the prebuilt worker copied to its web root, built from the packed package and served by
// the storefront.
import { join } from 'node:path';
import { test } from '../support.js';
import { buildAndDrive } from './coreFlow.js';
import { workDir } from './workspace.js';

test.use({ storefrontOptions: { static: [{ prefix: '/', dir: join(workDir('static'), 'dist') }] } });

test('a static site with the drop-in: guest cart, sign-in, account, logout', async ({ page, storefront }) => {
  await buildAndDrive('static', page, storefront);
});
