// 跟打 end to end (docs/genda.md): a QQ 发文 message pasted with Ctrl+V outside any
// field, typed offline through IME compositions, lands once on its text's boards when
// the browser is back online, and its 成绩 line (with its 段号) is what Copy puts on
// the clipboard; the day's race played in two tabs of one browser at once keeps one
// 首打, the game that finished first, while the mode's board keeps the better one.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import { launchBrowser, openControlled, queryDatabase, refuseFirst, startServer } from './harness.mjs';
import { PACE, board, eventually, humanPause, readOutbox, typingFocused, waitPending } from './play.mjs';

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

/**
 * Between IME composition states: about 12 keys per second inside compositions, well
 * under the 25 at which the server holds a result for review (docs/replay.md, `ime-speed`).
 */
const IME_STEP_GAP_MS = 80;

/**
 * Types `text` 字 by 字 as an input method does: two composition states (pinyin-like
 * letters), then the commit, then a person's pause of about `msPerChar`.
 */
async function typeWithIme(page, text, msPerChar) {
  const cdp = await page.context().newCDPSession(page);
  try {
    for (const ch of text) {
      for (const state of ['z', 'zi']) {
        await cdp.send('Input.imeSetComposition', { text: state, selectionStart: state.length, selectionEnd: state.length });
        await humanPause(IME_STEP_GAP_MS);
      }
      await cdp.send('Input.insertText', { text: ch });
      await humanPause(msPerChar);
    }
  } finally {
    await cdp.detach();
  }
}

/** A board of `/api/boards` (docs/api.md, "Text boards and the day's race"). */
async function textBoard(origin, query) {
  const response = await fetch(`${origin}/api/boards?${query}`);
  assert.equal(response.status, 200, `GET /api/boards?${query}`);
  return response.json();
}

// The body is this test's own sentence, over two lines as a 发文 tool may break it;
// Chinese text is normalised without whitespace, so the game types the lines joined.
const BODY_LINES = ['春天的早晨，河边的柳树发出新芽，', '孩子们沿着小路跑向学校，笑声传得很远。'];
const QQ_MESSAGE = ['《春晨》', ...BODY_LINES, '-----第12段-余345字-极速跟打器'].join('\n');
const NORMALISED = BODY_LINES.join('');

test('a QQ text pasted and typed offline reaches its board once; its 成绩 line is copied', async (t) => {
  const server = await startServer();
  const context = await browser.newContext();
  try {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin });
    const page = await openControlled(context, server.origin);
    await page.getByTestId('offline-ready').waitFor();
    await typingFocused(page);
    await context.setOffline(true);

    // Ctrl+V outside any field loads the clipboard's text and starts a game on it.
    await page.evaluate((text) => navigator.clipboard.writeText(text), QQ_MESSAGE);
    await page.evaluate(() => document.activeElement?.blur());
    const started = Date.now();
    await page.keyboard.press('ControlOrMeta+V');
    await page.waitForFunction(
      (text) => document.querySelector('[data-testid="prompt"]')?.textContent === text,
      NORMALISED,
      { timeout: 10_000 },
    );
    await typingFocused(page);
    t.diagnostic(`paste to a typing field ready: ${Date.now() - started} ms`);

    await typeWithIme(page, NORMALISED, PACE.fast.zh);
    await page.getByTestId('saved').waitFor({ timeout: 30_000 });
    assert.equal(await page.getByTestId('result-unit').textContent(), '字/分');
    const value = Number(await page.getByTestId('result-value').getAttribute('data-value'));

    // Offline, the game waits in the outbox under its text's 首打 and best boards,
    // keyed by the SHA-256 of the normalised text.
    const hash = createHash('sha256').update(NORMALISED, 'utf8').digest('hex');
    const outbox = await readOutbox(page);
    const boards = outbox.flatMap((entry) => (entry.board ? [entry.board] : [])).map((b) => `${b.kind}:${b.text}`);
    assert.deepEqual(boards.sort(), [`textBest:${hash}`, `textFirst:${hash}`], JSON.stringify(outbox));

    // The 成绩 line: its 段号, every figure, and 待验证 while nothing is verified.
    const offlineLine = await page.getByTestId('result-line').textContent();
    assert.match(offlineLine, new RegExp(`^第12段 速度:${(value / 100).toFixed(2).replace('.', '\\.')}`));
    assert.match(offlineLine, new RegExp(` 字数:${[...NORMALISED].length} 错字:0 `));
    assert.match(offlineLine, / KeyDo 验证:待验证$/);
    await page.getByTestId('copy-result-line').click();
    await page.getByText('Copied', { exact: true }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), offlineLine);

    // Back online: delivered, once.
    await context.setOffline(false);
    await waitPending(page, 0, 60_000);
    assert.deepEqual(await readOutbox(page), []);
    const first = await textBoard(server.origin, `text=${hash}&ranking=first`);
    const best = await textBoard(server.origin, `text=${hash}&ranking=best`);
    for (const b of [first, best]) {
      assert.equal(b.entries.length, 1, JSON.stringify(b));
      assert.equal(b.entries[0].value, value);
    }
    const code = first.entries[0].code;
    assert.match(code ?? '', /^[2-9A-HJ-NP-Z]{6}$/, 'the entry carries its 验证 code');
    assert.equal(best.entries[0].code, code, 'one game on both boards');
    // The server's database: one result, on the text's two boards, the text stored once.
    const results = queryDatabase(server.dataDir, 'SELECT value, boards FROM results');
    assert.equal(results.length, 1, JSON.stringify(results));
    assert.equal(results[0].value, value);
    const rows = queryDatabase(
      server.dataDir,
      `SELECT board FROM board_scores WHERE board LIKE 'text:${hash}:%' ORDER BY board`,
    );
    assert.deepEqual(rows.map((r) => r.board), [`text:${hash}:best`, `text:${hash}:first`]);
    assert.deepEqual(queryDatabase(server.dataDir, 'SELECT body FROM texts'), [{ body: NORMALISED }]);
    // The mode's public board is not one of a pasted text's boards.
    assert.deepEqual(await board(server.origin, 'zh'), []);

    // The line as copied once verified carries the code the server gave the result.
    await t.test('the 成绩 line copied once verified carries its 验证 code', async () => {
      await page.waitForFunction(
        (code) => document.querySelector('[data-testid="result-line"]')?.textContent.endsWith(`验证:${code}`),
        code,
        { timeout: 15_000 },
      );
      const line = await page.getByTestId('result-line').textContent();
      assert.equal(line, offlineLine.replace(/验证:待验证$/, `验证:${code}`));
      await page.getByTestId('copy-result-line').click();
      await page.getByText('Copied', { exact: true }).waitFor();
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), line);
    });

    // Its link opens it on another device: the text reader's module fetches it (from
    // the network here), and a failed load of that module is tried again.
    await t.test('its link, /t/<short>, loads the stored text', async () => {
      const other = await browser.newContext({ serviceWorkers: 'block' });
      try {
        const linked = await other.newPage();
        const refused = await refuseFirst(linked, /\/keydo-lazy-split_loader-[0-9a-f]{16}\.wasm$/, 1);
        await linked.goto(`${server.origin}/t/${hash.slice(0, 12)}`);
        await linked.waitForFunction(
          (text) => document.querySelector('[data-testid="prompt"]')?.textContent === text,
          NORMALISED,
          { timeout: 30_000 },
        );
        assert.equal(refused(), 1, 'the first load of the reader was refused, the next one read it');
        assert.equal(new URL(linked.url()).pathname, '/', 'the link is dropped once followed');
      } finally {
        await other.close();
      }
    });
  } finally {
    await context.close();
    await server.stop();
  }
});

