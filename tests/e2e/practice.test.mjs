// 练习 end to end (docs/practice.md): three English lessons with one slow letter make
// the next lesson focus it, and no lesson reaches the outbox; a 中文 game with two
// missed 字 offers exactly them to 练错字, whose drill is typed as practice (and waits
// for the practice module when it cannot be fetched); a custom text survives a reload.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import { PRACTICE_MODULE, launchBrowser, readStore, refuseFirst, startServer } from './harness.mjs';
import { readOutbox, typingFocused } from './play.mjs';

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

/** Opens the practice panel and waits for its lists. */
async function openPractice(page) {
  await page.getByTestId('practice-panel').locator('summary').click();
  await page.getByTestId('practice-english').waitFor({ timeout: 30_000 });
}

test('three lessons with one slow letter make the next lesson focus it, and none reaches the outbox', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(server.origin);
  await openPractice(page);
  // A target of 100 WPM (120 ms a letter): keys 45 ms apart are well above it, the
  // slow letter, 250 ms after the key before, well below.
  const target = page.getByTestId('practice-target');
  await target.fill('100');
  await target.press('Enter');
  await target.blur();
  const letters = (await page.getByTestId('practice-letters').textContent()).split('');
  assert.equal(letters.length, 6, 'six letters before any game');
  const slow = letters[2];

  for (let game = 0; game < 3; game++) {
    const start = game === 0 ? page.getByTestId('practice-english') : page.getByTestId('practice-next');
    await start.click();
    await typingFocused(page);
    const prompt = await page.getByTestId('prompt').textContent();
    assert.match(prompt, new RegExp(`^[${letters.join('')} ]+$`), 'only unlocked letters');
    for (const ch of prompt) {
      await sleep(ch === slow ? 250 : 45);
      await page.keyboard.type(ch);
    }
    await page.getByTestId('practice-saved').filter({ hasText: 'Practice saved' }).waitFor({ timeout: 30_000 });
  }

  await page.getByTestId('practice-focus').filter({ hasText: slow }).waitFor({ timeout: 10_000 });
  const key = page.locator(`[data-testid="practice-keyboard"] [data-unit="${slow}"]`);
  assert.match(await key.getAttribute('aria-label'), new RegExp(`^${slow}: last [0-9.]+ WPM, best`));
  assert.doesNotMatch(await key.getAttribute('class'), /conf-10|conf-none/, 'below the target');
  const fast = page.locator(`[data-testid="practice-keyboard"] [data-unit="${letters[0]}"]`);
  assert.match(await fast.getAttribute('class'), /conf-10/, 'at the target');
  assert.deepEqual(await readOutbox(page), [], 'practice never reaches the outbox');
  assert.deepEqual(await readStore(page, 'history'), [], 'nor the history');
  await context.close();
});

test('a 中文 game with two missed 字 offers exactly them to 练错字, typed as practice', async () => {
  // No worker: the practice module's first fetch is refused below, which a worker
  // serving it from the precache would hide.
  const context = await browser.newContext({ serviceWorkers: 'block' });
  const page = await context.newPage();
  await page.goto(server.origin);
  const text = '天地玄黄宇宙洪荒日月盈昃辰宿列张';
  await page.getByTestId('load-text-panel').locator('summary').click();
  await page.getByTestId('load-text-field').fill(text);
  await page.getByTestId('load-text').click();
  await typingFocused(page);
  const missed = new Map([
    [2, '口'],
    [9, '口'],
  ]);
  const cdp = await context.newCDPSession(page);
  for (const [i, ch] of [...text].entries()) {
    await cdp.send('Input.insertText', { text: missed.get(i) ?? ch });
    await sleep(250);
  }
  await page.getByTestId('result').waitFor({ timeout: 30_000 });
  assert.equal(await page.getByTestId('drill-missed-units').textContent(), '玄月');

  // The drill's text is made in the practice module: while it cannot be fetched, the
  // result stays and a line says so; the button tries again.
  const refused = await refuseFirst(page, PRACTICE_MODULE, 1);
  await page.getByTestId('drill-missed').click();
  await page.getByTestId('drill-error').waitFor({ timeout: 10_000 });
  assert.equal(refused(), 1);
  assert.ok(await page.getByTestId('result').isVisible(), 'the result stays');
  await page.getByTestId('drill-missed').click();
  await typingFocused(page);
  const drill = await page.getByTestId('prompt').textContent();
  assert.equal(drill, '玄月玄月玄月');
  for (const ch of drill) {
    await cdp.send('Input.insertText', { text: ch });
    await sleep(150);
  }
  await cdp.detach();
  await page.getByTestId('practice-saved').filter({ hasText: 'Practice saved' }).waitFor({ timeout: 30_000 });
  // The loaded text's game is in the history (and went to its boards); the drill is
  // only in the practice store, beside it.
  assert.equal((await readStore(page, 'history')).length, 1);
  assert.equal((await readStore(page, 'practice')).filter((game) => game.prompt).length, 2);
  await context.close();
});

