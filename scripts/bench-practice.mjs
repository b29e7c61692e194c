// Lesson generation time on the page (run by `make bench`; nothing here asserts).
//
// Opens the 练习 panel in headless Chromium, then starts LESSONS English and LESSONS
// Chinese lessons by their buttons, and reads the `keydo:lesson` performance measures
// the page takes around each generation (app/src/practice/mod.rs): the pure
// generation in wasm, from the stored statistics, not the drawing of the prompt.
// Prints p50 / p95 / max per language.
import { launchBrowser, startServer } from '../tests/e2e/harness.mjs';

const LESSONS = Number(process.env.LESSONS ?? 100);

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

const server = await startServer();
const browser = await launchBrowser();
try {
  const page = await browser.newPage();
  await page.goto(server.origin);
  await page.getByTestId('practice-panel').locator('summary').click();
  for (const [language, button] of [
    ['English', 'practice-english'],
    ['中文', 'practice-chinese'],
  ]) {
    await page.evaluate(() => performance.clearMeasures('keydo:lesson'));
    for (let i = 0; i < LESSONS; i++) {
      await page.getByTestId(button).click();
      await page.waitForFunction((n) => performance.getEntriesByName('keydo:lesson').length >= n, i + 1);
    }
    const times = (await page.evaluate(() => performance.getEntriesByName('keydo:lesson').map((e) => e.duration)))
      .sort((a, b) => a - b);
    const ms = (v) => `${v.toFixed(2)} ms`;
    console.log(
      `${language} lesson generation (${times.length} lessons, headless Chromium, release build): ` +
        `p50 ${ms(percentile(times, 50))}, p95 ${ms(percentile(times, 95))}, max ${ms(times.at(-1))}`,
    );
  }
} finally {
  await browser.close();
  await server.stop();
}
