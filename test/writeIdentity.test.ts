// Whose a queued write is (src/sw/writeIdentity.ts, src/sw/signIn.ts): the cart it was made on and,
// when made signed in, that sign-in, which a login starts, a logout ends and refreshes continue.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NO_CREDENTIALS, readRecord, type Credentials } from '../src/sw/credentialStorage.js';
import { assigningFrom, assignmentEnded, currentSignIn, withCart, withSession } from '../src/sw/signIn.js';
import type { Session } from '../src/sw/tokenResponse.js';
import { belongsTo } from '../src/sw/writeIdentity.js';

const NOW = 1_700_000_000_000;
const session = (n: number): Session => ({ accessToken: `a${n}/x`, refreshToken: `+r${n}`, expiresAt: NOW + 3_600_000, lifetimeMs: 3_600_000, confirmed: true });
const CART = { token: 'order-token', number: 'R100' };
const GUEST: Credentials = { cart: CART, session: null, backoff: null };
const SIGNED_IN: Credentials = { cart: CART, session: session(1), backoff: null, signInId: 'sign-in-1' };
const ids = (...values: string[]) => {
  const queue = [...values];
  return () => queue.shift() ?? assert.fail('no more ids');
};

describe('currentSignIn', () => {
  it('is null for a guest, and the stored id for a signed-in shopper', () => {
    assert.equal(currentSignIn(GUEST), null);
    assert.equal(currentSignIn(NO_CREDENTIALS), null);
    assert.equal(currentSignIn(SIGNED_IN), 'sign-in-1');
  });
  it('names the session an earlier release stored, without an id, apart from any that has one', () => {
    const earlier: Credentials = { cart: CART, session: session(1), backoff: null };
    assert.equal(currentSignIn(earlier), '');
    assert.notEqual(currentSignIn(earlier), currentSignIn(SIGNED_IN));
  });
  it('is null once the session has ended, whatever id was left', () => {
    assert.equal(currentSignIn({ ...SIGNED_IN, session: null }), null);
  });
});

describe('withSession', () => {
  it('starts a sign-in at a login, replacing the one before and ending any back-off', () => {
    const next = withSession({ ...SIGNED_IN, backoff: { attempts: 2, until: NOW } }, session(2), null, ids('sign-in-2'));
    assert.deepEqual(next, { cart: CART, session: session(2), backoff: null, signInId: 'sign-in-2' });
    assert.deepEqual(withSession(GUEST, session(2), null, ids('sign-in-2')), { cart: CART, session: session(2), backoff: null, signInId: 'sign-in-2', cartTakenBy: 'sign-in-2' });
  });
  it('takes a guest’s cart along into the sign-in that starts from it, and into no later one over it', () => {
    const first = withSession(GUEST, session(2), null, ids('sign-in-2'));
    assert.equal(first.cartTakenBy, 'sign-in-2');
    assert.equal(withSession(first, session(3), '+r2', ids()).cartTakenBy, 'sign-in-2', 'a refresh continues it');
    assert.equal(withSession(first, session(3), null, ids('sign-in-3')).cartTakenBy, 'sign-in-2', 'another shopper’s login takes nothing along');
    // Once that sign-in has ended (a refused refresh keeps the cart), the cart is a guest's again:
    // the next login starts from a guest holding it, and takes it along.
    assert.equal(withSession({ ...first, session: null }, session(3), null, ids('sign-in-3')).cartTakenBy, 'sign-in-3', 'a login after that session ended takes it');
    assert.equal('cartTakenBy' in withSession(SIGNED_IN, session(2), null, ids('sign-in-2')), false, 'a signed-in shopper’s cart is no guest’s');
    assert.equal('cartTakenBy' in withSession(NO_CREDENTIALS, session(2), null, ids('sign-in-2')), false, 'no cart, nothing taken');
  });
  it('continues the sign-in when the grant spent the refresh token held (a page’s own refresh)', () => {
    assert.deepEqual(withSession(SIGNED_IN, session(2), '+r1', ids()), { cart: CART, session: session(2), backoff: null, signInId: 'sign-in-1' });
  });
  it('continues an earlier release’s session without giving it an id', () => {
    const earlier: Credentials = { cart: CART, session: session(1), backoff: null };
    const next = withSession(earlier, session(2), '+r1', ids());
    assert.equal('signInId' in next, false);
    assert.equal(currentSignIn(next), currentSignIn(earlier));
  });
  it('starts a sign-in when the grant spent another refresh token, or none was held', () => {
    assert.equal(withSession(SIGNED_IN, session(2), '+r9', ids('sign-in-2')).signInId, 'sign-in-2');
    assert.equal(withSession(GUEST, session(2), '+r1', ids('sign-in-2')).signInId, 'sign-in-2');
  });
});