/** Plays the custom text in the form with this order and limit; returns the prompt. */
async function playCustom(page, order, limit, amount) {
  await page.getByTestId('custom-order').selectOption(order);
  await page.getByTestId('custom-limit').selectOption(limit);
  await page.getByTestId('custom-amount').fill(amount);
  await page.getByTestId('custom-play').click();
  await typingFocused(page);
  return page.getByTestId('prompt').textContent();
}

test('a custom text survives a reload, shuffled and limited as set, its best kept on the device only', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(server.origin);
  await page.getByTestId('practice-panel').locator('summary').click();
  const form = page.getByTestId('custom-text-form');
  await form.waitFor();

  // Nothing to type is refused in words, and the field keeps what was there.
  await page.getByTestId('custom-text').fill(' \u200b ');
  await page.getByTestId('custom-play').click();
  assert.match(await page.getByTestId('custom-error').textContent(), /empty/);

  const words = ['alpha', 'bravo', 'charlie', 'delta'];
  await page.getByTestId('custom-text').fill(` ${words.join('  ')}\n`);
  const prompt = await playCustom(page, 'shuffle', 'words', '8');
  const typed = prompt.split(' ');
  assert.equal(typed.length, 8, prompt);
  for (const round of [typed.slice(0, 4), typed.slice(4)]) {
    assert.deepEqual([...round].sort(), words, `each round is the text shuffled: ${prompt}`);
  }
  for (const ch of prompt) {
    await page.keyboard.type(ch);
    await sleep(45);
  }
  await page.getByTestId('practice-saved').filter({ hasText: 'Practice saved' }).waitFor({ timeout: 30_000 });
  const best = await page.getByTestId('custom-result-best').textContent();
  assert.match(best, /^Your first best for this text: [0-9.]+ WPM$/);
  assert.deepEqual(await readOutbox(page), [], 'a custom text never reaches the outbox');
  assert.deepEqual(await readStore(page, 'history'), [], 'nor the history');

  // After a reload the form holds the same text and setting, with its best.
  await page.reload();
  await typingFocused(page);
  await page.getByTestId('practice-panel').locator('summary').click();
  await page.getByTestId('custom-best').filter({ hasText: 'Best for this text, shuffle, 8 words:' }).waitFor();
  assert.equal(await page.getByTestId('custom-text').inputValue(), words.join(' '));
  assert.equal(await page.getByTestId('custom-order').inputValue(), 'shuffle');
  assert.equal(await page.getByTestId('custom-limit').inputValue(), 'words');
  assert.equal(await page.getByTestId('custom-amount').inputValue(), '8');
  assert.equal(
    await page.getByTestId('custom-best').textContent(),
    `Best for this text, shuffle, 8 words: ${best.split(': ')[1]}`,
  );

  // Timed: the clock ends the game whatever is left of the text.
  const timed = await playCustom(page, 'repeat', 'seconds', '5');
  assert.ok(timed.startsWith(words.join(' ')), 'repeat keeps the order');
  assert.ok(timed.length >= 5 * 29, 'text for the fastest typist');
  await page.keyboard.type('alpha');
  await page.getByTestId('practice-result').waitFor({ timeout: 10_000 });
  assert.match(await page.getByTestId('custom-result-best').textContent(), /^Your first best for this text/);
  await context.close();
});
