// A StorefrontAuthProvider that unmounts leaves nothing behind: the bridge it registered listens no
// more on `navigator.serviceWorker` (`message`) nor on `window` (`online`), so N mounts (a key change,
// a layout remounting) do not leave N bridges, each sending the worker an `online` message, nor the
// registration's wait for control its `controllerchange` listener. Under
// StrictMode (mount, unmount, mount) one bridge is left listening, and the first state still reaches
// the hook. The provider is rendered with react-dom's client in Node, into a stand-in container (it
// renders no element, so no DOM is needed), over the real bridge and a fake service worker container.
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { act, createElement, StrictMode, useEffect, type ReactElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { MESSAGE_TAG, PROTOCOL_VERSION } from '../src/shared/protocol.js';
import type { AuthState } from '../src/shared/state.js';
import { StorefrontAuthProvider, useStorefrontAuth } from '../src/react/index.js';

const GUEST: AuthState = { signedIn: false, accessTokenExpiresAt: null, cart: null, pendingWrites: 0 };

/** Sets `globalThis[name]` for one test; `afterEach` puts back what was there. */
const restores: (() => void)[] = [];
function stand(name: string, value: unknown): void {
  const before = Object.getOwnPropertyDescriptor(globalThis, name);
  Object.defineProperty(globalThis, name, { value, configurable: true, writable: true });
  restores.push(() => (before === undefined ? delete (globalThis as Record<string, unknown>)[name] : Object.defineProperty(globalThis, name, before)));
}

let container: EventTarget & { register: (url: string) => Promise<unknown> };
let page: EventTarget;
/** The type of every message the worker received. */
let received: string[];
/** How long the worker takes to install and activate, as on a first visit (0: at once). */
let installMs: number;
/** The state the worker answers with. */
let answer: AuthState;

beforeEach(() => {
  received = [];
  installMs = 0;
  answer = GUEST;
  page = new EventTarget();
  // The worker answers every request that brings a port with the guest's state, as the standalone worker would.
  const worker = Object.assign(new EventTarget(), {
    scriptURL: '',
    state: 'activated',
    postMessage: (request: { type: string }, ports?: MessagePort[]) => {
      received.push(request.type);
      ports?.[0]?.postMessage({ tag: MESSAGE_TAG, v: PROTOCOL_VERSION, ok: true, state: answer, changeId: null });
    },
  });
  const fake = Object.assign(new EventTarget(), {
    controller: null as typeof worker | null,
    startMessages: () => {},
    register: async (url: string) => {
      if (installMs > 0) await new Promise((resolve) => setTimeout(resolve, installMs));
      worker.scriptURL = url;
      // The standalone worker claims the page as it activates.
      queueMicrotask(() => {
        fake.controller = worker;
        fake.dispatchEvent(new Event('controllerchange'));
      });
      return { installing: null, waiting: null, active: worker };
    },
  });
  container = fake;
  stand('location', { href: 'https://shop.example/' });
  stand('isSecureContext', true);
  stand('navigator', { serviceWorker: container });
  stand('addEventListener', page.addEventListener.bind(page));
  stand('removeEventListener', page.removeEventListener.bind(page));
  // react-dom's client reads `window.event`, and tells its test renders by this flag.
  stand('window', globalThis);
  stand('IS_REACT_ACT_ENVIRONMENT', true);
});
afterEach(() => {
  for (const restore of restores.splice(0).reverse()) restore();
});

/** A container react-dom accepts: the provider renders no element into it. */
function standInContainer(): Element {
  const view = { document: { activeElement: null, body: null }, HTMLIFrameElement: class {} };
  return { nodeType: 1, tagName: 'DIV', namespaceURI: 'http://www.w3.org/1999/xhtml', addEventListener() {}, ownerDocument: { addEventListener() {}, defaultView: view } } as unknown as Element;
}

/** Every state the hook rendered with. */
let seen: (AuthState | null)[] = [];
function Probe(): ReactElement | null {
  seen.push(useStorefrontAuth().state);
  return null;
}

/** Lets the registration, the worker's replies (a MessageChannel's, a task away) and React's renders run. */
const settle = () => act(() => new Promise<void>((resolve) => setTimeout(resolve, 20)));

/** How many bridges listen: on the container's `message`, on the window's `online`. */
function listening(): { message: number; online: number } {
  return { message: getEventListeners(container, 'message').length, online: getEventListeners(page, 'online').length };
}

/** How many `online` messages the worker gets when the window says the network returned. */
async function onlineMessages(): Promise<number> {
  received = [];
  page.dispatchEvent(new Event('online'));
  await settle();
  return received.filter((type) => type === 'online').length;
}

async function mount(root: Root, key: string, strict = false): Promise<void> {
  const provider = createElement(StorefrontAuthProvider, { key }, createElement(Probe));
  await act(async () => root.render(strict ? createElement(StrictMode, null, provider) : provider));
  await settle();
}

it('under StrictMode: one bridge listening, the first state reaches the hook, and nothing is left once it unmounts', async () => {
  seen = [];
  const root = createRoot(standInContainer());
  await mount(root, 'shop', true);
  assert.deepEqual(seen.at(-1), GUEST);
  assert.deepEqual(listening(), { message: 1, online: 1 });
  assert.equal(await onlineMessages(), 1);

  await act(async () => root.unmount());
  assert.deepEqual(listening(), { message: 0, online: 0 });
  assert.equal(await onlineMessages(), 0);
});

it('a provider mounted anew (its key changed) three times leaves one bridge, and none once unmounted', async () => {
  seen = [];
  const root = createRoot(standInContainer());
  for (const key of ['a', 'b', 'c']) await mount(root, key);
  assert.deepEqual(seen.at(-1), GUEST);
  assert.deepEqual(listening(), { message: 1, online: 1 });
  assert.equal(await onlineMessages(), 1);

  await act(async () => root.unmount());
  assert.deepEqual(listening(), { message: 0, online: 0 });
  assert.equal(await onlineMessages(), 0);
});

it('mounted three times and unmounted (and under StrictMode), no controllerchange listener is left on navigator.serviceWorker', async () => {
  seen = [];
  const root = createRoot(standInContainer());
  for (const key of ['a', 'b', 'c']) await mount(root, key);
  assert.deepEqual(seen.at(-1), GUEST);
  await act(async () => root.unmount());
  assert.deepEqual(listening(), { message: 0, online: 0 });
  assert.equal(getEventListeners(container, 'controllerchange').length, 0, 'controllerchange listeners left after three mounts and an unmount');

  const strict = createRoot(standInContainer());
  await mount(strict, 'shop', true);
  await act(async () => strict.unmount());
  assert.equal(getEventListeners(container, 'controllerchange').length, 0, 'controllerchange listeners left after a StrictMode mount and unmount');
});

it('a provider unmounted while its bridge still waits for control leaves no listener once the wait ends: control came, or the script answered 404', async () => {
  // The script slow to arrive: the released bridges still get ready when the worker takes control
  // (a method called after unmounting still answers), and their waits then listen no more.
  const urls: string[] = [];
  container.register = (url) => (urls.push(url), new Promise(() => {}));
  const root = createRoot(standInContainer());
  for (const key of ['a', 'b', 'c']) await mount(root, key);
  await act(async () => root.unmount());
  assert.deepEqual(listening(), { message: 0, online: 0 });
  Object.assign(container, { controller: { scriptURL: urls[0] } });
  container.dispatchEvent(new Event('controllerchange'));
  assert.equal(getEventListeners(container, 'controllerchange').length, 0, 'controllerchange listeners left once control came');

  // The script answered 404: each failed wait removes its listener.
  Object.assign(container, { controller: null });
  container.register = (url) => Promise.reject(new TypeError(`A bad HTTP response code (404) was received when fetching the script ${url}.`));
  const failed = createRoot(standInContainer());
  for (const key of ['a', 'b', 'c']) await mount(failed, key);
  await act(async () => failed.unmount());
  assert.deepEqual(listening(), { message: 0, online: 0 });
  assert.equal(getEventListeners(container, 'controllerchange').length, 0, 'controllerchange listeners left by failed waits');
});

// A method called on a bridge released before the worker controlled the page still answers once it
// does: releasing is no failed registration ("reject with `no_service_worker` where registration
// failed"; d56881d had a release reject the bridge's wait). A first visit, where the worker installs
// for a moment, shows it.
describe('a bridge released while the worker installs', () => {
  beforeEach(() => {
    installMs = 50;
    answer = { ...GUEST, cart: { number: 'R7' } };
  });

  it('under StrictMode, a child that creates a cart on mount gets its answer, not no_service_worker', async () => {
    const outcomes: string[] = [];
    function EnsureCart(): ReactElement | null {
      const { createCart, error } = useStorefrontAuth();
      useEffect(() => {
        createCart().then((state) => outcomes.push(`answered ${state.cart?.number}`), (e: Error & { code?: string }) => outcomes.push(`${e.code}: ${e.message}`));
      }, [createCart]);
      if (error !== null) outcomes.push(`hook error: ${error.message}`);
      return null;
    }
    const root = createRoot(standInContainer());
    await act(async () => root.render(createElement(StrictMode, null, createElement(StorefrontAuthProvider, null, createElement(EnsureCart)))));
    await act(() => new Promise<void>((resolve) => setTimeout(resolve, 150)));
    assert.ok(outcomes.length > 0, 'no outcome');
    assert.deepEqual(outcomes.filter((o) => !o.startsWith('answered')), [], `createCart under StrictMode: ${JSON.stringify(outcomes)}`);
    await act(async () => root.unmount());
  });

  it('a method called before control, then the provider unmounts: it still answers through the released bridge', async () => {
    let grab: ((c: () => Promise<AuthState>) => void) | null = null;
    const got = new Promise<() => Promise<AuthState>>((resolve) => (grab = resolve));
    function Grab(): ReactElement | null {
      const { createCart } = useStorefrontAuth();
      grab?.(createCart);
      return null;
    }
    const root = createRoot(standInContainer());
    await act(async () => root.render(createElement(StorefrontAuthProvider, null, createElement(Grab))));
    const createCart = await got;
    // The shopper's click, while the worker still installs; then the layout holding the provider unmounts.
    const call = createCart().then((state) => `answered ${state.cart?.number}`, (e: Error & { code?: string }) => `${e.code}: ${e.message}`);
    await act(async () => root.unmount());
    await act(() => new Promise<void>((resolve) => setTimeout(resolve, 150)));
    assert.equal(await call, 'answered R7');
    assert.ok(received.includes('createCart'), `the worker received: ${JSON.stringify(received)}`);
  });
});
