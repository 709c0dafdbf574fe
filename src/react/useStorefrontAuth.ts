/**
 * `useStorefrontAuth()`: the state, the registration's error and the bridge's methods, read through
 * `useSyncExternalStore`, so every component sees the same state in the same render, and a server
 * render (or hydration) sees `state: null`.
 */
import { useContext, useMemo, useSyncExternalStore } from 'react';
import type { AuthState, StorefrontAuthError } from '../page/index.js';
import type { AuthActions } from './authStore.js';
import { StoreContext } from './context.js';

/** What `useStorefrontAuth()` returns. */
export interface StorefrontAuthValue extends AuthActions {
  /** The current state; `null` until it is known (and always while rendering on a server). */
  state: AuthState | null;
  /** The `StorefrontAuthError` that registration met, else `null`; the methods then reject with `no_service_worker`. */
  error: StorefrontAuthError | null;
}

/** The storefront-auth state and methods of the nearest `StorefrontAuthProvider`. */
export function useStorefrontAuth(): StorefrontAuthValue {
  const store = useContext(StoreContext);
  if (store === null) throw new Error('useStorefrontAuth() needs a <StorefrontAuthProvider> above it.');
  const { state, error } = useSyncExternalStore(store.subscribe, store.getSnapshot, store.getServerSnapshot);
  return useMemo(() => ({ state, error, login: store.login, logout: store.logout, createCart: store.createCart }), [state, error, store]);
}
