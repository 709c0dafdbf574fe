/**
 * A Playwright reporter that closes a run of the cross-engine suite with one block per engine: the
 * browser and its version, the tool that drove it, how its worker was stopped, how many flows
 * passed, which failed, which were skipped and why (or why the whole engine was). It prints nothing
 * when no cross-engine test ran.
 */
import type { FullResult, Reporter, TestCase, TestResult } from '@playwright/test/reporter';
import { ENGINES } from './driver.js';

/** The project name of the cross-engine suite in playwright.config.ts. */
export const ENGINES_PROJECT = 'engines';

interface Tally {
  browser: string | undefined;
  workerStop: string | undefined;
  passed: number;
  failed: string[];
  /** Each skipped flow's title, with the reason it gave. */
  skipped: Array<{ title: string; reason: string }>;
  ms: number;
}

export default class EngineReport implements Reporter {
  readonly #tallies = new Map<string, Tally>();

  onTestEnd(test: TestCase, result: TestResult): void {
    const [, project, , label] = test.titlePath();
    if (project !== ENGINES_PROJECT || label === undefined) return;
    let tally = this.#tallies.get(label);
    if (tally === undefined) {
      tally = { browser: undefined, workerStop: undefined, passed: 0, failed: [], skipped: [], ms: 0 };
      this.#tallies.set(label, tally);
    }
    const note = (type: string) => result.annotations.find((annotation) => annotation.type === type)?.description ?? test.annotations.find((annotation) => annotation.type === type)?.description;
    tally.browser ??= note('engine');
    tally.workerStop ??= note('worker stop');
    tally.ms += result.duration;
    // A test is counted once, by its last try.
    if (result.retry < test.retries && result.status !== 'passed' && result.status !== 'skipped') return;
    if (result.status === 'passed') tally.passed++;
    else if (result.status === 'skipped') tally.skipped.push({ title: test.title, reason: note('skip') ?? 'skipped' });
    else tally.failed.push(`${test.title} (${result.status})`);
  }

  onEnd(result: FullResult): void {
    if (this.#tallies.size === 0) return;
    const lines = ['', `Cross-engine suite (e2e/engines), run ${result.status}:`];
    for (const { label } of ENGINES) {
      const tally = this.#tallies.get(label);
      if (tally === undefined) continue;
      const ran = tally.passed + tally.failed.length;
      if (ran === 0) {
        // Nothing ran: as a rule the engine is missing, and every flow gave that one reason.
        lines.push(`  ${label.padEnd(9)} SKIPPED: ${[...new Set(tally.skipped.map(({ reason }) => reason))].join('; ')}`);
        continue;
      }
      const verdict = tally.failed.length === 0 ? 'PASS' : 'FAIL';
      const skipped = tally.skipped.length === 0 ? '' : `, ${tally.skipped.length} skipped`;
      lines.push(`  ${label.padEnd(9)} ${verdict}  ${tally.passed} of ${ran + tally.skipped.length} flows${skipped} in ${(tally.ms / 1000).toFixed(1)} s  ${tally.browser ?? ''}`);
      if (tally.workerStop !== undefined) lines.push(`            worker stop: ${tally.workerStop}`);
      for (const failed of tally.failed) lines.push(`            failed: ${failed}`);
      for (const { title, reason } of tally.skipped) lines.push(`            skipped: ${title}: ${reason}`);
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  }

  printsToStdio(): boolean {
    return true;
  }
}
