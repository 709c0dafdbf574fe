/**
 * `<StorefrontAuthProvider options={…}>`: registers the worker with `StorefrontAuth.register(options)`
 * once, from an effect, so only in a browser: rendering on a server touches no browser API and
 * renders the children, whose `useStorefrontAuth()` then reads `state: null`.
 */
import { createElement, useEffect, useState, type ReactElement, type ReactNode } from 'react';
import type { BridgeOptions } from '../page/index.js';
import { AuthStore } from './authStore.js';
import { StoreContext } from './context.js';

/** The provider's props. */
export interface StorefrontAuthProviderProps {
  /** `StorefrontAuth.register`'s options, read once: the worker is registered with the first ones. */
  options?: BridgeOptions;
  children?: ReactNode;
}

/** Registers the worker once and gives the components below it `useStorefrontAuth()`. */
export function StorefrontAuthProvider({ options, children }: StorefrontAuthProviderProps): ReactElement {
  const [store] = useState(() => new AuthStore(options));
  useEffect(() => {
    // A registration that fails is the snapshot's `error`; the methods reject with it.
    store.start().catch(() => {});
    // Unmounted, it leaves no bridge listening on the page.
    return () => store.stop();
  }, [store]);
  return createElement(StoreContext.Provider, { value: store }, children);
}