describe('belongsTo', () => {
  it('carries a guest’s write made after a sign-in ended into the next login from that guest', () => {
    const first = withSession(GUEST, session(1), null, ids('sign-in-1'));
    // The refresh is refused: the session goes, the cart stays (sessionRefresher.ts), stored and read back.
    const ended = readRecord({ ...first, session: null, baseUrl: 'https://shop.example/' });
    const write = { cart: 'R100', signInId: null };
    assert.equal(belongsTo(write, ended), true, 'a guest’s write while a guest');
    const again = withSession(ended, session(2), null, ids('sign-in-2'));
    assert.equal(belongsTo(write, again), true, 'it goes with the login that took the cart along');
    assert.equal(belongsTo(write, withSession(again, session(3), null, ids('sign-in-3'))), false, 'never with a login over that one');
  });

  const guestWrite = { cart: 'R100', signInId: null };
  const signedInWrite = { cart: 'R100', signInId: 'sign-in-1' };
  it('keeps a write on the cart and sign-in it was made under', () => {
    assert.equal(belongsTo(guestWrite, GUEST), true);
    assert.equal(belongsTo(signedInWrite, SIGNED_IN), true);
  });
  it('carries a guest’s write into the sign-in that took the cart along, and into no other', () => {
    const took = withSession(GUEST, session(2), null, ids('sign-in-2'));
    assert.equal(belongsTo(guestWrite, took), true);
    assert.equal(belongsTo(guestWrite, withSession(took, session(3), '+r2', ids())), true, 'refreshed');
    assert.equal(belongsTo(guestWrite, withSession(took, session(3), null, ids('sign-in-3'))), false, 'another shopper signed in after it');
    assert.equal(belongsTo(guestWrite, SIGNED_IN), false, 'a sign-in that took no guest cart');
  });
  it('drops a write whose cart is no longer held, or was replaced', () => {
    assert.equal(belongsTo(guestWrite, NO_CREDENTIALS), false);
    assert.equal(belongsTo(guestWrite, { ...GUEST, cart: { token: 't2', number: 'R200' } }), false);
    assert.equal(belongsTo(signedInWrite, { ...SIGNED_IN, cart: null }), false);
  });
  it('drops a signed-in write once the shopper signed out, or another signed in', () => {
    assert.equal(belongsTo(signedInWrite, GUEST), false);
    assert.equal(belongsTo(signedInWrite, { ...SIGNED_IN, signInId: 'sign-in-2' }), false);
    assert.equal(belongsTo(signedInWrite, { ...SIGNED_IN, session: null }), false, 'a refused refresh ended it');
  });
  it('keeps a write made under an earlier release’s session only while that session lasts', () => {
    const earlier: Credentials = { cart: CART, session: session(1), backoff: null };
    const write = { cart: 'R100', signInId: currentSignIn(earlier) };
    assert.equal(belongsTo(write, earlier), true);
    assert.equal(belongsTo(write, withSession(earlier, session(2), null, ids('sign-in-2'))), false);
  });
});

