// The charset a Content-Type declares, read as browsers read it (mimeCharset.ts): the last valid type
// of a repeated header, quoted parameters, and the parameters browsers ignore.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mimeCharset } from '../src/sw/mimeCharset.js';

describe('the charset a Content-Type declares', () => {
  it('reads a charset parameter, its name in any case, its value as sent', () => {
    assert.equal(mimeCharset('application/json; charset=utf-16le'), 'utf-16le');
    assert.equal(mimeCharset('text/html;CharSet=Shift_JIS;foo=bar'), 'Shift_JIS');
    assert.equal(mimeCharset('  text/plain ;  charset=koi8-r  '), 'koi8-r');
    assert.equal(mimeCharset('application/json'), null);
    assert.equal(mimeCharset(''), null);
  });

  it('reads a quoted value, its escapes undone, and what a quoted value holds as no parameter', () => {
    assert.equal(mimeCharset('application/json; charset="utf-16le"'), 'utf-16le');
    assert.equal(mimeCharset('application/json; charset="utf\\-16le"'), 'utf-16le');
    assert.equal(mimeCharset('application/json; foo="; charset=x"; charset=utf-16le'), 'utf-16le');
    assert.equal(mimeCharset('application/json; foo="a\\"; charset=x"; charset=utf-16be'), 'utf-16be');
    assert.equal(mimeCharset('application/json; charset="utf-16le"junk; x=y'), 'utf-16le');
    assert.equal(mimeCharset('application/json; charset="utf-16le'), 'utf-16le', 'a quoted string the value ends in');
    assert.equal(mimeCharset('application/json; charset="utf-16le\\'), 'utf-16le\\', 'a backslash at the very end stands for itself');
  });

  it('ignores a parameter with white space around its "=", and keeps the first valid charset', () => {
    assert.equal(mimeCharset('application/json; charset = utf-16le'), null);
    assert.equal(mimeCharset('application/json; charset =utf-16le; charset=utf-8'), 'utf-8');
    assert.equal(mimeCharset('application/json; charset=utf-8; charset=utf-16le'), 'utf-8');
    assert.equal(mimeCharset('application/json; charset=; charset=utf-16le'), 'utf-16le', 'an empty value is none');
    assert.equal(mimeCharset('application/json; charset=""; charset=utf-16le'), '', 'an empty quoted one is one');
    assert.equal(mimeCharset('application/json; charset=utf-16le\u0100; charset=iso-8859-2'), 'iso-8859-2', 'a value past Latin-1 is not valid');
    assert.equal(mimeCharset('application/json; charset'), null);
  });

  it('reads a repeated header (joined by ", ") as its last valid type, commas in quotes kept', () => {
    assert.equal(mimeCharset('application/json; charset=utf-8, text/plain; charset=utf-16le'), 'utf-16le');
    assert.equal(mimeCharset('text/plain; charset=utf-16le, text/plain'), 'utf-16le', 'the same essence keeps the charset of its run');
    assert.equal(mimeCharset('text/plain; charset=utf-16le, application/json'), null, 'another essence has none');
    assert.equal(mimeCharset('text/plain; charset=utf-16le, text/plain; charset=utf-8'), 'utf-8');
    assert.equal(mimeCharset('text/plain; charset=utf-16le, */*, nonsense, text/ plain; charset=utf-8'), 'utf-16le', 'no valid type after it');
    assert.equal(mimeCharset('text/plain; foo=", text/html; charset=utf-16le"'), null);
    assert.equal(mimeCharset('text/plain; foo=", x", text/html; charset=utf-16le'), 'utf-16le');
  });

  it('finds no type in what is not one', () => {
    for (const value of ['json', '/json', 'text/', 'te xt/plain; charset=utf-16le', 'text/pl ain; charset=utf-16le', 'text;x/plain; charset=utf-16le']) assert.equal(mimeCharset(value), null, value);
  });
});
