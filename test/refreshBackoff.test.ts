// The refresh back-off (docs/behaviour.md, "Refresh": at most one attempt per 5 s after a failure,
// doubling up to 60 s): pure functions of the stored back-off and the clock.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BACKOFF_FIRST_MS, BACKOFF_MAX_MS, chargeAttempt, mayRefresh, type Backoff } from '../src/sw/refreshBackoff.js';

const NOW = 1_700_000_000_000;

describe('refresh back-off constants', () => {
  it('waits 5 s after the first failure and at most 60 s', () => {
    assert.equal(BACKOFF_FIRST_MS, 5_000);
    assert.equal(BACKOFF_MAX_MS, 60_000);
  });
});

describe('mayRefresh', () => {
  it('allows a refresh when no back-off is stored', () => assert.equal(mayRefresh(null, NOW), true));

  it('refuses one before the back-off ends, to the millisecond', () => {
    const backoff: Backoff = { attempts: 1, until: NOW + 5_000 };
    assert.equal(mayRefresh(backoff, NOW), false);
    assert.equal(mayRefresh(backoff, NOW + 4_999), false);
  });

  it('allows one from the moment the back-off ends', () => {
    const backoff: Backoff = { attempts: 3, until: NOW + 20_000 };
    assert.equal(mayRefresh(backoff, NOW + 20_000), true);
    assert.equal(mayRefresh(backoff, NOW + 20_001), true);
  });

  it('looks at `until` only, not at the number of attempts', () => {
    assert.equal(mayRefresh({ attempts: 99, until: NOW - 1 }, NOW), true);
    assert.equal(mayRefresh({ attempts: 0, until: NOW + 1 }, NOW), false);
  });

  it('waits out a back-off of up to 5 minutes, the longest this release sets', () => {
    assert.equal(mayRefresh({ attempts: 1, until: NOW + 300_000 }, NOW), false);
    assert.equal(mayRefresh({ attempts: 1, until: NOW + 300_000 }, NOW + 299_999), false);
  });

  it('counts a stored end further ahead as over, so no stored value wedges the session', () => {
    // An earlier release stored a 429's Retry-After unbounded; a clock set back makes a short wait look long.
    for (const until of [NOW + 300_001, NOW + 86_400_000, NOW + 99_999_999_999_999_000, Number.MAX_VALUE, Infinity, NaN]) {
      assert.equal(mayRefresh({ attempts: 1, until }, NOW), true, String(until));
    }
  });
});

describe('chargeAttempt', () => {
  it("waits a server's Retry-After when longer than the step, up to 5 minutes", () => {
    assert.deepEqual(chargeAttempt(null, NOW, 30_000), { attempts: 1, until: NOW + 30_000 });
    assert.deepEqual(chargeAttempt(null, NOW, 300_000), { attempts: 1, until: NOW + 300_000 });
    for (const atLeast of [300_001, 86_400_000, 99_999_999_999_999_000, Infinity]) {
      const backoff = chargeAttempt(null, NOW, atLeast);
      assert.deepEqual(backoff, { attempts: 1, until: NOW + 300_000 }, String(atLeast));
      assert.equal(new Date(backoff.until).toISOString(), new Date(NOW + 300_000).toISOString(), 'a time a Date holds');
    }
  });

  it('waits 5 s, 10 s, 20 s, 40 s, 60 s, 60 s after successive attempts, each from its own time', () => {
    const waits: number[] = [];
    let backoff: Backoff | null = null;
    let now = NOW;
    for (let attempt = 1; attempt <= 6; attempt++) {
      backoff = chargeAttempt(backoff, now);
      assert.equal(backoff.attempts, attempt);
      waits.push(backoff.until - now);
      // The next attempt goes out as soon as it may, plus a little lag.
      now = backoff.until + 123;
    }
    assert.deepEqual(waits, [5_000, 10_000, 20_000, 40_000, 60_000, 60_000]);
  });

  it('stays at 60 s however many attempts failed', () => {
    assert.equal(chargeAttempt({ attempts: 1_000, until: NOW }, NOW).until, NOW + 60_000);
    assert.equal(chargeAttempt({ attempts: 1_000, until: NOW }, NOW).attempts, 1_001);
  });

  it('counts from `now`, not from the previous `until` (a late attempt waits its full step)', () => {
    const previous: Backoff = { attempts: 1, until: NOW - 3_600_000 };
    assert.deepEqual(chargeAttempt(previous, NOW), { attempts: 2, until: NOW + 10_000 });
  });

  it('is pure: it leaves its input alone and gives the same answer for the same input', () => {
    const previous: Backoff = Object.freeze({ attempts: 2, until: NOW });
    const first = chargeAttempt(previous, NOW + 1_000);
    const second = chargeAttempt(previous, NOW + 1_000);
    assert.deepEqual(first, { attempts: 3, until: NOW + 1_000 + 20_000 });
    assert.deepEqual(second, first);
    assert.notEqual(first, previous);
    assert.deepEqual(previous, { attempts: 2, until: NOW });
    assert.deepEqual(chargeAttempt(null, NOW), chargeAttempt(null, NOW));
  });

  it('a charge always forbids a refresh at the time it was charged', () => {
    let backoff: Backoff | null = null;
    for (let attempt = 1; attempt <= 10; attempt++) {
      backoff = chargeAttempt(backoff, NOW);
      assert.equal(mayRefresh(backoff, NOW), false, `after attempt ${attempt}`);
    }
  });
});

describe('chargeAttempt with a least wait (a 429\'s Retry-After)', () => {
  it('a Retry-After longer than the step wins', () => {
    assert.deepEqual(chargeAttempt(null, NOW, 30_000), { attempts: 1, until: NOW + 30_000 });
    assert.deepEqual(chargeAttempt({ attempts: 1, until: NOW }, NOW, 60_000), { attempts: 2, until: NOW + 60_000 });
  });

  it('a Retry-After shorter than the step changes nothing', () => {
    assert.deepEqual(chargeAttempt(null, NOW, 1_000), chargeAttempt(null, NOW));
    assert.deepEqual(chargeAttempt({ attempts: 3, until: NOW }, NOW, 30_000), { attempts: 4, until: NOW + 40_000 });
    assert.deepEqual(chargeAttempt(null, NOW, 0), { attempts: 1, until: NOW + 5_000 });
  });

  it('is not capped at 60 s: the server asked for longer', () => {
    assert.deepEqual(chargeAttempt({ attempts: 9, until: NOW }, NOW, 120_000), { attempts: 10, until: NOW + 120_000 });
  });

  it('counts one more attempt either way, so the steps after it go on doubling', () => {
    const afterLimit = chargeAttempt(null, NOW, 30_000);
    assert.deepEqual(chargeAttempt(afterLimit, NOW + 30_000), { attempts: 2, until: NOW + 30_000 + 10_000 });
  });
});
