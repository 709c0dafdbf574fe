import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { StorefrontAuthProvider } from 'storefront-auth-sw/react';
import { App } from './App';

// Registers /storefront-auth-sw.js (copied to public/ by copy-worker.mjs) once, for the whole app.
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <StorefrontAuthProvider options={{ baseUrl: import.meta.env.VITE_STOREFRONT_URL }}>
      <App />
    </StorefrontAuthProvider>
  </StrictMode>,
);
