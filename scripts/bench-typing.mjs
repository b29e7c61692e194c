// Keystroke latency of the typing game (run by `make bench`; nothing here asserts).
//
// Types KEYS characters of a `time` prompt into headless Chromium at a simulated
// 300 WPM (one key every 40 ms) and measures, for each `beforeinput`:
//  - processing: from the first listener (window, capture) to the last (window,
//    bubble): the game's handler, the session update and the marks it sets;
//  - rendering: from the next frame's requestAnimationFrame to a MessageChannel task
//    posted there, which runs after that frame's style, layout and paint;
//  - work = processing + rendering: what one keystroke costs (goal: p95 < 4 ms);
//  - to next paint: from the event's timestamp to after the next paint, which also
//    includes waiting for the frame (up to one 16.7 ms vsync interval);
// as p50/p95/p99, plus the Event Timing API's count of events over 16 ms (its smallest
// threshold).
import { launchBrowser, startServer } from '../tests/e2e/harness.mjs';

const KEYS = Number(process.env.KEYS ?? 600);
const KEY_INTERVAL_MS = 40;

const percentile = (xs, p) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
};
const summary = (xs) =>
  `p50 ${percentile(xs, 0.5).toFixed(2)} ms, p95 ${percentile(xs, 0.95).toFixed(2)} ms, ` +
  `p99 ${percentile(xs, 0.99).toFixed(2)} ms, max ${Math.max(...xs).toFixed(2)} ms (n=${xs.length})`;

/** Installed before the app: measures every `beforeinput` without touching the game. */
function instrument() {
  const samples = [];
  let slowEvents = 0;
  window.__typingBench = { samples, slowEvents: () => slowEvents };
  new PerformanceObserver((list) => {
    slowEvents += list.getEntries().filter((e) => e.name === 'beforeinput').length;
  }).observe({ type: 'event', durationThreshold: 16, buffered: true });
  window.addEventListener(
    'beforeinput',
    (event) => {
      const sample = { start: performance.now(), stamp: event.timeStamp };
      window.addEventListener(
        'beforeinput',
        () => {
          sample.processed = performance.now();
        },
        { once: true },
      );
      requestAnimationFrame(() => {
        sample.frame = performance.now();
        const channel = new MessageChannel();
        channel.port1.onmessage = () => {
          sample.painted = performance.now();
          samples.push(sample);
        };
        channel.port2.postMessage(null);
      });
    },
    { capture: true },
  );
}

const server = await startServer();
const browser = await launchBrowser();
try {
  const page = await browser.newPage();
  await page.addInitScript(instrument);
  await page.goto(`${server.origin}/?seed=1`);
  await page.getByTestId('mode-time').click();
  const prompt = await page.getByTestId('prompt').textContent();
  await page.waitForFunction(() => document.activeElement?.dataset.testid === 'input');
  const text = prompt.slice(0, KEYS);
  await page.keyboard.type(text, { delay: KEY_INTERVAL_MS });
  await page.waitForFunction((n) => window.__typingBench.samples.length >= n, text.length);
  const { samples, slow } = await page.evaluate(() => ({
    samples: window.__typingBench.samples,
    slow: window.__typingBench.slowEvents(),
  }));
  const processing = samples.map((s) => s.processed - s.start);
  const rendering = samples.map((s) => s.painted - s.frame);
  const work = samples.map((s, i) => processing[i] + rendering[i]);
  const toPaint = samples.map((s) => s.painted - s.stamp);
  console.log(`typing latency, ${samples.length} keys at one per ${KEY_INTERVAL_MS} ms (300 WPM):`);
  console.log(`  processing (handler + DOM updates) ${summary(processing)}`);
  console.log(`  rendering (style, layout, paint)   ${summary(rendering)}`);
  console.log(`  work per keystroke                 ${summary(work)}  goal p95 < 4 ms`);
  console.log(`  keystroke to after next paint      ${summary(toPaint)}`);
  console.log(`  events over 16 ms (Event Timing)   ${slow}`);
} finally {
  await browser.close();
  await server.stop();
}
