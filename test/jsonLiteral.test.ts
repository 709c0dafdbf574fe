// JSON string literals as the seal scanner reads them (jsonLiteral.ts): where one closes, an escape
// cut in two at the end of what has come, and the decoded text mapped back to the units it came from.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { closingQuote, danglingEscape, danglingSequence, decodeLiteral, quickDecode, trailingBackslashes } from '../src/sw/jsonLiteral.js';
import { TEXT_UNITS } from '../src/sw/sealSpellings.js';
import { UTF8_UNITS } from '../src/sw/sealStream.js';

describe('JSON string literals', () => {
  it('closes a literal at its first quote after an even run of backslashes', () => {
    assert.equal(closingQuote('"ab"', 1), 3);
    assert.equal(closingQuote('"a\\"b"', 1), 5);
    assert.equal(closingQuote('"a\\\\"b"', 1), 4);
    assert.equal(closingQuote('"a\\\\\\"', 1), -1);
    assert.equal(closingQuote('"abc', 1), -1);
  });

  it('finds an escape cut in two at the end, and only one that starts an escape', () => {
    for (const [text, cut] of [['ab\\', 1], ['ab\\u', 2], ['ab\\u00', 4], ['ab\\u00e', 5], ['ab\\u00e9', 0], ['ab\\\\', 0], ['ab\\\\u00', 0], ['ab\\\\\\u0', 3], ['ab', 0]] as const) {
      assert.equal(danglingEscape(text, 0, text.length), cut, text);
    }
    assert.equal(trailingBackslashes('a\\\\\\', 0, 4), 3);
    assert.equal(trailingBackslashes('\\\\', 1, 2), 1, 'not before the start');
  });

  it('decodes every escape, maps each character back to its units, and lets an unknown escape stand for itself', () => {
    const units = 'a\\/b\\u0063\\n\\q"';
    const decoded = decodeLiteral(units, 0, units.length - 1, TEXT_UNITS);
    assert.equal(decoded.text, 'a/bc\n\\q');
    assert.deepEqual(decoded.at, [0, 1, 3, 4, 10, 12, 13]);
    assert.deepEqual(decoded.after, [1, 3, 4, 10, 12, 13, 14]);
    assert.equal(quickDecode(units, 0, units.length - 1, TEXT_UNITS), null, 'not valid JSON: \\q');
    assert.equal(quickDecode('x\\/y', 0, 4, UTF8_UNITS), 'x/y');
  });

  it('decodes UTF-8 bytes a sequence at a time, each character mapped to its own bytes', () => {
    const units = new TextDecoder('windows-1252').decode(new TextEncoder().encode('é😀\\/'));
    const decoded = decodeLiteral(units, 0, units.length, UTF8_UNITS);
    assert.equal(decoded.text, 'é😀/');
    // é is two bytes, 😀 four (two UTF-16 units, both mapped to its four bytes), then the escape.
    assert.deepEqual(decoded.at, [0, 2, 2, 6]);
    assert.deepEqual(decoded.after, [2, 6, 6, 8]);
    assert.equal(quickDecode(units, 0, units.length, UTF8_UNITS), decoded.text, 'decoded all at once, the same text');
  });

  it('decodes bytes that are no character the same all at once as a sequence at a time', () => {
    // Each kind of malformed UTF-8 (a stray continuation byte, a sequence cut short by ASCII, an
    // overlong form, a surrogate, a lead byte past F4) next to an escape and a character past ASCII;
    // and U+FEFF inside a literal, which the page's parse keeps.
    for (const bytes of [[0x80, 0x61], [0xe2, 0x98, 0x62], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf5, 0x80, 0x80, 0x80], [0xf0, 0x9f, 0x98], [0xef, 0xbb, 0xbf, 0x61]]) {
      const units = new TextDecoder('windows-1252').decode(Uint8Array.from([...bytes, 0x5c, 0x2f, 0xc3, 0xa9, ...bytes]));
      const slow = decodeLiteral(units, 0, units.length, UTF8_UNITS).text;
      assert.equal(quickDecode(units, 0, units.length, UTF8_UNITS), slow, bytes.map((byte) => byte.toString(16)).join(' '));
      assert.equal(slow, JSON.parse(`"${new TextDecoder('utf-8', { ignoreBOM: true }).decode(Uint8Array.from([...bytes, 0x5c, 0x2f, 0xc3, 0xa9, ...bytes]))}"`), 'as the page parses it');
    }
  });

  it('decodes a byte that leads no sequence, or a sequence cut short, as what it is, alone', () => {
    // A continuation byte alone (0x80, a unit past U+00FF), a lead byte whose sequence stops at an ASCII byte.
    const units = new TextDecoder('windows-1252').decode(new Uint8Array([0x80, 0x61, 0xe2, 0x98, 0x62]));
    const decoded = decodeLiteral(units, 0, units.length, UTF8_UNITS);
    assert.deepEqual(decoded.at, [0, 1, 2, 4]);
    assert.deepEqual(decoded.after, [1, 2, 4, 5]);
    assert.equal(decoded.text.slice(-1), 'b');
  });

  it('names the bytes of a UTF-8 sequence cut in two at the end, and none for a whole one or for text', () => {
    const units = (bytes: number[]) => new TextDecoder('windows-1252').decode(new Uint8Array(bytes));
    assert.equal(danglingSequence(units([0x61, 0xe2, 0x98]), 0, 3, UTF8_UNITS), 2);
    assert.equal(danglingSequence(units([0x61, 0xf0, 0x9f, 0x98]), 0, 4, UTF8_UNITS), 3);
    assert.equal(danglingSequence(units([0x61, 0xc3]), 0, 2, UTF8_UNITS), 1);
    assert.equal(danglingSequence(units([0x61, 0xe2, 0x98, 0x83]), 0, 4, UTF8_UNITS), 0);
    assert.equal(danglingSequence(units([0x61, 0x80]), 0, 2, UTF8_UNITS), 0, 'a continuation byte alone waits for nothing');
    assert.equal(danglingSequence('aé', 0, 2, TEXT_UNITS), 0);
  });
});
