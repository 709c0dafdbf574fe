/**
 * The demo shop fits a 1,280 px window in both flavours: after a guest cart, a sign-in and a signed-in
 * cart call, the live panel's rows (the longest: `Authorization, x-spree-token` beside a v3 cart
 * path) wrap inside the panel, and the page is no wider than the window.
 * On 3ffce34 the spree-v3 demo's page was 1,396 px wide: the header column did not wrap.
 */
import type { Page } from '@playwright/test';
import { existsSync } from 'node:fs';
import { expect, root, test } from './support.js';

const WIDTH = 1280;

/** How far the page and the live panel reach, against what they have. */
function widths(page: Page): Promise<{ page: number; panel: number; panelBox: number }> {
  return page.evaluate(() => {
    const panel = document.querySelector<HTMLElement>('.panel')!;
    return { page: document.documentElement.scrollWidth, panel: panel.scrollWidth, panelBox: panel.clientWidth };
  });
}

for (const [flavour, build, both] of [
  ['store', 'demo/build', 'Authorization'],
  ['spree-v3', 'demo/build-v3', 'Authorization, x-spree-token'],
] as const) {
  test.describe(`the ${flavour} demo`, () => {
    test.use({ viewport: { width: WIDTH, height: 800 }, storefrontOptions: { flavour, static: [{ prefix: '/', dir: `${root}${build}` }] } });

    test(`fits a ${WIDTH} px window, its live panel's rows wrapped inside the panel`, async ({ page, storefront }) => {
      if (!existsSync(`${root}${build}/sw.js`)) throw new Error(`${build}/ is missing: run \`npm run build\` first.`);
      await page.goto(`${storefront.url}/`);
      await page.getByRole('button', { name: 'Add to cart' }).first().click();
      await expect(page.locator('#cart')).toContainText('1 item(s)');
      await page.getByRole('navigation').getByRole('link', { name: 'Account' }).click();
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect(page.locator('#profile-name')).toContainText('demo@example.com');
      expect((await widths(page)).page, 'the account view: document.documentElement.scrollWidth').toBeLessThanOrEqual(WIDTH);
      await page.getByRole('navigation').getByRole('link', { name: 'Shop' }).click();
      await page.getByRole('button', { name: 'Add to cart' }).first().click();
      await expect(page.locator('#cart')).toContainText('2 item(s)');
      await expect(page.locator('#requests')).toContainText(both);

      const { page: pageWidth, panel, panelBox } = await widths(page);
      expect(pageWidth, 'document.documentElement.scrollWidth').toBeLessThanOrEqual(WIDTH);
      expect(panel, "the live panel's content width").toBeLessThanOrEqual(panelBox);
    });
  });
}
