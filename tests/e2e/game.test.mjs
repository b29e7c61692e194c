// The typing game, played for real: each mode typed with Playwright's keyboard (and,
// for `zh`, committed the way an IME does through CDP), with mistakes and backspaces.
// The test keeps its own record of what it left typed and derives the value with its
// own copy of docs/scoring.md's formula, so a wrong count or formula in the app fails here.
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, describe, test } from 'node:test';
import { launchBrowser, startServer } from './harness.mjs';
import { typingFocused } from './play.mjs';

/**
 * Milliseconds between keys: fast but human, so results pass the plausibility rules
 * (350 WPM is one character every 34 ms).
 */
const KEY_GAP_MS = 40;
/** Between IME steps: at most 600 字/分 (one 字 every 100 ms) is plausible. */
const IME_STEP_GAP_MS = 40;

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

const pace = (ms) => new Promise((done) => setTimeout(done, ms));

/** docs/scoring.md, written out independently: round half up of net WPM × 100 or 速度 × 100. */
function expectedValue(mode, { correct, errors }, durationMs) {
  const [units, perUnit] = mode === 'zh' ? [Math.max(correct + errors - 5 * errors, 0), 1] : [correct, 5];
  // units / perUnit / (durationMs / 60000) × 100, rounded half up in integers.
  const numerator = units * 60_000 * 100;
  const denominator = perUnit * durationMs;
  return Math.floor((2 * numerator + denominator) / (2 * denominator));
}

/** Characters right and wrong in the final text, compared position by position. */
function finalText(prompt, typed) {
  const promptChars = [...prompt];
  const typedChars = [...typed];
  const correct = typedChars.filter((c, i) => c === promptChars[i]).length;
  return { correct, errors: typedChars.length - correct };
}

/**
 * Plays keys into the page, keeping what is left typed and the times around the first
 * and the latest keystroke (the game's duration must fall between them).
 */
class Typist {
  constructor(page) {
    this.page = page;
    this.typed = '';
    this.first = null;
    this.last = null;
    /** Keys pressed, composition keys included, and deletions that removed something. */
    this.keys = 0;
    this.corrections = 0;
  }

  async #timed(action) {
    const start = performance.now();
    await action();
    const span = { start, end: performance.now() };
    this.first ??= span;
    this.last = span;
    await pace(KEY_GAP_MS);
  }

  /** Types `text` one key at a time. */
  async type(text) {
    for (const char of text) {
      await this.#timed(() => this.page.keyboard.type(char));
      this.typed += char;
      this.keys += 1;
    }
  }

  /** Backspace (never across a correctly typed space: only the current word is fixed). */
  async backspace() {
    // Not a keystroke for the duration: the game never starts or ends on one.
    await this.page.keyboard.press('Backspace');
    this.typed = [...this.typed].slice(0, -1).join('');
    this.keys += 1;
    this.corrections += 1;
    await pace(KEY_GAP_MS);
  }

  /** Commits `text` as an IME would: a few composition states, then the commit. */
  async compose(cdp, states, text) {
    for (const [i, state] of states.entries()) {
      const step = () =>
        cdp.send('Input.imeSetComposition', { text: state, selectionStart: state.length, selectionEnd: state.length });
      // The composition's start is the keystroke that starts the clock.
      if (i === 0 && this.first === null) await this.#timed(step);
      else await step();
      await pace(IME_STEP_GAP_MS);
    }
    await this.#timed(() => cdp.send('Input.insertText', { text }));
    this.typed += text;
    // A key per composition state, and the one that chose the candidate (committing
    // updates the composition to the chosen text first).
    this.keys += states.length + 1;
  }

  /** The bounds the game's duration must fall in, in ms (±1 for each rounded stamp). */
  durationBounds() {
    return { min: this.last.start - this.first.end - 2, max: this.last.end - this.first.start + 2 };
  }
}

async function openGame(context, seed) {
  const page = await context.newPage();
  await page.goto(`${server.origin}/?seed=${seed}`);
  await page.getByTestId('prompt').waitFor();
  return page;
}

async function startMode(page, mode) {
  await page.getByTestId(`mode-${mode}`).click();
  const prompt = page.getByTestId('prompt');
  await prompt.waitFor();
  await typingFocused(page);
  return prompt.textContent();
}

