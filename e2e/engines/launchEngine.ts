/**
 * Launches an engine with the tool that can drive its browser here (`browsers.ts`). The puppeteer
 * and selenium drivers load only when their engine runs.
 */
import type { Engine, EngineName } from './driver.js';
import { locate } from './browsers.js';

/** Thrown when the engine's browser is not installed; `missing` says what to install. */
export class EngineMissing extends Error {
  override readonly name = 'EngineMissing';
}

export async function launchEngine(name: EngineName): Promise<Engine> {
  const located = locate(name);
  switch (located.tool) {
    case null:
      throw new EngineMissing(`${located.missing} is not installed`);
    case 'playwright':
      return (await import('./playwrightEngine.js')).launchPlaywright(name, located.launchOptions);
    case 'puppeteer':
      return (await import('./puppeteerFirefox.js')).launchPuppeteerFirefox(located.executablePath);
    case 'selenium':
      return (await import('./seleniumWebKit.js')).launchSeleniumWebKit(located);
  }
}
