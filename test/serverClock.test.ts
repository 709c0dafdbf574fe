// The server's clock as an answer's `Date` tells it (serverClock.ts): a JWT's lifetime is judged
// against the clock that wrote its `exp` (docs/behaviour.md, "The spree-v3 preset": "exp minus the
// answer's Date").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { httpDate, serverTimeAt } from '../src/sw/serverClock.js';
import { inTimeZone, ZONES } from './timeZone.js';

// A whole second, as HTTP dates are.
const DATE = Date.parse('Tue, 14 Nov 2023 22:13:20 GMT');
const MINUTE = 60_000;

describe('httpDate', () => {
  it('reads the three formats of an HTTP date (RFC 9110 5.6.7)', () => {
    assert.equal(httpDate('Tue, 14 Nov 2023 22:13:20 GMT'), DATE);
    assert.equal(httpDate('Tuesday, 14-Nov-23 22:13:20 GMT'), DATE);
    assert.equal(httpDate('Tue Nov 14 22:13:20 2023'), DATE);
    assert.equal(httpDate(' Tue, 14 Nov 2023 22:13:20 GMT '), DATE);
  });

  it('gives null when absent or not an HTTP date, whatever Date.parse would make of it', () => {
    for (const value of [null, '', 'now', '1700000000', '2023-11-14T22:13:20Z', '11/14/2023 22:13:20', 'Tue, 99 Nov 2023 22:13:20 GMT']) {
      assert.equal(httpDate(value), null, String(value));
    }
  });
});

for (const zone of ZONES) {
  describe(`httpDate on a device in ${zone}`, () => {
    inTimeZone(zone);

    it('reads all three formats as GMT: asctime names no zone, yet is GMT too (RFC 9110 5.6.7)', () => {
      assert.equal(httpDate('Tue, 14 Nov 2023 22:13:20 GMT'), DATE);
      assert.equal(httpDate('Tuesday, 14-Nov-23 22:13:20 GMT'), DATE);
      assert.equal(httpDate('Tue Nov 14 22:13:20 2023'), DATE);
      assert.equal(httpDate('Sun Nov  6 08:49:37 1994'), Date.parse('Sun, 06 Nov 1994 08:49:37 GMT'));
    });
  });
}

describe('serverTimeAt', () => {
  it('is the device clock without a Date: a cross-origin API that does not expose it', () => {
    assert.equal(serverTimeAt(DATE + 123_456, null), DATE + 123_456);
  });

  it("is the device's finer clock while it agrees with Date (the second Date names, and the answer's way)", () => {
    for (const offset of [0, 1, 999, 1_500, 2_000]) assert.equal(serverTimeAt(DATE + offset, DATE), DATE + offset, String(offset));
  });

  it('is the end of the second Date names when the device clock is ahead or behind, so no lifetime counts long', () => {
    for (const offset of [65 * MINUTE, 2_001, -1, -65 * MINUTE, -24 * 60 * MINUTE]) assert.equal(serverTimeAt(DATE + offset, DATE), DATE + 1_000, String(offset));
  });
});