describe('withCart', () => {
  const NEW_CART = { token: 't2', number: 'R200' };
  it('holds a new cart that no sign-in took along, whatever took the one before', () => {
    const took: Credentials = { ...SIGNED_IN, cartTakenBy: 'sign-in-1' };
    assert.deepEqual(withCart(took, NEW_CART, false), { ...SIGNED_IN, cart: NEW_CART });
    assert.deepEqual(withCart({ ...GUEST, cartTakenBy: 'sign-in-1' }, NEW_CART, true), { ...GUEST, cart: NEW_CART });
  });
  it('has a guest’s cart that lands signed in taken along by that sign-in', () => {
    const next = withCart(SIGNED_IN, NEW_CART, true);
    assert.equal(next.cartTakenBy, 'sign-in-1');
    assert.equal(belongsTo({ cart: 'R200', signInId: null }, next), true);
  });
});

describe('assigningFrom and assignmentEnded', () => {
  const UNTIL = NOW + 10_000;
  it('marks a login that takes a guest’s cart along, and a guest’s cart landing signed in', () => {
    assert.equal(assigningFrom(GUEST, withSession(GUEST, session(2), null, ids('sign-in-2')), UNTIL).cartAssigningUntil, UNTIL);
    const other = { token: 'o/+ther\\"', number: 'R200' };
    assert.equal(assigningFrom(SIGNED_IN, withCart(SIGNED_IN, other, true), UNTIL).cartAssigningUntil, UNTIL);
    // The same sign-in took a cart before: the new one is still to be assigned.
    const took = { ...SIGNED_IN, cartTakenBy: 'sign-in-1' };
    assert.equal(assigningFrom(took, withCart(took, other, true), UNTIL).cartAssigningUntil, UNTIL);
  });
  it('marks nothing taken: a refresh, a login over another sign-in, a cart made signed in, no cart', () => {
    const took = assigningFrom(GUEST, withSession(GUEST, session(2), null, ids('sign-in-2')), UNTIL);
    const ended = assignmentEnded(took, CART, 'sign-in-2');
    assert.equal('cartAssigningUntil' in assigningFrom(ended, withSession(ended, session(3), '+r2', ids()), UNTIL + 1), false, 'a refresh');
    assert.equal('cartAssigningUntil' in assigningFrom(ended, withSession(ended, session(3), null, ids('sign-in-3')), UNTIL + 1), false, 'a login over it');
    assert.equal('cartAssigningUntil' in assigningFrom(SIGNED_IN, withCart(SIGNED_IN, { token: 't', number: 'R300' }, false), UNTIL), false, 'made signed in');
    assert.equal('cartAssigningUntil' in assigningFrom(NO_CREDENTIALS, withSession(NO_CREDENTIALS, session(2), null, ids('sign-in-2')), UNTIL), false, 'no cart');
  });
  it('keeps a mark of an assignment still under way through a refresh; a new cart held ends it', () => {
    const took = assigningFrom(GUEST, withSession(GUEST, session(2), null, ids('sign-in-2')), UNTIL);
    assert.equal(withSession(took, session(3), '+r2', ids()).cartAssigningUntil, UNTIL);
    assert.equal('cartAssigningUntil' in withCart(took, { token: 't', number: 'R300' }, false), false);
  });
  it('is ended for the cart assigned alone', () => {
    const took = assigningFrom(GUEST, withSession(GUEST, session(2), null, ids('sign-in-2')), UNTIL);
    assert.equal(assignmentEnded(took, { token: 'other', number: 'R999' }, 'sign-in-2'), took);
    // Another sign-in's assignment of the same cart ended: this one's is under way still.
    assert.equal(assignmentEnded(took, CART, 'sign-in-1'), took);
    assert.deepEqual(assignmentEnded(took, CART, 'sign-in-2'), { cart: CART, session: session(2), backoff: null, signInId: 'sign-in-2', cartTakenBy: 'sign-in-2' });
  });
});
