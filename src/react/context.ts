/** The store a `StorefrontAuthProvider` hands down to `useStorefrontAuth`. */
import { createContext } from 'react';
import type { AuthStore } from './authStore.js';

/** `null` outside any provider. */
export const StoreContext = createContext<AuthStore | null>(null);