/** Reads the result and checks it against the test's own count of what it typed. */
async function checkResult(page, mode, prompt, typist, extraDuration = {}) {
  const result = page.getByTestId('result-value');
  await result.waitFor({ timeout: 90_000 });
  const shown = await result.evaluate((el) => ({
    text: el.textContent,
    value: Number(el.dataset.value),
    durationMs: Number(el.dataset.durationMs),
    mode: el.dataset.mode,
  }));
  assert.equal(shown.mode, mode);
  const bounds = { ...typist.durationBounds(), ...extraDuration };
  assert.ok(
    shown.durationMs >= bounds.min && shown.durationMs <= bounds.max,
    `duration ${shown.durationMs} ms within [${bounds.min}, ${bounds.max}]`,
  );
  const counts = finalText(prompt, typist.typed);
  const value = expectedValue(mode, counts, shown.durationMs);
  assert.equal(shown.value, value, JSON.stringify(counts));
  // The headline reads as the speed itself, as on the leaderboards: 5234 → "52.34 WPM".
  assert.equal(shown.text, `${Math.floor(value / 100)}.${String(value % 100).padStart(2, '0')}`);
  assert.equal(await page.getByTestId('result-unit').textContent(), mode === 'zh' ? '字/分' : 'WPM');
  assert.doesNotMatch(await page.getByTestId('result').textContent(), /Score/);
  return { value, durationMs: shown.durationMs, counts };
}

/** A figure of the result screen, e.g. `figure('accuracy')` → "96.2 %". */
const figure = (page, id) => page.getByTestId(`figure-${id}`).textContent();

/** Asserts that `shown` (text) is `exact` to the number of decimals shown. */
function assertShown(shown, exact, what) {
  const decimals = shown.split('.')[1]?.length ?? 0;
  assert.ok(Math.abs(Number(shown) - exact) <= 0.5 * 10 ** -decimals + 1e-9, `${what}: ${shown} for ${exact}`);
}

/** The prompt with one wrong letter fixed and one left wrong, word by word. */
async function typeWithMistakes(typist, prompt) {
  const words = prompt.split(' ');
  for (const [i, word] of words.entries()) {
    if (i === 1) {
      // A mistake fixed with backspace: still counts against accuracy, not the value.
      await typist.type(word[0] === 'q' ? 'z' : 'q');
      await typist.backspace();
      await typist.type(word);
    } else if (i === 3) {
      // A mistake left in: one wrong character in the final text.
      await typist.type((word[0] === 'q' ? 'z' : 'q') + word.slice(1));
    } else {
      await typist.type(word);
    }
    if (i < words.length - 1) await typist.type(' ');
  }
}

