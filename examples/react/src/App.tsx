import { useState, type FormEvent } from 'react';
import { isStorefrontAuthError } from 'storefront-auth-sw';
import { useStorefrontAuth } from 'storefront-auth-sw/react';

const api = `${import.meta.env.VITE_STOREFRONT_URL}/api/v2/storefront`;

export function App() {
  // `state` is null until the worker answers; it follows every change, in this tab or another.
  const { state, error, login, logout, createCart } = useStorefrontAuth();
  const [output, setOutput] = useState('');

  async function add() {
    // Only once the worker has answered (the button is disabled until then): a cart created while
    // `state` is null would replace the one the worker holds.
    if (state?.cart === null) await createCart(); // a guest cart; its token stays in the worker
    const response = await fetch(`${api}/cart/add_item`, { // carries X-Store-Order-Token
      method: 'POST',
      headers: { 'Content-Type': 'application/vnd.api+json' },
      body: JSON.stringify({ variant_id: '1', quantity: 1 }),
    });
    setOutput(`add_item: ${response.status}`);
  }

  async function signIn(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    try {
      await login({ username: String(form.get('username')), password: String(form.get('password')) });
    } catch (failure) {
      if (isStorefrontAuthError(failure) && failure.code === 'invalid_grant') setOutput('Wrong email or password');
      else throw failure;
    }
  }

  async function account() {
    const response = await fetch(`${api}/account`); // carries the bearer once signed in
    setOutput(`account: ${response.status} ${JSON.stringify(await response.json())}`);
  }

  if (error !== null) return <p role="alert">storefront-auth did not start: {error.message}</p>;
  return (
    <>
      <button id="add" disabled={state === null} onClick={() => void add()}>Add to cart</button>
      <form id="sign-in" onSubmit={(event) => void signIn(event)}>
        <input name="username" autoComplete="username" placeholder="email" />
        <input name="password" type="password" autoComplete="current-password" placeholder="password" />
        <button>Sign in</button>
      </form>
      <button id="account" onClick={() => void account()}>My account</button>
      <button id="logout" onClick={() => void logout()}>Sign out</button>
      <pre id="state">{state === null ? '' : JSON.stringify(state)}</pre>
      <pre id="output">{output}</pre>
    </>
  );
}
