// CONTRACT.md ("Errors"): a rejection carries `status` "whenever an HTTP response caused it". 7d6c678
// drops a status from another release's worker that is "no number" ('400'); a structured clone keeps
// NaN and Infinity, which are typeof 'number' yet no HTTP status, and reach the app as `status`.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { deserializeError, type SerializedError } from '../src/shared/errors.js';

it('a reply error whose status is NaN, Infinity or 1.5 rejects with no status', () => {
  for (const status of [Number.NaN, Number.POSITIVE_INFINITY, 1.5]) {
    const error = deserializeError({ code: 'invalid_grant', message: 'wrong "pass/word+\\"', status } as SerializedError);
    assert.ok(error.status === undefined || (Number.isInteger(error.status) && error.status >= 100 && error.status <= 599), `status ${String(status)} reached the app as ${String(error.status)}`);
  }
});
