// A long offline spell in little real time: with Playwright's clock installed in the
// context (it fakes the page's Date, timers and performance.now, which wasm-bindgen's
// `Date.now()` and gloo's timers call), jump the page from one failed attempt to the
// next until the outbox's backoff reaches its 5-minute cap (docs/sync.md). The service
// worker keeps the real clock. Install the clock once the game is recorded: typing
// under the fake clock is not what this drives.
import { readOutbox } from './play.mjs';

/** Failures after which the backoff window (2 s doubling) is at its 5-minute cap. */
export const FAILURES_AT_CAP = 9;
/** The least wait at the cap (jitter draws from the window's upper half). */
export const LEAST_WAIT_AT_CAP_MS = 150_000;

/**
 * With the context offline and one outbox entry waiting, fast-forwards the page's clock
 * to each next attempt until the entry has failed `FAILURES_AT_CAP` times. Resolves to
 * the entry as it then is, and the page's clock reading.
 */
export async function reachBackoffCap(context, page) {
  for (let step = 0; step < 2 * FAILURES_AT_CAP; step++) {
    const { entry, now } = await waitingEntry(page);
    if (entry.sync.attempts >= FAILURES_AT_CAP) return { entry, now };
    // Past the entry's next attempt and the trigger coalescing after it. A timer the
    // page set before the clock was installed runs on the real clock: nudge again.
    for (let nudge = 0; ; nudge++) {
      const { now: current } = await waitingEntry(page);
      await context.clock.fastForward(Math.max(entry.sync.nextAttemptAt - current, 0) + 1_000);
      try {
        await failedAgain(page, entry.sync.attempts, 5_000);
        break;
      } catch (error) {
        if (nudge === 2) throw error;
      }
    }
  }
  throw new Error(`the backoff did not reach its cap in ${2 * FAILURES_AT_CAP} attempts`);
}

/** The only outbox entry and the page's clock. */
export async function waitingEntry(page) {
  const entries = await readOutbox(page);
  if (entries.length !== 1) throw new Error(`expected one outbox entry, found ${entries.length}`);
  return { entry: entries[0], now: await page.evaluate(() => Date.now()) };
}

/** Waits (real time, at most `timeout` ms) until the entry records a failure after `attempts`. */
export async function failedAgain(page, attempts, timeout = 10_000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const { entry } = await waitingEntry(page);
    if (entry.sync.attempts > attempts) return entry;
    if (Date.now() > deadline) throw new Error(`no attempt after attempt ${attempts} within ${timeout} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
