// The 跟打 result screen, end to end: a game typed offline in Chromium (one mistake fixed,
// one left) shows the public-log notice, the report of every unit and the 成绩 line;
// Copy puts exactly that line on the clipboard; the local replay (still offline) ends
// on exactly the text typed. Back online, the result reaches the board, its 成绩 line
// turns from 待验证 to the code the server gave it, and its replay at /r/<code> ends on
// the same text.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { launchBrowser, startServer } from './harness.mjs';
import { humanPause, shortSeed, typingFocused, waitPending } from './play.mjs';

let browser;
let server;
before(async () => {
  browser = await launchBrowser();
  server = await startServer();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

/**
 * Types `prompt` key by key at a person's pace: a wrong key fixed with Backspace at
 * the 5th character, and the 9th character typed wrong and left. Returns the text left.
 */
async function typeWithMistakes(page, prompt) {
  let typed = '';
  for (const [i, ch] of [...prompt].entries()) {
    if (i === 4) {
      await page.keyboard.type(ch === 'x' ? 'z' : 'x');
      await humanPause(90);
      await page.keyboard.press('Backspace');
      await humanPause(90);
    }
    const key = i === 8 ? (ch === 'q' ? 'j' : 'q') : ch;
    await page.keyboard.type(key);
    typed += key;
    await humanPause(90);
  }
  return typed;
}

/** Plays the replay on screen at 2× to its end and returns the text of its last frame. */
async function playToEnd(page) {
  const replay = page.getByTestId('replay');
  await replay.waitFor();
  await page.getByTestId('replay-rate-2').click();
  if ((await replay.getAttribute('data-playing')) !== 'true') await page.getByTestId('replay-play').click();
  await page.waitForFunction(
    () => {
      const el = document.querySelector('[data-testid="replay"]');
      return el.dataset.playing === 'false' && el.dataset.position === el.dataset.duration;
    },
    null,
    { timeout: 60_000 },
  );
  return replay.getAttribute('data-typed');
}

describe('the result screen', () => {
  let context;
  let page;
  let typed;
  let scoreCode;
  before(async () => {
    context = await browser.newContext();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin });
    page = await context.newPage();
    // The server's answer to the score carries the result's 验证 code.
    page.on('response', async (response) => {
      if (response.url().endsWith('/api/scores') && response.ok()) {
        scoreCode ??= (await response.json()).code;
      }
    });
  });
  after(async () => {
    await context?.close();
  });

  test('offline: report, 成绩 line copied, local replay ends on the typed text', async () => {
    const seed = await shortSeed(page, server.origin, 'quote', 120);
    await page.goto(`${server.origin}/?seed=${seed}`);
    await page.getByTestId('mode-quote').click();
    await typingFocused(page);
    const prompt = await page.getByTestId('prompt').textContent();
    await context.setOffline(true);
    typed = await typeWithMistakes(page, prompt);
    await page.getByTestId('saved').waitFor({ timeout: 30_000 });

    // Nothing was ever uploaded from this device: the page says logs are public.
    await page.getByTestId('public-notice').waitFor();

    // The report: one unit per word, in the prompt's order, each titled with its time.
    const report = page.getByTestId('report');
    await report.waitFor();
    const units = await report.locator('.report-passage .unit').evaluateAll((els) =>
      els.map((el) => ({ text: el.textContent, title: el.getAttribute('title') })),
    );
    assert.equal(units.map((u) => u.text).join(''), prompt);
    assert.ok(units.every((u) => /^\d+\.\d\d s/.test(u.title)), JSON.stringify(units));
    assert.ok(units.some((u) => u.title.includes('回改')), 'the fixed mistake is a 回改 spot');
    assert.ok(units.some((u) => u.title.includes('错')), 'the mistake left is marked');
    const slowMarks = await report.locator('.slow-mark').count();
    assert.equal(slowMarks, Math.min(10, units.length));
    assert.match(await page.getByTestId('speed-loss').textContent(), /^速度损失: [\d.]+ WPM as scored/);

    // Hovering a second of the strip lights the units typed in it.
    await report.locator('.second').first().hover();
    assert.ok((await report.locator('.unit.lit').count()) > 0);

    // The 成绩 line, copied as shown.
    const line = await page.getByTestId('result-line').textContent();
    const value = await page.getByTestId('result-value').getAttribute('data-value');
    const digits = (Number(value) / 100).toFixed(2);
    assert.match(line, new RegExp(`^速度:${digits.replace('.', '\\.')}WPM 击键:[\\d.]+ 码长:(?:[\\d.]+|—) 字数:${[...typed].length} 错字:1 `));
    assert.match(line, / 回改:1 退格:1 打词:— 选重:— KeyDo 验证:待验证$/);
    await page.getByTestId('copy-result-line').click();
    await page.getByText('Copied', { exact: true }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), line);

    // The local replay, offline: its last frame is exactly what was typed.
    await page.getByTestId('replay-local').click();
    assert.equal(await playToEnd(page), typed);
    // Seeking back to the start shows the first key only: a replay's time runs from
    // the log's first edit (docs/replay.md, "Playback").
    await page.getByTestId('replay-seek').evaluate((seek) => {
      seek.value = '0';
      seek.dispatchEvent(new Event('input', { bubbles: true }));
    });
    assert.equal(await page.getByTestId('replay').getAttribute('data-typed'), typed.slice(0, 1));
  });

  test('online: the board entry replays at /r/<code> to the typed text', async () => {
    await context.setOffline(false);
    await waitPending(page, 0, 60_000);
    assert.match(scoreCode ?? '', /^[2-9A-HJ-NP-Z]{6}$/, 'the server gave the result a code');
    // The result screen still shows: its 成绩 line now carries the code.
    await page.waitForFunction(
      (code) => document.querySelector('[data-testid="result-line"]').textContent.endsWith(` KeyDo 验证:${code}`),
      scoreCode,
      { timeout: 30_000 },
    );

    await page.goto(`${server.origin}/r/${scoreCode}`);
    await page.getByTestId('board-replay-who').waitFor({ timeout: 30_000 });
    assert.equal(await playToEnd(page), typed);

    await page.goto(`${server.origin}/r/ZZZZZZ`);
    assert.match(await page.getByTestId('replay-error').textContent(), /No public result has the code ZZZZZZ/);
  });
});
