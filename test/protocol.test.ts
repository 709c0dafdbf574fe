// The message protocol between the page bridge and the worker (src/shared/protocol.ts): what the
// worker accepts, refuses and ignores, and what the page accepts as a reply or an announcement.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inspect } from 'node:util';
import {
  channelName,
  isAnnouncement,
  isRecord,
  isWorkerReply,
  MESSAGE_TAG,
  parseWorkerRequest,
  PROTOCOL_VERSION,
  type WorkerRequest,
} from '../src/shared/protocol.js';
import type { AuthState } from '../src/shared/state.js';

const BASE = 'https://shop.example/store';
const ENVELOPE = { tag: MESSAGE_TAG, v: PROTOCOL_VERSION, baseUrl: BASE } as const;
const SIGNED_IN: AuthState = { signedIn: true, accessTokenExpiresAt: 1_700_000_000_000, cart: { number: 'R1' }, pendingWrites: 2 };
const GUEST: AuthState = { signedIn: false, accessTokenExpiresAt: null, cart: null, pendingWrites: 0 };

/** Expects an `invalid_request` error reply and returns its message. */
function invalid(data: unknown): string {
  const parsed = parseWorkerRequest(data, BASE);
  // inspect, not JSON.stringify, which throws on a BigInt.
  assert.equal(parsed.kind, 'invalid', inspect(data));
  if (parsed.kind !== 'invalid') throw new Error('unreachable');
  assert.equal(parsed.error.code, 'invalid_request');
  assert.ok(parsed.error.message.length > 0);
  return parsed.error.message;
}

