// An HTTP date naming a day its month does not have (31 November, 29 February of a common year) or
// hour 24 is no HTTP date (RFC 9110 5.6.7: day 2DIGIT of the month, hour 00-23). Date.parse rolls it
// over into the next day or month, a time the server never wrote, so httpDate must not read it:
// docs/behaviour.md, "Refresh": `Retry-After` "a malformed one as none", and "The spree-v3 preset": where the worker
// cannot read `Date`, the device's clock serves.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { spreeV3 } from '../src/sw/dialects/spreeV3.js';
import { retryAfterMs, sendOwn } from '../src/sw/outbound.js';
import { httpDate } from '../src/sw/serverClock.js';
import { storeApiJwt } from './fakes.js';

const IMPOSSIBLE = [
  'Fri, 31 Nov 2023 22:13:20 GMT',
  'Friday, 31-Nov-23 22:13:20 GMT',
  'Fri Nov 31 22:13:20 2023',
  'Wed, 29 Feb 2023 22:13:20 GMT',
  'Thu, 30 Feb 2023 22:13:20 GMT',
  'Tue, 14 Nov 2023 24:00:00 GMT',
];

describe('an HTTP date with a day its month lacks, or hour 24', () => {
  it('is no date: httpDate gives null, as for day 99', () => {
    for (const value of IMPOSSIBLE) assert.equal(httpDate(value), null, value);
    // Real dates around them still read.
    assert.equal(httpDate('Thu, 30 Nov 2023 22:13:20 GMT'), Date.UTC(2023, 10, 30, 22, 13, 20));
    assert.equal(httpDate('Thu, 29 Feb 2024 22:13:20 GMT'), Date.UTC(2024, 1, 29, 22, 13, 20));
    assert.equal(httpDate('Sun Nov  6 08:49:37 1994'), Date.UTC(1994, 10, 6, 8, 49, 37));
  });

  it('a leap second is read as the second before it, in every format (V8 reads it a minute early, an asctime one 66 years early)', () => {
    const before = Date.UTC(2026, 11, 31, 23, 59, 59);
    for (const value of ['Thu, 31 Dec 2026 23:59:60 GMT', 'Thursday, 31-Dec-26 23:59:60 GMT', 'Thu Dec 31 23:59:60 2026']) assert.equal(httpDate(value), before, value);
    for (const second of ['61', '99']) assert.equal(httpDate(`Thu, 31 Dec 2026 23:59:${second} GMT`), null, `no second ${second}`);
  });

  it('as a Retry-After is malformed, so it asks for no wait (not the 5-minute cap)', () => {
    const date = 'Thu, 30 Nov 2023 22:13:20 GMT';
    for (const value of IMPOSSIBLE.slice(0, 3)) assert.equal(retryAfterMs(new Headers({ 'Retry-After': value, Date: date }), Date.parse(date)), null, value);
  });

  it("as the Date of a v3 login's answer is unreadable, so the device's clock serves and the login is kept", async () => {
    const v3 = spreeV3('pk_test+/"\\');
    // The device's clock and the server's agree: 30 November, 22:13:20. The JWT lives an hour.
    const now = Date.UTC(2023, 10, 30, 22, 13, 20);
    const token = storeApiJwt(now / 1000 + 3_600);
    const body = JSON.stringify({ token, refresh_token: 'r/+"\\9Zq', user: { id: 'cus_1' } });
    const reply = await sendOwn(async () => new Response(body, { status: 200, headers: { 'Content-Type': 'application/json', Date: 'Fri, 31 Nov 2023 22:13:20 GMT' } }), 'https://shop.example', v3.passwordGrant('a@b.c', 'pw'), () => now);
    assert.equal(reply.serverDate, null, 'the Date names no real day');
    const session = v3.judgeTokenReply(reply, 'password');
    assert.equal(session.expiresAt, now + 3_600_000);
  });
});
