// docs/behaviour.md ("React"): "A method called after unmounting still answers, through the released
// bridge. StrictMode's mount, unmount and mount registers a second bridge"; the methods "reject with
// `no_service_worker` where registration failed". Releasing a bridge (the provider unmounting) is no
// failed registration: a method called on it before the worker controlled the page still answers
// once control comes (d56881d had a release reject the bridge's wait). A first visit (the worker
// installs for a moment) shows it: a child's mount effect (run before the provider's) calling
// createCart() under StrictMode got no_service_worker twice.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, it } from 'node:test';
import { act, createElement, StrictMode, useEffect, type ReactElement } from 'react';
import { createRoot } from 'react-dom/client';
import { MESSAGE_TAG, PROTOCOL_VERSION } from '../src/shared/protocol.js';
import type { AuthState } from '../src/shared/state.js';
import { StorefrontAuthProvider, useStorefrontAuth } from '../src/react/index.js';

const CART: AuthState = { signedIn: false, accessTokenExpiresAt: null, cart: { number: 'R7' }, pendingWrites: 0 } as AuthState;

const restores: (() => void)[] = [];
function stand(name: string, value: unknown): void {
  const before = Object.getOwnPropertyDescriptor(globalThis, name);
  Object.defineProperty(globalThis, name, { value, configurable: true, writable: true });
  restores.push(() => (before === undefined ? delete (globalThis as Record<string, unknown>)[name] : Object.defineProperty(globalThis, name, before)));
}

let received: string[];
beforeEach(() => {
  received = [];
  const page = new EventTarget();
  const worker = Object.assign(new EventTarget(), {
    scriptURL: '',
    state: 'activated',
    postMessage: (request: { type: string }, ports?: MessagePort[]) => {
      received.push(request.type);
      ports?.[0]?.postMessage({ tag: MESSAGE_TAG, v: PROTOCOL_VERSION, ok: true, state: CART, changeId: null });
    },
  });
  const fake = Object.assign(new EventTarget(), {
    controller: null as typeof worker | null,
    startMessages: () => {},
    // A first visit: the worker installs and activates for 50 ms, then claims the page.
    register: (url: string) => new Promise((resolve) => setTimeout(() => {
      worker.scriptURL = url;
      resolve({ installing: null, waiting: null, active: worker });
      queueMicrotask(() => {
        fake.controller = worker;
        fake.dispatchEvent(new Event('controllerchange'));
      });
    }, 50)),
  });
  stand('location', { href: 'https://shop.example/' });
  stand('isSecureContext', true);
  stand('navigator', { serviceWorker: fake });
  stand('addEventListener', page.addEventListener.bind(page));
  stand('removeEventListener', page.removeEventListener.bind(page));
  stand('window', globalThis);
  stand('IS_REACT_ACT_ENVIRONMENT', true);
});
afterEach(() => {
  for (const restore of restores.splice(0).reverse()) restore();
});

function standInContainer(): Element {
  const view = { document: { activeElement: null, body: null }, HTMLIFrameElement: class {} };
  return { nodeType: 1, tagName: 'DIV', namespaceURI: 'http://www.w3.org/1999/xhtml', addEventListener() {}, ownerDocument: { addEventListener() {}, defaultView: view } } as unknown as Element;
}
const settle = () => act(() => new Promise<void>((resolve) => setTimeout(resolve, 150)));

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
  await settle();
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
  await settle();
  assert.equal(await call, 'answered R7', 'docs/behaviour.md: a method called after unmounting still answers, through the released bridge');
  assert.ok(received.includes('createCart'), `the worker received: ${JSON.stringify(received)}`);
});