describe('parseWorkerRequest', () => {
  const valid: WorkerRequest[] = [
    { ...ENVELOPE, type: 'getState' },
    { ...ENVELOPE, type: 'logout' },
    { ...ENVELOPE, type: 'createCart' },
    { ...ENVELOPE, type: 'claim' },
    { ...ENVELOPE, type: 'online' },
    { ...ENVELOPE, type: 'login', username: 'shopper@example.com', password: 'correct horse' },
  ];
  for (const request of valid) {
    it(`accepts ${request.type}`, () => {
      assert.deepEqual(parseWorkerRequest(request, BASE), { kind: 'request', request });
    });
  }
  it('accepts a login whose password has spaces around it, unchanged', () => {
    const request = { ...ENVELOPE, type: 'login', username: 'a@b.example', password: '  x  ' };
    assert.deepEqual(parseWorkerRequest(request, BASE), { kind: 'request', request });
  });
  it('passes on only the fields of the protocol', () => {
    const parsed = parseWorkerRequest({ ...ENVELOPE, type: 'getState', password: 'p', extra: { deep: true } }, BASE);
    assert.deepEqual(parsed, { kind: 'request', request: { ...ENVELOPE, type: 'getState' } });
    const login = parseWorkerRequest({ ...ENVELOPE, type: 'login', username: 'u', password: 'p', extra: 1 }, BASE);
    assert.deepEqual(login, { kind: 'request', request: { ...ENVELOPE, type: 'login', username: 'u', password: 'p' } });
  });

  describe('ignores messages that are not ours', () => {
    const ignored: [what: string, data: unknown][] = [
      ['undefined', undefined],
      ['null', null],
      ['a string', 'storefront-auth'],
      ['a number', 1],
      ['an array', [ENVELOPE]],
      ['an object without a tag', { v: PROTOCOL_VERSION, baseUrl: BASE, type: 'getState' }],
      ['another tag', { ...ENVELOPE, tag: 'workbox-window', type: 'getState' }],
      ['a tag of another case', { ...ENVELOPE, tag: 'Storefront-Auth', type: 'getState' }],
      ["Workbox window's SKIP_WAITING", { type: 'SKIP_WAITING' }],
      ['another base URL', { ...ENVELOPE, baseUrl: 'https://other.example', type: 'getState' }],
      ['the base URL spelled with a trailing slash', { ...ENVELOPE, baseUrl: `${BASE}/`, type: 'logout' }],
    ];
    for (const [what, data] of ignored) {
      it(what, () => assert.deepEqual(parseWorkerRequest(data, BASE), { kind: 'ignore' }));
    }
  });

  describe('answers malformed messages of ours with invalid_request', () => {
    it('an unknown version, naming both versions', () => {
      const message = invalid({ ...ENVELOPE, v: 2, type: 'getState' });
      assert.match(message, /2/);
      assert.match(message, new RegExp(`version ${PROTOCOL_VERSION}`));
    });
    it('a missing or non-numeric version', () => {
      invalid({ tag: MESSAGE_TAG, baseUrl: BASE, type: 'getState' });
      invalid({ ...ENVELOPE, v: '1', type: 'getState' });
      invalid({ ...ENVELOPE, v: null, type: 'getState' });
      invalid({ ...ENVELOPE, v: { n: 1 }, type: 'getState' });
    });
    it('a missing or non-string base URL', () => {
      invalid({ tag: MESSAGE_TAG, v: PROTOCOL_VERSION, type: 'getState' });
      invalid({ ...ENVELOPE, baseUrl: 42, type: 'getState' });
    });
    it('an unknown, missing or non-string type, naming the valid ones', () => {
      const message = invalid({ ...ENVELOPE, type: 'refresh' });
      assert.match(message, /"refresh"/);
      for (const type of ['getState', 'login', 'logout', 'createCart', 'claim']) assert.match(message, new RegExp(type));
      invalid({ ...ENVELOPE });
      invalid({ ...ENVELOPE, type: 7 });
      invalid({ ...ENVELOPE, type: 'GETSTATE' });
      invalid({ ...ENVELOPE, type: 'toString' });
      invalid({ ...ENVELOPE, type: '__proto__' });
    });
    it('a login without a usable username or password, never echoing the password', () => {
      const logins: Record<string, unknown>[] = [
        { username: 'a@b.example' },
        { password: 'hunter2-secret' },
        { username: '', password: 'hunter2-secret' },
        { username: '   ', password: 'hunter2-secret' },
        { username: 'a@b.example', password: '' },
        { username: 42, password: 'hunter2-secret' },
        { username: 'a@b.example', password: ['hunter2-secret'] },
        { username: null, password: null },
      ];
      for (const fields of logins) {
        const message = invalid({ ...ENVELOPE, type: 'login', ...fields });
        assert.ok(!message.includes('hunter2'), message);
      }
    });
  });

  describe('never throws for odd values a structured clone can carry, and answers ours with invalid_request', () => {
    // A page can post anything the structured clone algorithm copies: BigInts, nested objects,
    // arrays, Maps, Dates, typed arrays (no Symbols, no functions). JSON.stringify throws on a BigInt
    // and a template literal on a Symbol, so a message that names such a value must not use them.
    const nested = { a: { b: { c: [1, { d: 2n }] } } };
    const odd: [what: string, value: unknown][] = [
      ['a BigInt', 10n],
      ['a negative BigInt', -1n],
      ['a nested object', nested],
      ['an object with a BigInt inside', { n: 1n }],
      ['an array', ['getState']],
      ['a nested array', [[1n], [{ type: 'login' }]]],
      ['an empty object', {}],
      ['an object without a prototype', Object.create(null) as object],
      ['a Map', new Map([['type', 'getState']])],
      ['a Date', new Date(0)],
      ['a typed array', new Uint8Array([1, 2])],
      ['NaN', Number.NaN],
    ];
    const fields = ['type', 'v', 'baseUrl', 'username', 'password'] as const;
    for (const [what, value] of odd) {
      for (const field of fields) {
        it(`${what} as ${field}`, () => {
          const message = field === 'username' || field === 'password' ? { ...ENVELOPE, type: 'login', username: 'u', password: 'p', [field]: value } : { ...ENVELOPE, type: 'getState', [field]: value };
          let parsed: ReturnType<typeof parseWorkerRequest> | undefined;
          assert.doesNotThrow(() => (parsed = parseWorkerRequest(message, BASE)));
          assert.equal(parsed?.kind, 'invalid', `${what} as ${field}`);
          if (parsed?.kind !== 'invalid') return;
          assert.equal(parsed.error.code, 'invalid_request');
          assert.equal(typeof parsed.error.message, 'string');
          assert.ok(parsed.error.message.length > 0);
          // The reply crosses postMessage and may be logged: it must be plain, JSON-safe text.
          assert.doesNotThrow(() => JSON.stringify(parsed));
        });
      }
    }
    it('a BigInt version and type are named by their type, not their value', () => {
      assert.match(invalid({ ...ENVELOPE, v: 1n, type: 'getState' }), /bigint/);
      assert.match(invalid({ ...ENVELOPE, type: 1n }), /bigint/);
    });
    it('a version that only looks like ours is refused', () => {
      for (const v of [1n, [1], { v: 1 }, '1', 1.0000001, true]) invalid({ ...ENVELOPE, v, type: 'getState' });
    });
    it('odd values whole, or without our tag, are ignored, not refused', () => {
      for (const [what, value] of odd) {
        assert.doesNotThrow(() => parseWorkerRequest(value, BASE), what);
        assert.deepEqual(parseWorkerRequest(value, BASE), { kind: 'ignore' }, what);
        assert.deepEqual(parseWorkerRequest({ tag: value, v: PROTOCOL_VERSION, baseUrl: BASE, type: 'getState' }, BASE), { kind: 'ignore' }, what);
      }
    });
  });
});

