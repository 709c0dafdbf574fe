// The refresh storm: 10 tabs signed in with a short-lived token fire at once after it expired, so
// every tab's worker sees it due at the same moment; beside two controls without a refresh (the same
// burst with a fresh token, and through the bare pass-through worker) and a reference round trip.
import { CART, evaluate, openContext, sequential, sleep } from './browser.mjs';
import { median } from './stats.mjs';

/**
 * 10 tabs of one context, signed in with a short-lived token; once it has expired, every tab fires
 * one cart request at the same broadcast. Measured: from the first request's start to the last
 * answer. Reference: one refresh round trip plus one request round trip, each the median of a few
 * sent by a page without a worker (so no worker logic is in the reference) on the same server.
 */
export async function runStorm(browser, server, config, dropIn) {
  const url = `${server.url}/bench.html`;
  const context = await browser.newContext();
  const tabs = [];
  for (let i = 0; i < config.stormTabs; i++) {
    const tab = await context.newPage();
    await tab.goto(url);
    if (i === 0) {
      await evaluate(tab, (attributes) => window.bench.loadDropIn(attributes), dropIn);
      await evaluate(tab, (user) => window.storefrontAuth.login(user), server.user);
      await evaluate(tab, () => window.storefrontAuth.createCart());
    } else {
      await evaluate(tab, () => window.bench.controlled());
    }
    await sequential(tab, 2, {}, 200);
    tabs.push(tab);
  }
  // The floor: the same burst from 10 tabs of a context with the bare pass-through worker, the page
  // sending its own order token; what any worker on this machine needs for 10 requests at once.
  const passThrough = await browser.newContext();
  const passThroughTabs = [];
  for (let i = 0; i < config.stormTabs; i++) {
    const tab = await passThrough.newPage();
    await tab.goto(url);
    await evaluate(tab, () => (navigator.serviceWorker.controller ? undefined : window.bench.registerPassThrough()));
    passThroughTabs.push(tab);
  }
  const passThroughInit = { headers: { 'X-Store-Order-Token': await evaluate(passThroughTabs[0], () => window.bench.ownCart()) } };

  const reference = await openContext(browser, url);
  // Warm-up: the first broadcast to fresh tabs is slower than any later one.
  await burst(tabs);
  await burst(passThroughTabs, passThroughInit);
  const rounds = [];
  const refreshTimes = [];
  const requestTimes = [];
  for (let r = 0; r < config.stormRounds; r++) {
    // A pair of the reference page's own, refreshed a few times, then its bearer used a few times.
    const grant = await evaluate(reference.page, (user) => window.bench.ownPasswordGrant(user.username, user.password), server.user);
    const { times, pair } = await evaluate(reference.page, ({ count, token }) => window.bench.refreshRoundTrips(count, token), { count: config.referenceSamples, token: grant.refresh_token });
    refreshTimes.push(...times);
    requestTimes.push(...(await sequential(reference.page, config.referenceSamples, { headers: { Authorization: `Bearer ${pair.access_token}` } })));

    const state = await evaluate(tabs[0], () => window.storefrontAuth.getState());
    const wait = state.accessTokenExpiresAt - Date.now() + 100;
    if (wait > 0) await sleep(wait);
    const before = server.stats();
    const stormed = await burst(tabs);
    const after = server.stats();
    // The control: at once, while the fresh token has seconds left, the same 10-tab burst, which
    // needs no refresh; what the storm takes beyond it is what the refresh costs.
    const control = await burst(tabs);
    const afterControl = server.stats();
    const floor = await burst(passThroughTabs, passThroughInit);
    rounds.push({
      ...stormed,
      refreshGrants: after.refreshGrants - before.refreshGrants,
      invalidGrants: after.invalidGrants - before.invalidGrants,
      controlMs: control.ms,
      controlPhases: control.phases,
      controlRefreshGrants: afterControl.refreshGrants - after.refreshGrants,
      passThroughBurstMs: floor.ms,
    });
  }

  /** Every tab fires one cart request on one broadcast; from the first start to the last answer. */
  async function burst(tabs, init = {}) {
    const logged = server.requests.length;
    await Promise.all(tabs.map((tab) => evaluate(tab, ({ url, init }) => window.bench.armStorm(url, init), { url: CART, init })));
    await evaluate(tabs[0], () => window.bench.fireStorm());
    const answers = await Promise.all(tabs.map((tab) => evaluate(tab, () => window.stormResult)));
    const first = Math.min(...answers.map((answer) => answer.start));
    return {
      ms: Math.max(...answers.map((answer) => answer.end)) - first,
      startSpreadMs: Math.max(...answers.map((answer) => answer.start)) - first,
      statuses: answers.map((answer) => answer.status),
      answersMs: answers.map((answer) => Math.round(answer.end - first)).sort((x, y) => x - y),
      // When the server received each request, in ms after the first tab's request started.
      serverTimeline: server.requests.slice(logged).map((request) => `${request.method} ${request.path} +${Math.round(request.at - first)}`),
      phases: phasesOf(server.requests.slice(logged), first),
    };
  }
  await reference.context.close();
  await passThrough.close();
  await context.close();
  const stormTimes = rounds.map((round) => round.ms);
  return {
    tabs: config.stormTabs,
    accessTokenLifetimeS: config.stormLifetime,
    rounds,
    summary: {
      median: median(stormTimes),
      max: Math.max(...stormTimes),
      controlMedian: median(rounds.map((round) => round.controlMs)),
      passThroughBurstMedian: median(rounds.map((round) => round.passThroughBurstMs)),
      /** Per round, the storm minus its control burst: the refresh's share. */
      overControlMedian: median(rounds.map((round) => round.ms - round.controlMs)),
      phases: phaseMedians(rounds),
    },
    reference: { refreshMedian: median(refreshTimes), requestMedian: median(requestTimes), samples: refreshTimes.length },
  };
}


