// Time to playable on a phone profile (run by `make bench`; nothing here asserts).
//
// A player cannot type until the game's wasm has arrived and mounted the game: the
// frame Lighthouse scores paints before that. Measured here, on the phone profile
// docs/performance.md names: 150 ms round trip, 1.6 Mbit/s down, 750 kbit/s up
// (Chromium's network emulation) and the CPU slowed 4× (its CPU throttling), from the
// navigation's start to the first moment the typing field is enabled under a prompt.
//  - first visit: a fresh profile, nothing cached, no service worker;
//  - repeat visit: the same profile reloaded once its service worker controls it.
// Also the bytes the first visit transferred by then (encoded, headers included), file
// by file, and what the same bytes alone cost at that bandwidth and round trip.
//
//   node scripts/bench-playable.mjs [dist ...]   # default: dist/
//
// Several builds are measured side by side: each round visits every build in turn, so
// a slow spell of the machine falls on all of them. ROUNDS (default 3) rounds.
//
// BLOCKING=1 also traces each first visit until 3 s after playable and reports its
// total blocking time from the first contentful paint (each main-thread task counts
// what it ran over 50 ms, as Lighthouse counts it), the part before playable, and the
// longest task. Tracing slows the page: compare those visits' times only with each other.
import { resolve } from 'node:path';
import { DIST, launchBrowser, startServer } from '../tests/e2e/harness.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const PROFILE = { latency: 150, download: 1.6e6 / 8, upload: 750e3 / 8, cpu: 4 };
// The budgets (docs/performance.md): the bytes by the first keystroke, and time to
// playable against what those bytes alone cost.
const BUDGET = { bytes: 200_000, ratio: 1.3 };
const BLOCKING = process.env.BLOCKING === '1';
const BLOCKING_TAIL_MS = 3_000;
const dists = process.argv.length > 2 ? process.argv.slice(2).map((d) => resolve(d)) : [DIST];

/**
 * Installed before the page's scripts: stamps, on the page's clock (0 = navigation
 * start), the first mutation after which the typing field is enabled under a prompt.
 */
function watchPlayable() {
  const playable = () =>
    document.querySelector('[data-testid="input"]:not([disabled])') &&
    document.querySelector('[data-testid="prompt"] .ch');
  const observer = new MutationObserver(() => {
    if (window.__playableAt === undefined && playable()) {
      window.__playableAt = performance.now();
      observer.disconnect();
    }
  });
  observer.observe(document, { childList: true, subtree: true, attributes: true });
}

/**
 * Emulates the phone profile on `page` and records each file it transfers: its path,
 * its bytes, and when it finished, in seconds on the browser's monotonic clock, with
 * the navigation's document request as the start.
 */
async function phone(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: PROFILE.latency,
    downloadThroughput: PROFILE.download,
    uploadThroughput: PROFILE.upload,
  });
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: PROFILE.cpu });
  const transfers = { cdp, start: undefined, files: [] };
  const urls = new Map();
  cdp.on('Network.requestWillBeSent', (event) => {
    urls.set(event.requestId, event.request.url);
    if (event.type === 'Document' && transfers.start === undefined) transfers.start = event.timestamp;
  });
  cdp.on('Network.loadingFinished', (event) => {
    const path = new URL(urls.get(event.requestId)).pathname;
    transfers.files.push({ path, bytes: event.encodedDataLength, finished: event.timestamp });
  });
  return transfers;
}

/**
 * Polls `expression` in the page every 50 ms (for at most two minutes) until it is
 * neither undefined nor false, and returns its value. Through the DevTools protocol, not
 * Playwright's `waitForFunction`: that one evaluates Playwright's own injected script in
 * the page, ~170 ms of the main thread at this CPU slowdown, while the page loads.
 */
async function poll(cdp, expression) {
  for (let tries = 0; tries < 2400; tries++) {
    const { result } = await cdp.send('Runtime.evaluate', { expression, returnByValue: true });
    if (result.value !== undefined && result.value !== false) return result.value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`still not true after two minutes: ${expression}`);
}

/**
 * Navigates (or reloads) and returns the page's playable time and the files that had
 * finished by then. The page's clock starts at the navigation; the document's request
 * is sent at most a few milliseconds later, so a file that finished that moment after
 * playable may count as before it, never the reverse. What is fetched once the game
 * is drawn (the on-demand styles, the result's module) is a round trip later still.
 */
async function visit(page, transfers, url) {
  transfers.start = undefined;
  transfers.files = [];
  if (url) await page.goto(url, { waitUntil: 'commit' });
  else await page.reload({ waitUntil: 'commit' });
  const at = await poll(transfers.cdp, 'window.__playableAt');
  const files = transfers.files.filter((file) => (file.finished - transfers.start) * 1000 <= at);
  const bytes = files.reduce((sum, file) => sum + file.bytes, 0);
  return { at, bytes, requests: files.length, files };
}

/** Runs `during` with the page traced; returns its result and the trace's events. */
async function traced(cdp, during) {
  const events = [];
  const collect = (event) => events.push(...event.value);
  cdp.on('Tracing.dataCollected', collect);
  const complete = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.start', {
    categories: 'devtools.timeline,disabled-by-default-devtools.timeline,loading,toplevel,blink.user_timing',
    transferMode: 'ReportEvents',
  });
  const result = await during();
  await cdp.send('Tracing.end');
  await complete;
  cdp.off('Tracing.dataCollected', collect);
  return { result, events };
}

