/**
 * A time zone other than UTC for the tests of a describe block. The machines that run the suite are
 * often on UTC, where a date read in the device's zone reads the same as one read as GMT; a shopper's
 * device is anywhere. Node (13 and later) applies `process.env.TZ` when it is set, and the first test
 * fails if it did not, rather than the block passing on UTC unseen.
 */
import assert from 'node:assert/strict';
import { after, before } from 'node:test';

/** West of UTC (-5 h in November) and east of it (+9 h, no summer time). */
export const ZONES = ['America/New_York', 'Asia/Tokyo'] as const;

/** Runs the enclosing block's tests with the process in `zone`, and restores its zone after. */
export function inTimeZone(zone: string): void {
  const saved = process.env.TZ;
  before(() => {
    process.env.TZ = zone;
    assert.notEqual(new Date(2023, 10, 14).getTimezoneOffset(), 0, `TZ=${zone} did not take effect`);
  });
  after(() => {
    if (saved === undefined) delete process.env.TZ;
    else process.env.TZ = saved;
  });
}
