// The one error (docs/behaviour.md, "When things go wrong"): what crosses postMessage, and telling
// it by name when its prototype is lost.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runInNewContext } from 'node:vm';
import {
  deserializeError,
  isStorefrontAuthError,
  serializeError,
  StorefrontAuthError,
  type SerializedError,
  type StorefrontAuthErrorCode,
} from '../src/shared/errors.js';

const CODES: StorefrontAuthErrorCode[] = ['invalid_grant', 'invalid_request', 'network_error', 'bad_response', 'timeout', 'no_service_worker', 'storage_unavailable'];

describe('StorefrontAuthError', () => {
  it('carries its name, code, status, message and cause', () => {
    const cause = new TypeError('Failed to fetch');
    const error = new StorefrontAuthError('network_error', 'offline', { cause, status: 502 });
    assert.equal(error.name, 'StorefrontAuthError');
    assert.equal(error.code, 'network_error');
    assert.equal(error.status, 502);
    assert.equal(error.message, 'offline');
    assert.equal(error.cause, cause);
    assert.ok(error instanceof Error);
    assert.match(String(error), /^StorefrontAuthError: offline/);
  });
  it('has no status or cause unless given', () => {
    const error = new StorefrontAuthError('timeout', 'no answer');
    assert.equal(error.status, undefined);
    assert.equal('cause' in error, false);
  });
});

describe('serializeError and deserializeError', () => {
  for (const code of CODES) {
    // A method rejects with every code but `storage_unavailable`, an event's only: a reply carrying it is read as bad_response.
    const rejected = code === 'storage_unavailable' ? 'bad_response' : code;
    it(`round-trips ${code}, with and without a status`, () => {
      for (const status of [undefined, 100, 400, 502, 599]) {
        const original = new StorefrontAuthError(code, `what happened for ${code}`, status === undefined ? {} : { status });
        const back = deserializeError(serializeError(original));
        assert.equal(back.name, 'StorefrontAuthError');
        assert.equal(back.code, rejected);
        assert.equal(back.message, original.message);
        assert.equal(back.status, status);
        assert.ok(isStorefrontAuthError(back));
      }
    });
  }
  it('serializes to exactly code, message and status', () => {
    assert.deepEqual(serializeError(new StorefrontAuthError('invalid_grant', 'wrong password', { status: 400 })), {
      code: 'invalid_grant',
      message: 'wrong password',
      status: 400,
    });
    assert.deepEqual(serializeError(new StorefrontAuthError('timeout', 'no answer')), { code: 'timeout', message: 'no answer' });
  });
  it('leaves the cause behind, since it may hold a response body', () => {
    const error = new StorefrontAuthError('bad_response', 'm', { cause: { body: 'access_token=SECRET' } });
    const plain = serializeError(error);
    assert.equal('cause' in plain, false);
    assert.ok(!JSON.stringify(plain).includes('SECRET'));
  });
  it('survives the structured clone of postMessage', () => {
    const plain: SerializedError = serializeError(new StorefrontAuthError('invalid_grant', 'wrong password', { status: 400 }));
    const back = deserializeError(structuredClone(plain));
    assert.equal(back.code, 'invalid_grant');
    assert.equal(back.status, 400);
    assert.equal(back.message, 'wrong password');
  });
});

describe('isStorefrontAuthError', () => {
  it('tells a StorefrontAuthError', () => {
    assert.equal(isStorefrontAuthError(new StorefrontAuthError('timeout', 'm')), true);
  });
  it('tells one by name alone, as from another realm', () => {
    assert.equal(isStorefrontAuthError({ name: 'StorefrontAuthError', code: 'timeout', message: 'm' }), true);
    const foreign: unknown = runInNewContext(`(() => { const e = new Error('m'); e.name = 'StorefrontAuthError'; e.code = 'timeout'; return e; })()`);
    assert.equal(foreign instanceof Error, false);
    assert.equal(isStorefrontAuthError(foreign), true);
  });
  it('refuses other errors and values', () => {
    for (const value of [new Error('m'), new TypeError('m'), { code: 'timeout' }, { name: 'Error', code: 'timeout' }, 'StorefrontAuthError', null, undefined, 0]) {
      assert.equal(isStorefrontAuthError(value), false, String(value));
    }
  });
});
