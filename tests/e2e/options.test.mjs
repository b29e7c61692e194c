// The word tests' options and the crown (docs/scoring.md "Options", docs/sync.md
// "The crown"): a chosen option survives a reload, a game with it keeps its own
// personal best off the public boards, and its crown goes pending → confirmed when the
// best is delivered after an offline spell.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launchBrowser, openControlled, readRecord, startServer } from './harness.mjs';
import { board, eventually, humanPause, waitPending } from './play.mjs';

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

/** Types the prompt shown, without mistakes, at about `ms` per character. */
async function typePrompt(page, ms) {
  const prompt = await page.getByTestId('prompt').textContent();
  await page.getByTestId('input').focus();
  for (const ch of prompt) {
    await page.keyboard.type(ch);
    await humanPause(ms);
  }
  return prompt;
}

test('a 10-word option survives a reload, keeps its own best, and its crown is confirmed after an offline spell', async () => {
  const server = await startServer();
  const context = await browser.newContext();
  try {
    const page = await openControlled(context, server.origin);
    await page.getByTestId('offline-ready').waitFor();
    await page.getByTestId('mode-words').click();
    await page.getByTestId('length-10').click();
    await page.getByTestId('options-ranked').getByText('personal best only').waitFor();

    // The choice is kept in the browser database: a reload plays it again.
    await page.reload();
    await page.getByTestId('mode-words').click();
    await page.waitForSelector('[data-testid="length-10"][aria-pressed="true"]');
    const words = (await page.getByTestId('prompt').textContent()).trim().split(' ');
    assert.equal(words.length, 10, 'the prompt has the chosen 10 words');

    await context.setOffline(true);
    // 10 words are about 55 characters: at ~80 ms each the game lasts over 3 s.
    await typePrompt(page, 80);
    await page.getByTestId('saved').waitFor();
    await page.getByTestId('new-best').waitFor();
    const crown = page.getByTestId('crown');
    assert.equal(await crown.getAttribute('data-state'), 'pending');
    await waitPending(page, 1);
    const value = Number(await page.getByTestId('result-value').getAttribute('data-value'));

    await context.setOffline(false);
    await page.waitForSelector('[data-testid="crown"][data-state="confirmed"]', { timeout: 30_000 });
    await waitPending(page, 0);
    // Delivered on the player's own board of the option, never the public one.
    assert.deepEqual(await board(server.origin, 'words'), []);
    const { token } = await readRecord(page, 'meta', 'save');
    const saved = await eventually(() =>
      page.evaluate(async (token) => {
        const response = await fetch('/api/saves/me', { headers: { authorization: `Bearer ${token}` } });
        return response.ok ? response.json() : null;
      }, token),
    );
    assert.deepEqual(saved.optionBests, [{ mode: 'words', options: { length: 10 }, value }]);
  } finally {
    await context.close();
    await server.stop();
  }
});