describe('isWorkerReply', () => {
  const ok = { tag: MESSAGE_TAG, v: PROTOCOL_VERSION, ok: true, state: SIGNED_IN, changeId: 'c1' };
  const failed = { tag: MESSAGE_TAG, v: PROTOCOL_VERSION, ok: false, error: { code: 'invalid_grant', message: 'wrong password', status: 400 } };

  it('accepts a success reply, with or without a change id and a warning', () => {
    assert.equal(isWorkerReply(ok), true);
    assert.equal(isWorkerReply({ ...ok, state: GUEST, changeId: null }), true);
    assert.equal(isWorkerReply({ ...ok, warning: { code: 'bad_response', message: 'cart not assigned', status: 422 } }), true);
  });
  it("accepts an earlier release's state, which has no pendingWrites", () => {
    const { pendingWrites: _none, ...earlier } = SIGNED_IN;
    assert.equal(isWorkerReply({ ...ok, state: earlier }), true);
  });
  it('accepts an error reply', () => {
    assert.equal(isWorkerReply(failed), true);
    assert.equal(isWorkerReply({ ...failed, error: { code: 'timeout', message: 'm' } }), true);
  });
  const refused: [what: string, data: unknown][] = [
    ['null', null],
    ['a string', 'ok'],
    ['another tag', { ...ok, tag: 'other' }],
    ['another version', { ...ok, v: PROTOCOL_VERSION + 1 }],
    ['no ok', { tag: MESSAGE_TAG, v: PROTOCOL_VERSION, state: SIGNED_IN }],
    ['ok as a string', { ...ok, ok: 'true' }],
    ['success without a state', { tag: MESSAGE_TAG, v: PROTOCOL_VERSION, ok: true, changeId: null }],
    ['a state without signedIn', { ...ok, state: { accessTokenExpiresAt: null, cart: null } }],
    ['a state with signedIn as a string', { ...ok, state: { ...GUEST, signedIn: 'false' } }],
    ['a state with the expiry as a string', { ...ok, state: { ...SIGNED_IN, accessTokenExpiresAt: '1700000000000' } }],
    ['a state with a numeric cart number', { ...ok, state: { ...SIGNED_IN, cart: { number: 1 } } }],
    ['a state with the cart as a string', { ...ok, state: { ...SIGNED_IN, cart: 'R1' } }],
    ['a state with pendingWrites as a string', { ...ok, state: { ...SIGNED_IN, pendingWrites: '2' } }],
    ['an error without a code', { ...failed, error: { message: 'm' } }],
    ['an error that is a string', { ...failed, error: 'invalid_grant' }],
    ['failure without an error', { tag: MESSAGE_TAG, v: PROTOCOL_VERSION, ok: false }],
  ];
  for (const [what, data] of refused) {
    it(`refuses ${what}`, () => assert.equal(isWorkerReply(data), false));
  }
});

