// When a bearer is refreshed before use (docs/behaviour.md, "Refresh"): within 30 s of expiry, or
// within a tenth of its lifetime if that is shorter.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isRefreshDue, REFRESH_MARGIN_MS, refreshMargin } from '../src/sw/refreshDue.js';

const NOW = 1_700_000_000_000;

/** A session of `lifetimeS` seconds that has `leftMs` left at NOW. */
function session(lifetimeS: number, leftMs: number): { expiresAt: number; lifetimeMs: number } {
  return { expiresAt: NOW + leftMs, lifetimeMs: lifetimeS * 1000 };
}

describe('refreshMargin', () => {
  it('is 30 s', () => assert.equal(REFRESH_MARGIN_MS, 30_000));
  for (const [lifetimeS, marginMs] of [
    [7200, 30_000],
    [2_629_746, 30_000],
    [301, 30_000],
    [300, 30_000],
    [299, 29_900],
    [60, 6_000],
    [10, 1_000],
    [1, 100],
  ] as const) {
    it(`is ${marginMs} ms for a ${lifetimeS} s lifetime`, () => assert.equal(refreshMargin(lifetimeS * 1000), marginMs));
  }
});

describe('isRefreshDue', () => {
  it('a fresh two-hour token is not due', () => assert.equal(isRefreshDue(session(7200, 7_200_000), NOW), false));
  it('a two-hour token with 30 s and 1 ms left is not due', () => assert.equal(isRefreshDue(session(7200, 30_001), NOW), false));
  it('a two-hour token with exactly 30 s left is due', () => assert.equal(isRefreshDue(session(7200, 30_000), NOW), true));
  it('a two-hour token with 29 s left is due', () => assert.equal(isRefreshDue(session(7200, 29_000), NOW), true));
  it('an expired token is due', () => {
    assert.equal(isRefreshDue(session(7200, 0), NOW), true);
    assert.equal(isRefreshDue(session(7200, -3_600_000), NOW), true);
  });

  it('a one-minute token is due within 6 s of expiry, not 30 s', () => {
    assert.equal(isRefreshDue(session(60, 30_000), NOW), false);
    assert.equal(isRefreshDue(session(60, 6_001), NOW), false);
    assert.equal(isRefreshDue(session(60, 6_000), NOW), true);
    assert.equal(isRefreshDue(session(60, 5_999), NOW), true);
  });
  it('a ten-second token is not due as soon as it arrives', () => {
    // With a flat 30 s margin it would be refreshed before every request.
    assert.equal(isRefreshDue(session(10, 10_000), NOW), false);
    assert.equal(isRefreshDue(session(10, 1_001), NOW), false);
    assert.equal(isRefreshDue(session(10, 1_000), NOW), true);
  });
  it('a five-minute token has the full 30 s margin', () => {
    assert.equal(isRefreshDue(session(300, 30_001), NOW), false);
    assert.equal(isRefreshDue(session(300, 30_000), NOW), true);
  });
  it("a one-month token (Spree's default) is due only in its last 30 s", () => {
    assert.equal(isRefreshDue(session(2_629_746, 60_000), NOW), false);
    assert.equal(isRefreshDue(session(2_629_746, 30_000), NOW), true);
  });
  it('depends only on the time left, not on when the token arrived', () => {
    const s = session(7200, 100_000);
    assert.equal(isRefreshDue(s, s.expiresAt - 30_001), false);
    assert.equal(isRefreshDue(s, s.expiresAt - 30_000), true);
  });
});
