// What may be a publishable key: the Store API's keys are single tokens, so a placeholder a build
// left unfilled, or a key with whitespace inside, is refused by the page and the worker alike.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { publishableKeyRefusal } from '../src/shared/publishableKey.js';

describe('publishableKeyRefusal', () => {
  it('accepts keys as the Store API issues them, and an empty one (no key given)', () => {
    for (const key of ['pk_test_storefront_auth', 'pk_7Hq+/x=', 'pk_100%', 'key-with-$-sign', '']) assert.equal(publishableKeyRefusal(key), null, key);
  });
  it("refuses a placeholder left unfilled: Vite's %…%, a shell's or template's ${…}, a template's {{…}}", () => {
    for (const key of ['%VITE_SPREE_PUBLISHABLE_KEY%', 'pk_%KEY%', '${SPREE_KEY}', '${}', '{{ spree_key }}', '{{key}}']) {
      const message = publishableKeyRefusal(key);
      assert.ok(message?.startsWith(`publishableKey ${JSON.stringify(key)} is not a key`), `${key}: ${message}`);
      assert.match(message ?? '', /placeholder/);
    }
  });
  it('refuses whitespace inside a key: a line break or a space pasted with it', () => {
    for (const key of ['pk_abc def', 'pk_abc\ndef', 'pk_abc\tdef', ' ', 'pk_a\u00a0b']) assert.match(publishableKeyRefusal(key) ?? '', /whitespace/, JSON.stringify(key));
  });
});
