// Keystroke latency of the typing game (run by `make bench`; nothing here asserts).
//
// Types KEYS characters of a `time` prompt into headless Chromium at a simulated
// 300 WPM (one key every 40 ms) and measures, for each `beforeinput`:
//  - processing: from the first listener (window, capture) to the last (window,
//    bubble): the game's handler, the session update and the marks it sets;
//  - rendering: from the next frame's requestAnimationFrame to a MessageChannel task
//    posted there, which runs after that frame's style, layout, paint and commit;
//  - work = processing + rendering: what one keystroke costs (goal: p95 < 4 ms);
//  - wait: from the event's time stamp to that frame, which Chromium starts at once
//    when its frame scheduler is idle and at the next vsync tick (up to 16.7 ms later)
//    while it still follows the ticks after an earlier frame;
//  - to next paint: from the event's time stamp to after the next paint (wait + frame);
//  - whether the key was drawn in the first frame after it: its frame's vsync tick
//    (requestAnimationFrame's time) is within one interval of the key, and the frame's
//    work ended within one interval of its start;
// as p50/p95/p99, plus the Event Timing API's count of events over 16 ms (its smallest
// threshold).
//
// The same keys are then typed into a floor page: a text field and one text node set
// to the key, the least a page can draw for a keystroke. Its latency is this browser's
// own floor, vsync wait included, which no page can go under. ROUNDS alternates the
// two, so a slow spell of the machine falls on both.
import { launchBrowser, startServer } from '../tests/e2e/harness.mjs';
import { typingFocused } from '../tests/e2e/play.mjs';

const KEYS = Number(process.env.KEYS ?? 600);
const ROUNDS = Number(process.env.ROUNDS ?? 2);
const KEY_INTERVAL_MS = 40;
/** A key whose frame started this long after it waited for a vsync tick. */
const WAITED_MS = 4;
/** A vsync interval, and the timers' slack on it. */
const VSYNC_MS = 1000 / 60;
const SLACK_MS = 0.5;

const FLOOR_PAGE = `<!doctype html><meta charset="utf-8"><title>floor</title>
<input id="field" aria-label="Type here" autofocus><p id="shown">&nbsp;</p>
<script>
  field.addEventListener('beforeinput', (event) => {
    event.preventDefault();
    shown.firstChild.data = event.data ?? '';
  });
</script>`;

const percentile = (xs, p) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
};
const summary = (xs) =>
  `p50 ${percentile(xs, 0.5).toFixed(2)} ms, p95 ${percentile(xs, 0.95).toFixed(2)} ms, ` +
  `p99 ${percentile(xs, 0.99).toFixed(2)} ms, max ${Math.max(...xs).toFixed(2)} ms (n=${xs.length})`;
const share = (xs, test) => `${Math.round((100 * xs.filter(test).length) / xs.length)}%`;

/** Installed before the page's own scripts: measures every `beforeinput` without touching it. */
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
      requestAnimationFrame((frameTime) => {
        sample.frame = performance.now();
        sample.frameTime = frameTime;
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

/** Types `text` into the page's focused field; every key's sample and the slow-event count. */
async function typeInto(page, text) {
  await page.keyboard.type(text, { delay: KEY_INTERVAL_MS });
  await page.waitForFunction((n) => window.__typingBench.samples.length >= n, text.length);
  return page.evaluate(() => ({
    samples: window.__typingBench.samples,
    slow: window.__typingBench.slowEvents(),
  }));
}

/** One game of `time`: its prompt's first KEYS characters typed. */
async function game(browser, origin) {
  const page = await browser.newPage();
  try {
    await page.addInitScript(instrument);
    await page.goto(`${origin}/?seed=1`);
    await page.getByTestId('mode-time').click();
    const prompt = await page.getByTestId('prompt').textContent();
    await typingFocused(page);
    const text = prompt.slice(0, KEYS);
    return { text, ...(await typeInto(page, text)) };
  } finally {
    await page.close();
  }
}

/** The same keys typed into the floor page, served by a route on the loopback origin. */
async function floor(browser, origin, text) {
  const page = await browser.newPage();
  try {
    await page.addInitScript(instrument);
    await page.route(`${origin}/typing-floor`, (route) =>
      route.fulfill({ contentType: 'text/html', body: FLOOR_PAGE }),
    );
    await page.goto(`${origin}/typing-floor`);
    await page.focus('#field');
    return await typeInto(page, text);
  } finally {
    await page.close();
  }
}

const toPaint = (samples) => samples.map((s) => s.painted - s.stamp);
const wait = (samples) => samples.map((s) => s.frame - s.stamp);
const rendering = (samples) => samples.map((s) => s.painted - s.frame);

const server = await startServer();
const browser = await launchBrowser();
try {
  const games = [];
  const floors = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const played = await game(browser, server.origin);
    const floored = await floor(browser, server.origin, played.text);
    games.push(played);
    floors.push(floored);
    console.log(
      `round ${round}: keystroke to after next paint p95 ` +
        `${percentile(toPaint(played.samples), 0.95).toFixed(2)} ms (game), ` +
        `${percentile(toPaint(floored.samples), 0.95).toFixed(2)} ms (floor page)`,
    );
  }
  const samples = games.flatMap((g) => g.samples);
  const floorSamples = floors.flatMap((f) => f.samples);
  const processing = samples.map((s) => s.processed - s.start);
  const work = rendering(samples).map((r, i) => processing[i] + r);
  const waited = (w) => w > WAITED_MS;
  console.log(`typing latency, ${ROUNDS} rounds of ${KEYS} keys at one per ${KEY_INTERVAL_MS} ms (300 WPM):`);
  console.log(`  processing (handler + DOM updates)   ${summary(processing)}`);
  console.log(`  rendering (style, layout, paint)     ${summary(rendering(samples))}`);
  console.log(`  work per keystroke                   ${summary(work)}  goal p95 < 4 ms`);
  console.log(`  keystroke to after next paint        ${summary(toPaint(samples))}`);
  console.log(`  the same, floor page                 ${summary(toPaint(floorSamples))}`);
  console.log(`  rendering, floor page                ${summary(rendering(floorSamples))}`);
  console.log(
    `  waited for a vsync tick (> ${WAITED_MS} ms)     ${share(wait(samples), waited)} of keys, ` +
      `${share(wait(floorSamples), waited)} on the floor page`,
  );
  // A frame's time is its vsync tick (or, started at once, the tick just past). A key
  // is in the first frame after it if that tick is within an interval of the key, and
  // that frame's main-thread work ended within an interval of its start.
  const firstFrame = (xs) =>
    share(
      xs,
      (s) =>
        s.frameTime - s.stamp <= VSYNC_MS + SLACK_MS &&
        s.painted - Math.max(s.frameTime, s.stamp) <= VSYNC_MS + SLACK_MS,
    );
  console.log(
    `  drawn in the first frame after them  ${firstFrame(samples)} of keys, ` +
      `${firstFrame(floorSamples)} on the floor page`,
  );
  console.log(
    `  events over 16 ms (Event Timing)     ${games.reduce((n, g) => n + g.slow, 0)}, ` +
      `${floors.reduce((n, f) => n + f.slow, 0)} on the floor page`,
  );
} finally {
  await browser.close();
  await server.stop();
}
