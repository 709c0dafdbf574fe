// A JWT's expiry (jwt.ts; docs/behaviour.md, "The spree-v3 preset": "its expiry is its `exp`
// claim", and a token without a readable `exp` is no token response): real HS256 tokens signed here
// with node:crypto, and every way a token can fail to give a finite, positive `exp`.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { jwtExpiry } from '../src/sw/jwt.js';
import { base64url, storeApiJwt } from './fakes.js';

const EXP = 1_700_003_600;

/** `token` with its payload segment replaced by `segment`. */
function withPayload(segment: string): string {
  const [header, , signature] = storeApiJwt(EXP).split('.');
  return `${header}.${segment}.${signature}`;
}

describe('jwtExpiry', () => {
  it('gives the exp of a real HS256 token in epoch ms', () => {
    const token = storeApiJwt(EXP);
    const [header, payload, signature] = token.split('.');
    // It is the real thing: the signature verifies under its secret.
    assert.equal(createHmac('sha256', 'test-secret').update(`${header}.${payload}`).digest('base64url'), signature);
    assert.equal(jwtExpiry(token), EXP * 1000);
  });

  it('reads exp among any other claims, and a fractional exp as it is', () => {
    assert.equal(jwtExpiry(storeApiJwt(null, JSON.stringify({ sub: 'x', exp: 1_700_000_000.5, aud: ['a', 'b'] }))), 1_700_000_000_500);
  });

  it('decodes a padding-free base64url payload holding - and _', () => {
    // Find filler whose encoding holds both characters that base64 spells + and /, and needs padding there.
    let payload: string | null = null;
    for (let i = 0; payload === null && i < 64; i++) {
      const candidate = JSON.stringify({ exp: EXP, note: `${'?'.repeat(i % 7)}>>>???${'~'.repeat(i)}` });
      const segment = base64url(candidate);
      if (segment.includes('-') && segment.includes('_') && segment.length % 4 !== 0) payload = candidate;
    }
    assert.ok(payload !== null, 'a payload with - and _ and no padding');
    const token = storeApiJwt(null, payload);
    assert.ok(!token.includes('=') && !token.includes('+') && !token.includes('/'));
    assert.equal(jwtExpiry(token), EXP * 1000);
  });

  for (const [what, claims] of [
    ['no exp', { user_id: 1, iss: 'spree' }],
    ['a string exp', { exp: String(EXP) }],
    ['a negative exp', { exp: -EXP }],
    ['a zero exp', { exp: 0 }],
    ['a null exp', { exp: null }],
    ['an exp in an object', { exp: { value: EXP } }],
  ] as const) {
    it(`gives null for ${what}`, () => assert.equal(jwtExpiry(storeApiJwt(null, JSON.stringify(claims))), null));
  }

  it('gives null for an infinite exp (a JSON number too large for a double)', () => {
    assert.equal(jwtExpiry(storeApiJwt(null, '{"exp":1e400}')), null);
    assert.equal(jwtExpiry(storeApiJwt(null, '{"exp":-1e400}')), null);
  });

  it('gives null unless there are exactly three segments', () => {
    const [header, payload, signature] = storeApiJwt(EXP).split('.');
    assert.equal(jwtExpiry(`${header}.${payload}`), null);
    assert.equal(jwtExpiry(`${header}.${payload}.${signature}.${signature}`), null);
    assert.equal(jwtExpiry(payload ?? ''), null);
    assert.equal(jwtExpiry(''), null);
  });

  it('gives null when a segment is empty (an unsigned token too)', () => {
    const [header, payload, signature] = storeApiJwt(EXP).split('.');
    assert.equal(jwtExpiry(`.${payload}.${signature}`), null);
    assert.equal(jwtExpiry(`${header}..${signature}`), null);
    assert.equal(jwtExpiry(`${header}.${payload}.`), null);
  });

  it('gives null for a payload that is not base64url', () => {
    const segment = base64url(JSON.stringify({ exp: EXP, pad: 'x' }));
    assert.equal(segment.length % 4, 2, 'this payload would need padding');
    // Standard base64 with padding, a character outside the alphabet, and an impossible length.
    assert.equal(jwtExpiry(withPayload(`${segment}==`)), null);
    assert.equal(jwtExpiry(withPayload(Buffer.from(JSON.stringify({ exp: EXP, n: '>>>???' })).toString('base64'))), null);
    assert.equal(jwtExpiry(withPayload(`${segment}*`)), null);
    assert.equal(jwtExpiry(withPayload(segment.slice(0, -1))), null);
  });

  it('gives null for a payload that is not JSON', () => {
    assert.equal(jwtExpiry(withPayload(base64url(`exp=${EXP}`))), null);
    assert.equal(jwtExpiry(withPayload(base64url(`{"exp":${EXP}`))), null);
  });

  it('gives null for a payload that is not UTF-8, though a lenient decoder would read its exp', () => {
    const bytes = Buffer.concat([Buffer.from(`{"exp":${EXP},"n":"`), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    assert.equal(jwtExpiry(withPayload(base64url(bytes))), null);
  });

  it('gives null for a payload that is JSON but no object', () => {
    for (const payload of [`[${EXP}]`, `[{"exp":${EXP}}]`, String(EXP), `"exp"`, 'null', 'true']) {
      assert.equal(jwtExpiry(withPayload(base64url(payload))), null, payload);
    }
  });
});