/** The UTC+8 race day of the instant `ms` (keydo_core::text::daily::race_day). */
const raceDay = (ms) => Math.floor((ms + 8 * 3_600_000) / 86_400_000);

test("the day's race in two tabs at once: one 首打, the game finished first", async () => {
  const server = await startServer();
  const context = await browser.newContext();
  try {
    const [early, late] = [await openControlled(context, server.origin), await context.newPage()];
    await late.goto(server.origin + '/');
    const prompts = [];
    for (const page of [early, late]) {
      await page.getByTestId('offline-ready').waitFor();
      await page.getByTestId('daily-zh').click();
      await typingFocused(page);
      prompts.push(await page.getByTestId('prompt').textContent());
    }
    assert.equal(prompts[0], prompts[1], 'both tabs race the same passage');
    const day = raceDay(Date.now());
    const chars = [...prompts[0]];

    // `early` types slowly from the start; `late` starts once `early` is 60 % through
    // and types fast (about 340 vs 245 ms per 字 with the compositions): the tabs type
    // at once, and `early` ends first, with the lower score.
    const half = Math.ceil(chars.length * 0.6);
    const earlyGame = (async () => {
      await typeWithIme(early, chars.slice(0, half).join(''), PACE.slow.zh);
      const lateGame = typeWithIme(late, prompts[1], PACE.fast.zh * 0.7);
      await typeWithIme(early, chars.slice(half).join(''), PACE.slow.zh);
      return lateGame;
    })();
    await (await earlyGame);
    for (const page of [early, late]) await page.getByTestId('saved').waitFor({ timeout: 30_000 });
    const values = [];
    for (const page of [early, late]) {
      values.push(Number(await page.getByTestId('result-value').getAttribute('data-value')));
    }
    for (const page of [early, late]) await waitPending(page, 0, 60_000);

    // Both games reached the server.
    const results = await eventually(() => {
      const rows = queryDatabase(server.dataDir, 'SELECT value, played_at FROM results ORDER BY played_at');
      return rows.length === 2 && rows;
    });
    assert.deepEqual(results.map((r) => r.value), values, 'the earlier-finished game is `early`');
    assert.ok(values[1] > values[0], `the later game scores higher: ${values}`);

    // The day's 首打 board: one entry, the earlier-finished game, whatever its value.
    const daily = await textBoard(server.origin, `daily=${day}&lang=zh`);
    assert.equal(daily.entries.length, 1, JSON.stringify(daily));
    assert.equal(daily.entries[0].playedAt, results[0].played_at);
    assert.equal(daily.entries[0].value, values[0]);
    // The mode's best board: the better game.
    assert.deepEqual(await board(server.origin, 'zh'), [values[1]]);
  } finally {
    await context.close();
    await server.stop();
  }
});
