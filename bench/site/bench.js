// Page side of scripts/bench.mjs. Every timing is taken here with performance.now(), from just
// before fetch() to the end of the response body, so the driver's round trips are never counted.
window.bench = {
  /** `count` requests one after another; the duration of each, in ms. Throws on an unexpected status. */
  async sequential(count, url, init, expected) {
    const times = [];
    for (let i = 0; i < count; i++) {
      const start = performance.now();
      const response = await fetch(url, init);
      await response.arrayBuffer();
      times.push(performance.now() - start);
      if (response.status !== expected) throw new Error(`${url} answered ${response.status}, expected ${expected}`);
    }
    return times;
  },

  /**
   * `count` requests one after another, each read chunk by chunk: when its first chunk of body
   * came (time to first byte) and when its body ended (time to last byte), in ms from fetch().
   */
  async firstAndLast(count, url, init, expected) {
    const times = [];
    for (let i = 0; i < count; i++) {
      const start = performance.now();
      const response = await fetch(url, init);
      const reader = response.body.getReader();
      let first;
      for (let done = false; !done; ) {
        done = (await reader.read()).done;
        first ??= performance.now() - start;
      }
      times.push({ first, last: performance.now() - start });
      if (response.status !== expected) throw new Error(`${url} answered ${response.status}, expected ${expected}`);
    }
    return times;
  },

  /** `total` requests with `inFlight` of them outstanding at any time; the elapsed ms. */
  async parallel(total, inFlight, url, init, expected) {
    let next = 0;
    let wrong = 0;
    const lane = async () => {
      while (next < total) {
        next++;
        const response = await fetch(url, init);
        await response.arrayBuffer();
        if (response.status !== expected) wrong++;
      }
    };
    const start = performance.now();
    await Promise.all(Array.from({ length: inFlight }, lane));
    const elapsed = performance.now() - start;
    if (wrong > 0) throw new Error(`${wrong} of ${total} requests to ${url} did not answer ${expected}`);
    return elapsed;
  },

  /** Registers the pass-through worker and waits until it controls this page. */
  registerPassThrough() {
    return this.registerWorker('/passthrough-sw.js');
  },

  /** Registers the worker at `url` (one of the bench's own: pass-through, the floors) and waits until it controls this page. */
  async registerWorker(url) {
    await navigator.serviceWorker.register(url, { scope: '/' });
    await this.controlled();
  },

  /** Loads the drop-in with the given data attributes and waits for `storefrontAuth.ready`. */
  async loadDropIn(attributes) {
    const script = document.createElement('script');
    script.src = '/storefront-auth.js';
    Object.assign(script.dataset, attributes);
    const loaded = new Promise((resolve, reject) => {
      script.onload = resolve;
      script.onerror = reject;
    });
    document.head.append(script);
    await loaded;
    await window.storefrontAuth.ready;
  },

  /** Resolves once a worker controls the page. */
  controlled() {
    if (navigator.serviceWorker.controller) return Promise.resolve();
    return new Promise((resolve) => navigator.serviceWorker.addEventListener('controllerchange', () => resolve(), { once: true }));
  },

  /** Creates a cart with the page's own request and returns its order token (contexts a and b). */
  async ownCart() {
    const response = await fetch('/api/v2/storefront/cart?fields[cart]=number,token', { method: 'POST' });
    return (await response.json()).data.attributes.token;
  },

  /**
   * Spree 5's Store API: creates a cart with the page's own request (`key`, the publishable key) and
   * returns its cart call's `{ url, init }`, as a page without storefront-auth sends it.
   */
  async ownV3Cart(key) {
    const response = await fetch('/api/v3/store/carts', { method: 'POST', headers: { 'X-Spree-Api-Key': key } });
    if (response.status !== 201) throw new Error(`cart creation answered ${response.status}`);
    const { id, token } = await response.json();
    return { url: `/api/v3/store/carts/${id}`, init: { headers: { 'X-Spree-Api-Key': key, 'x-spree-token': token } } };
  },

  /** The password grant sent by the page itself, where no worker captures it; the pair. */
  async ownPasswordGrant(username, password) {
    const response = await fetch('/store_oauth/token', { method: 'POST', body: new URLSearchParams({ grant_type: 'password', username, password }) });
    if (response.status !== 200) throw new Error(`password grant answered ${response.status}`);
    return response.json();
  },

  /**
   * Times `count` refresh grants sent by the page itself (no worker): the refresh round trip.
   * Returns the times and the last pair, whose access token the next request may use.
   */
  async refreshRoundTrips(count, refreshToken) {
    const times = [];
    let pair = { refresh_token: refreshToken };
    for (let i = 0; i < count; i++) {
      const start = performance.now();
      const response = await fetch('/store_oauth/token', { method: 'POST', body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: pair.refresh_token }) });
      const body = await response.json();
      times.push(performance.now() - start);
      if (response.status !== 200) throw new Error(`refresh grant answered ${response.status}`);
      pair = body;
    }
    return { times, pair };
  },

  /**
   * Arms this tab for the storm: on the `bench-storm` broadcast it fires one request (`fetch(url,
   * init)`). The result
   * (wall-clock start and end in ms, status) is `window.stormResult`, a promise.
   */
  armStorm(url, init) {
    const channel = new BroadcastChannel('bench-storm');
    window.stormResult = new Promise((resolve) => {
      channel.onmessage = async () => {
        channel.close();
        const start = performance.timeOrigin + performance.now();
        const response = await fetch(url, init);
        await response.arrayBuffer();
        resolve({ start, end: performance.timeOrigin + performance.now(), status: response.status });
      };
    });
  },

  /** Starts the storm in every armed tab of the origin (this one too, if armed). */
  fireStorm() {
    // Left open: closing it at once could drop the message before it is delivered.
    window.stormTrigger ??= new BroadcastChannel('bench-storm');
    window.stormTrigger.postMessage('go');
  },
};