/**
 * The traced visit's total blocking time from the first contentful paint, the part of
 * it in tasks that started before `playableAt` (ms on the page's clock), and its
 * longest main-thread task, in ms.
 */
function blockingTime(events, playableAt) {
  const navigation = events.find(
    (e) =>
      e.name === 'navigationStart' &&
      e.args?.data?.isLoadingMainFrame &&
      e.args.data.documentLoaderURL?.startsWith('http'),
  );
  const paint = events.find((e) => e.name === 'firstContentfulPaint' && e.pid === navigation.pid);
  const tasks = events
    .filter(
      (e) =>
        e.pid === navigation.pid &&
        e.tid === navigation.tid &&
        e.ph === 'X' &&
        (e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask') &&
        e.ts >= paint.ts,
    )
    .sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  // The two names nest for one task: only the outermost counts.
  const outermost = [];
  for (const task of tasks) {
    const last = outermost.at(-1);
    if (!last || task.ts >= last.ts + last.dur) outermost.push(task);
  }
  const over = (task) => Math.max(0, task.dur / 1000 - 50);
  const sum = (xs) => xs.reduce((total, x) => total + x, 0);
  const beforePlayable = (task) => (task.ts - navigation.ts) / 1000 < playableAt;
  return {
    total: sum(outermost.map(over)),
    beforePlayable: sum(outermost.filter(beforePlayable).map(over)),
    longest: Math.max(0, ...outermost.map((task) => task.dur / 1000)),
  };
}

/** A first visit, traced until BLOCKING_TAIL_MS after playable when BLOCKING is set. */
async function firstVisit(page, transfers, url) {
  if (!BLOCKING) return visit(page, transfers, url);
  const { result, events } = await traced(transfers.cdp, async () => {
    const visited = await visit(page, transfers, url);
    await new Promise((resolve) => setTimeout(resolve, BLOCKING_TAIL_MS));
    return visited;
  });
  return { ...result, blocking: blockingTime(events, result.at) };
}

/**
 * What `bytes` cost alone on the profile's network: their transfer at its bandwidth
 * plus a round trip for each step of the request chain (the HTML, then the script,
 * then the wasm and the texts).
 */
const bytesAlone = (bytes) => (bytes / PROFILE.download) * 1000 + 3 * PROFILE.latency;

const browser = await launchBrowser();
const servers = [];
try {
  for (const dist of dists) servers.push(await startServer({ dist }));
  const results = dists.map(() => ({ first: [], repeat: [] }));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, server] of servers.entries()) {
      const context = await browser.newContext();
      await context.addInitScript(watchPlayable);
      const page = await context.newPage();
      const transfers = await phone(page);
      results[i].first.push(await firstVisit(page, transfers, server.origin + '/'));
      await poll(transfers.cdp, 'navigator.serviceWorker.controller !== null');
      results[i].repeat.push(await visit(page, transfers));
      await context.close();
    }
  }
  const ms = (xs) => xs.map((x) => x.toFixed(0)).join(', ');
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(
    `== time to playable: ${ROUNDS} rounds, headless Chromium, loopback server, ` +
      `${PROFILE.latency} ms RTT, ${(PROFILE.download * 8) / 1e6} Mbit/s down, CPU ${PROFILE.cpu}× slower`,
  );
  for (const [i, dist] of dists.entries()) {
    const { first, repeat } = results[i];
    const bytes = median(first.map((r) => r.bytes));
    const firstAt = first.map((r) => r.at);
    const ratio = median(firstAt) / bytesAlone(bytes);
    console.log(dist);
    console.log(`  first visit:   ${ms(firstAt)} ms (median ${median(firstAt).toFixed(0)})`);
    console.log(`  repeat visit:  ${ms(repeat.map((r) => r.at))} ms`);
    console.log(
      `  first visit transferred ${(bytes / 1024).toFixed(1)} KiB in ${median(first.map((r) => r.requests))} requests by then; ` +
        `those bytes alone: ${bytesAlone(bytes).toFixed(0)} ms; ` +
        `time to playable / bytes alone = ${ratio.toFixed(2)}`,
    );
    const verdict = (within) => (within ? 'within' : 'OVER');
    console.log(
      `  budget: bytes ${bytes} B (≤ ${BUDGET.bytes}: ${verdict(bytes <= BUDGET.bytes)}); ` +
        `ratio ${ratio.toFixed(2)} (≤ ${BUDGET.ratio}: ${verdict(ratio <= BUDGET.ratio)})`,
    );
    if (BLOCKING) {
      const blocking = first.map((visited) => visited.blocking);
      console.log(
        `  blocking time (traced, from the first paint to ${BLOCKING_TAIL_MS / 1000} s after playable): ` +
          `median ${median(blocking.map((b) => b.total)).toFixed(0)} ms [${ms(blocking.map((b) => b.total))}], ` +
          `before playable ${median(blocking.map((b) => b.beforePlayable)).toFixed(0)} ms, ` +
          `longest task ${median(blocking.map((b) => b.longest)).toFixed(0)} ms`,
      );
    }
    const last = first[first.length - 1];
    for (const file of last.files) console.log(`    ${String(file.bytes).padStart(7)} B  ${file.path}`);
  }
} finally {
  await browser.close();
  for (const server of servers) await server.stop();
}
