// Plays KeyDo games through the real UI at a human, plausible pace, so the
// server accepts the results (net WPM <= 350, 字/分 <= 600, >= 3 s) and its timing
// rules find a person's rhythm (docs/replay.md): each pause is drawn from ±60 % of
// the pace, never a metronome's.
import { setTimeout as sleep } from 'node:timers/promises';
import { readStore } from './harness.mjs';

/** A pause around `ms`: uniformly within ±60 % (coefficient of variation ≈ 0.35). */
export const humanPause = (ms) => sleep(Math.round(ms * (0.4 + 1.2 * Math.random())));

/** Speeds the tests play at: English ms per character, Chinese ms per character. */
export const PACE = { fast: { en: 45, zh: 120 }, slow: { en: 70, zh: 180 } };

/**
 * Opens `/?seed=<seed>`, starts `mode`, types the whole prompt without mistakes at
 * `pace`, and waits until the result is durably saved. Returns the result's value.
 */
export async function playGame(page, origin, { mode, seed, pace = PACE.fast }) {
  await page.goto(`${origin}/?seed=${seed}`);
  await page.getByTestId(`mode-${mode}`).click();
  const prompt = await page.getByTestId('prompt').textContent();
  const input = page.getByTestId('input');
  await input.focus();
  if (mode === 'zh') {
    // An IME commits whole characters: insertText is what the page receives.
    const cdp = await page.context().newCDPSession(page);
    for (const ch of prompt) {
      await cdp.send('Input.insertText', { text: ch });
      await humanPause(pace.zh);
    }
    await cdp.detach();
  } else {
    for (const ch of prompt) {
      await page.keyboard.type(ch);
      await humanPause(pace.en);
    }
  }
  await page.getByTestId('saved').waitFor({ timeout: 30_000 });
  return Number(await page.getByTestId('result-value').getAttribute('data-value'));
}

/** The first seed whose prompt in `mode` has at most `maxChars` characters. */
export async function shortSeed(page, origin, mode, maxChars) {
  for (let seed = 1; seed <= 200; seed++) {
    await page.goto(`${origin}/?seed=${seed}`);
    await page.getByTestId(`mode-${mode}`).click();
    const prompt = await page.getByTestId('prompt').textContent();
    if ([...prompt].length <= maxChars) return seed;
  }
  throw new Error(`no ${mode} prompt of at most ${maxChars} characters in 200 seeds`);
}

/** Waits until the typing field has the focus: the game is ready for a key. */
export function typingFocused(page, timeout = 30_000) {
  return page.waitForFunction(() => document.activeElement?.dataset.testid === 'input', null, { timeout });
}

/** The outbox as stored in IndexedDB `keydo`, read with the raw API. */
export const readOutbox = (page) => readStore(page, 'outbox');

/** Waits until the sync status shows `n` pending results. */
export async function waitPending(page, n, timeout = 30_000) {
  await page.waitForSelector(`[data-testid="sync-status"][data-pending="${n}"]`, { timeout });
}

/** The server's board for `mode`, straight from the API (not through the page). */
export async function board(origin, mode, which = 'alltime') {
  const response = await fetch(`${origin}/api/leaderboard?mode=${mode}&board=${which}`);
  if (!response.ok) throw new Error(`leaderboard: ${response.status}`);
  return (await response.json()).entries.map((e) => e.value);
}

/** Polls `check` (every 100 ms, at most `timeout`) until it returns a truthy value. */
export async function eventually(check, timeout = 30_000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`not reached within ${timeout} ms`);
    await sleep(100);
  }
}