describe('the typing game', () => {
  let context;
  before(async () => {
    context = await browser.newContext();
  });
  after(async () => {
    await context?.close();
  });

  test('words: 50 words with mistakes score the exact value and set a personal best', async () => {
    const page = await openGame(context, 101);
    const prompt = await startMode(page, 'words');
    assert.equal(prompt.split(' ').length, 50);
    assert.equal(prompt, prompt.trim());
    const typist = new Typist(page);
    await typeWithMistakes(typist, prompt);
    const { value, durationMs } = await checkResult(page, 'words', prompt, typist);
    // Accuracy: one wrong key fixed and one left, over every key typed.
    const keystrokes = [...typist.typed].length + 1;
    assertShown((await figure(page, 'accuracy')).replace(' %', ''), ((keystrokes - 2) / keystrokes) * 100, 'accuracy');
    assertShown((await figure(page, 'raw')).replace(' WPM', ''), keystrokes / 5 / (durationMs / 60_000), 'raw');
    assert.match(await figure(page, 'consistency'), /^\d{1,3} %$/);
    assertShown((await figure(page, 'time')).replace(' s', ''), durationMs / 1000, 'time');
    await page.getByTestId('saved').waitFor();
    await page.getByTestId('new-best').waitFor();
    assert.equal(await page.getByTestId('best-words').getAttribute('data-value'), String(value));
    assert.match(await page.getByTestId('best-words').textContent(), /^\d+\.\d\d WPM$/);
    // Delivered, nothing is pending: no Retry button to press.
    await page.locator('[data-testid=sync-status][data-pending="0"]').waitFor();
    assert.equal(await page.getByTestId('retry').count(), 0);
    // The chart and figures are there.
    await page.getByTestId('speed-chart').waitFor();

    // The personal best survives a reload: it is read back from IndexedDB `keydo`.
    await page.reload();
    await page.getByTestId('best-words').waitFor();
    assert.equal(await page.getByTestId('best-words').getAttribute('data-value'), String(value));
    const databases = await page.evaluate(async () => (await indexedDB.databases()).map((d) => d.name));
    assert.ok(databases.includes('keydo'), databases.join());
    await page.close();
  });

  test('quote: one passage with its attribution', async () => {
    const page = await openGame(context, 202);
    const prompt = await startMode(page, 'quote');
    assert.match(await page.locator('.attribution').textContent(), /^— .+, .+/);
    const typist = new Typist(page);
    await typeWithMistakes(typist, prompt);
    await checkResult(page, 'quote', prompt, typist);
    await page.getByTestId('saved').waitFor();
    await page.close();
  });

  test('zh: IME commits are scored in 字/分, compositions never count', async () => {
    const page = await openGame(context, 303);
    const prompt = await startMode(page, 'zh');
    const cdp = await context.newCDPSession(page);
    const typist = new Typist(page);
    const chars = [...prompt];
    const wrong = (char) => (char === '错' ? '对' : '错');
    const marks = () =>
      page.getByTestId('prompt').evaluate((el) => ({
        correct: el.querySelectorAll('.correct').length,
        incorrect: el.querySelectorAll('.incorrect').length,
      }));
    for (let i = 0; i < chars.length; ) {
      if (i === 2) {
        // A composition in progress, however wrong it looks, marks and counts nothing.
        const before = await marks();
        await cdp.send('Input.imeSetComposition', { text: 'qqq', selectionStart: 3, selectionEnd: 3 });
        typist.keys += 1;
        await page.waitForFunction(() => document.querySelector('[data-testid=input]').value === 'qqq');
        assert.deepEqual(await marks(), before, 'composing is not scored');
        // A wrong 字 committed, then fixed with backspace: only accuracy remembers it.
        await typist.compose(cdp, ['cuo'], wrong(chars[i]));
        await typist.backspace();
        await typist.compose(cdp, ['p', 'pi'], chars[i]);
        i += 1;
      } else if (i === 5) {
        // A wrong 字 left in: 错一罚五.
        await typist.compose(cdp, ['c', 'cu'], wrong(chars[i]));
        i += 1;
      } else if (i === 6 && chars.length >= 8) {
        // Two 字 in one commit (a phrase): each is a keystroke.
        await typist.compose(cdp, ['c', 'ci', 'ci z'], chars[6] + chars[7]);
        i += 2;
      } else {
        await typist.compose(cdp, ['p', 'pi'], chars[i]);
        i += 1;
      }
    }
    const { durationMs, counts } = await checkResult(page, 'zh', prompt, typist);
    // The numbers 跟打 players compare, every composition key counted.
    assertShown((await figure(page, 'keys-per-second')).replace(' /s', ''), typist.keys / (durationMs / 1000), '击键');
    assertShown(await figure(page, 'keys-per-char'), typist.keys / (counts.correct + counts.errors), '码长');
    assert.equal(await figure(page, 'corrections'), String(typist.corrections));
    assert.equal(typist.corrections, 1);
    assert.equal(await figure(page, 'errors'), String(counts.errors));
    await page.getByTestId('saved').waitFor();
    await page.close();
  });

  test('restart: Esc, and Tab then Enter, bring a new prompt and a fresh game', async () => {
    const page = await openGame(context, 404);
    const first = await startMode(page, 'words');
    const typed = () => page.getByTestId('prompt').locator('.correct, .incorrect').count();
    await page.keyboard.type(first.slice(0, 4));
    assert.equal(await typed(), 4);

    await page.keyboard.press('Escape');
    await page.waitForFunction((old) => document.querySelector('[data-testid=prompt]').textContent !== old, first);
    const second = await page.getByTestId('prompt').textContent();
    assert.equal(await typed(), 0);
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'input');

    await page.keyboard.type(second.slice(0, 3));
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.waitForFunction((old) => document.querySelector('[data-testid=prompt]').textContent !== old, second);
    assert.equal(await typed(), 0);
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'input');
    await page.close();
  });

  test('the caret: lit while keys come, blinking once they stop, and no animation runs meanwhile', async () => {
    const page = await openGame(context, 405);
    const prompt = await startMode(page, 'words');
    await page.evaluate(() => {
      const seen = { keys: [], turns: [] };
      globalThis.__caret = seen;
      const element = document.querySelector('[data-testid=prompt]');
      addEventListener('keydown', () => seen.keys.push(performance.now()), { capture: true });
      let off = element.classList.contains('caret-off');
      new MutationObserver(() => {
        if (element.classList.contains('caret-off') !== off) {
          off = !off;
          seen.turns.push({ at: performance.now(), off });
        }
      }).observe(element, { attributes: true, attributeFilter: ['class'] });
    });
    const caretSize = () =>
      page.evaluate(() => getComputedStyle(document.querySelector('[data-testid=prompt] .current')).backgroundSize);

    await page.keyboard.type(prompt.slice(0, 30), { delay: KEY_GAP_MS });
    assert.equal(await page.evaluate(() => document.getAnimations().length), 0, 'no animation runs a frame per vsync');
    await page.waitForFunction(() => globalThis.__caret.turns.length >= 3, null, { timeout: 5000 });
    const { keys, turns } = await page.evaluate(() => globalThis.__caret);
    const lastKey = keys.at(-1);
    assert.equal(keys.length, 30);
    assert.ok(turns.every((turn) => turn.at > lastKey), `dark only after the last key: ${JSON.stringify({ lastKey, turns })}`);
    assert.ok(turns[0].off && turns[0].at - lastKey >= 450, 'dark half a second after the last key');
    assert.deepEqual(turns.slice(0, 3).map((turn) => turn.off), [true, false, true], 'then blinking');

    // The bar is drawn lit and dark; with reduced motion, always lit.
    await page.waitForFunction(() => document.querySelector('[data-testid=prompt]').classList.contains('caret-off'));
    assert.equal(await caretSize(), '0px 0px');
    await page.emulateMedia({ reducedMotion: 'reduce' });
    assert.equal(await caretSize(), '2px 100%');
    await page.emulateMedia({ reducedMotion: 'no-preference' });

    // A key lights it at once.
    await page.keyboard.type(prompt[30]);
    assert.equal(await page.evaluate(() => document.querySelector('[data-testid=prompt]').classList.contains('caret-off')), false);
    assert.equal(await caretSize(), '2px 100%');
    await page.close();
  });

  test('time: lasts exactly 60 s from the first keystroke', async () => {
    const page = await openGame(context, 505);
    const prompt = await startMode(page, 'time');
    assert.equal(await page.getByTestId('timer').textContent(), '60');
    const typist = new Typist(page);
    // About 5 s of typing with a fixed and a kept mistake, then the clock runs out.
    const words = prompt.split(' ').slice(0, 12).join(' ');
    await typeWithMistakes(typist, words);
    await typist.type(' ');
    const { value } = await checkResult(page, 'time', prompt, typist, {
      min: 60_000,
      max: 60_000,
    });
    // The result came no earlier than 60 s after the first keystroke.
    assert.ok(performance.now() - typist.first.start >= 60_000);
    assert.ok(value > 0);
    await page.getByTestId('saved').waitFor();
    await page.close();
  });
});

describe('texts that fail to load', () => {
  for (const [name, response] of [
    ['a server error', { status: 500, body: 'oops' }],
    ['garbage', { status: 200, contentType: 'application/json', body: '[{"id": "x", "tex' }],
  ]) {
    test(`quotes.json answering ${name}: a clear message in quote, the other modes still play`, async () => {
      // No service worker: its precache would answer before the route could.
      const context = await browser.newContext({ serviceWorkers: 'block' });
      try {
        const page = await context.newPage();
        await page.route('**/texts/quotes.json', (route) => route.fulfill(response));
        await page.goto(`${server.origin}/?seed=606`);
        await page.getByTestId('mode-quote').click();
        const error = page.getByTestId('texts-error');
        await error.waitFor();
        assert.match(await error.textContent(), /quotes\.json.*could not be loaded.*other modes still play/);
        assert.equal(await page.getByTestId('prompt').count(), 0);

        const prompt = await startMode(page, 'words');
        const typist = new Typist(page);
        await typist.type(prompt);
        await checkResult(page, 'words', prompt, typist);
      } finally {
        await context.close();
      }
    });
  }
});
