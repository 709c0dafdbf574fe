// examples/static (README, Way 1): a static site with the drop-in script tag and the prebuilt worker
// copied to its web root, built from the packed package and served by the storefront.
import { join } from 'node:path';
import { test } from '../support.js';
import { driveCoreFlow } from './coreFlow.js';
import { build, seconds, workDir } from './workspace.js';

test.use({ storefrontOptions: { static: [{ prefix: '/', dir: join(workDir('static'), 'dist') }] } });

test('a static site with the drop-in: guest cart, sign-in, account, logout', async ({ page, storefront }) => {
  const start = performance.now();
  await build('static', storefront.url);
  const built = performance.now();
  await driveCoreFlow(page, `${storefront.url}/`, storefront);
  console.log(`[examples] static: build ${seconds(start)}, flow ${seconds(built)}`);
});