describe('isAnnouncement', () => {
  const change = { tag: MESSAGE_TAG, v: PROTOCOL_VERSION, type: 'change', baseUrl: BASE, id: 'a1', state: SIGNED_IN };

  it('accepts change, sessionexpired and storageunavailable for its base URL', () => {
    assert.equal(isAnnouncement(change, BASE), true);
    assert.equal(isAnnouncement({ ...change, type: 'sessionexpired', state: GUEST }, BASE), true);
    assert.equal(isAnnouncement({ ...change, type: 'storageunavailable', warning: { code: 'storage_unavailable', message: 'm' } }, BASE), true);
    assert.equal(isAnnouncement({ ...change, warning: { code: 'bad_response', message: 'm' } }, BASE), true);
  });
  it('accepts writequeued and writesettled with their detail', () => {
    assert.equal(isAnnouncement({ ...change, type: 'writequeued', write: { id: 'w1', method: 'POST', path: '/api/v2/storefront/cart/add_item' } }, BASE), true);
    for (const outcome of ['applied', 'rejected', 'dropped', 'expired']) {
      assert.equal(isAnnouncement({ ...change, type: 'writesettled', write: { id: 'w1', outcome } }, BASE), true, outcome);
    }
    assert.equal(isAnnouncement({ ...change, type: 'writesettled', write: { id: 'w1', outcome: 'applied', status: 201 } }, BASE), true);
  });
  const refused: [what: string, data: unknown][] = [
    ['another base URL', { ...change, baseUrl: 'https://other.example' }],
    ['no base URL', { ...change, baseUrl: undefined }],
    ['another tag', { ...change, tag: 'x' }],
    ['another version', { ...change, v: 0 }],
    ['another type', { ...change, type: 'login' }],
    ['a request', { ...change, type: 'getState' }],
    ['a type of another case', { ...change, type: 'Change' }],
    ['no id', { ...change, id: undefined }],
    ['a numeric id', { ...change, id: 1 }],
    ['no state', { ...change, state: undefined }],
    ['a malformed state', { ...change, state: { signedIn: true, accessTokenExpiresAt: 'soon', cart: null } }],
    ['a writequeued without its write', { ...change, type: 'writequeued' }],
    ['a writequeued without a path', { ...change, type: 'writequeued', write: { id: 'w1', method: 'POST' } }],
    ['a writequeued with a settled detail', { ...change, type: 'writequeued', write: { id: 'w1', outcome: 'applied' } }],
    ['a writesettled of another outcome', { ...change, type: 'writesettled', write: { id: 'w1', outcome: 'sent' } }],
    ['a writesettled with a status as a string', { ...change, type: 'writesettled', write: { id: 'w1', outcome: 'applied', status: '200' } }],
    ['a writesettled without an id', { ...change, type: 'writesettled', write: { outcome: 'applied' } }],
    ['null', null],
    ['an array', [change]],
  ];
  for (const [what, data] of refused) {
    it(`refuses ${what}`, () => assert.equal(isAnnouncement(data, BASE), false));
  }
});

describe('channelName and isRecord', () => {
  it('names the channel after the base URL', () => {
    assert.equal(channelName(BASE), 'storefront-auth:https://shop.example/store');
    assert.notEqual(channelName('https://shop.example'), channelName(BASE));
  });
  it('isRecord takes plain objects only', () => {
    assert.equal(isRecord({}), true);
    assert.equal(isRecord(Object.create(null)), true);
    for (const value of [null, undefined, [], 'x', 1, true]) assert.equal(isRecord(value), false, String(value));
  });
});