/**
 * Where a burst's time goes, as the server saw it, in ms after the first tab's request started:
 * when the refresh grant arrived and was answered (storm only), when the first cart request
 * arrived (after the grant, in a storm), and when the last cart request was answered. The storm's
 * profile: what comes before the grant is the lock and the storage re-read, what comes between
 * the grant's answer and the first cart request is reading it, storing the pair and announcing it.
 */
export function phasesOf(requests, first) {
  const at = (time) => (time === undefined ? null : Math.round((time - first) * 10) / 10);
  const grant = requests.find((request) => request.method === 'POST' && request.path.endsWith('/token'));
  const carts = requests.filter((request) => request.method === 'GET' && request.path === CART);
  const answered = carts.map((request) => request.answeredAt).filter((time) => time !== undefined);
  return {
    grantArrived: at(grant?.at),
    grantAnswered: at(grant?.answeredAt),
    firstCartArrived: at(carts[0]?.at),
    lastCartAnswered: answered.length === 0 ? null : at(Math.max(...answered)),
  };
}

/** The medians of the storm's phases and of its control's, over the rounds. */
function phaseMedians(rounds) {
  const of = (pick) => {
    const values = rounds.map(pick).filter((value) => value !== null);
    return values.length === 0 ? null : median(values);
  };
  return {
    grantArrived: of((round) => round.phases.grantArrived),
    grantAnswered: of((round) => round.phases.grantAnswered),
    firstCartArrived: of((round) => round.phases.firstCartArrived),
    lastCartAnswered: of((round) => round.phases.lastCartAnswered),
    controlFirstCartArrived: of((round) => round.controlPhases.firstCartArrived),
    controlLastCartAnswered: of((round) => round.controlPhases.lastCartAnswered),
  };
}

/** Milliseconds to one decimal, or a dash for a phase a burst did not have. */
export const formatMs = (value) => (value === null || Number.isNaN(value) ? '–' : value.toFixed(1));

/** The storm's timeline medians as sentences, for the report and `npm run bench:storm`. */
export function describePhases(storm) {
  const m = storm.summary.phases;
  const f = formatMs;
  return [
    `Where the storm's time goes, medians in ms after the first tab's request started, as the server saw it:`,
    `before the refresh grant arrived ${f(m.grantArrived)} (the control burst's first request arrived at ${f(m.controlFirstCartArrived)});`,
    `the grant at the server ${f(m.grantAnswered - m.grantArrived)}; from its answer to the first cart request ${f(m.firstCartArrived - m.grantAnswered)};`,
    `from the first cart request to the last answer ${f(m.lastCartAnswered - m.firstCartArrived)} (the control's ${f(m.controlLastCartAnswered - m.controlFirstCartArrived)}).`,
  ];
}
