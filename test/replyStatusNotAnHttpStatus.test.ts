// docs/behaviour.md ("When things go wrong"): a rejection's `status` is the HTTP status that caused
// it. A reply from another release's worker whose status is no HTTP status ('400', NaN, Infinity,
// 1.5, 42; a structured clone keeps the numbers) reaches the app with none.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { deserializeError, type SerializedError } from '../src/shared/errors.js';

it('a reply error whose status is NaN, Infinity or 1.5 rejects with no status', () => {
  for (const status of [Number.NaN, Number.POSITIVE_INFINITY, 1.5]) {
    const error = deserializeError({ code: 'invalid_grant', message: 'wrong "pass/word+\\"', status } as SerializedError);
    assert.ok(error.status === undefined || (Number.isInteger(error.status) && error.status >= 100 && error.status <= 599), `status ${String(status)} reached the app as ${String(error.status)}`);
  }
});
