// From a paste to the first key accepted (跟打, docs/genda.md; run by `make bench`;
// nothing here asserts).
//
// A text goes to the clipboard and Ctrl+V is pressed outside any field, as a player
// loads a 发文 message. Measured in the page, on its own clock:
//  - paste → ready: from the `paste` event to the first animation frame in which the
//    prompt shows the text's start and the typing field has the focus (the game is
//    ready for a key);
//  - first key → drawn: from the first key's `beforeinput` to the first animation
//    frame in which the prompt marks that character typed.
// Their sum is what a player waits beyond their own reaction. Three texts: a short
// sentence, and the longest a player may load in each language (3,000 字 of Chinese,
// 6,000 characters of English), built from the shipped passages. ROUNDS of each,
// alternated, so a slow spell of the machine falls on all three.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, launchBrowser, startServer } from '../tests/e2e/harness.mjs';
import { typingFocused } from '../tests/e2e/play.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 7);
/** The caps of a loaded text (core/src/text/mod.rs, docs/genda.md). */
const MAX_ZH_CHARS = 3_000;
const MAX_EN_CHARS = 6_000;

const passages = (file) => JSON.parse(readFileSync(join(ROOT, 'assets', 'texts', file), 'utf8')).map((p) => p.text);
/** `pieces` joined by `separator` and repeated as needed, cut at `chars` characters (no trailing space). */
function longest(pieces, separator, chars) {
  let text = '';
  for (let i = 0; [...text].length < chars; i++) text += (i ? separator : '') + pieces[i % pieces.length];
  return [...text].slice(0, chars).join('').trimEnd();
}
const TEXTS = [
  { name: 'a short English sentence', text: 'The quick brown fox jumps over the lazy dog.', ime: false },
  { name: '3,000 字 of Chinese', text: longest(passages('zh.json'), '', MAX_ZH_CHARS), ime: true },
  { name: '6,000 characters of English', text: longest(passages('quotes.json'), ' ', MAX_EN_CHARS), ime: false },
];

const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
const summary = (xs) =>
  `p50 ${percentile(xs, 0.5).toFixed(1)} ms, p95 ${percentile(xs, 0.95).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms`;

/** Installed before the page's scripts: stamps the paste and the first key on the page's clock. */
function instrument() {
  window.__pasteBench = {};
  window.addEventListener('paste', () => (window.__pasteBench.paste = performance.now()), { capture: true });
  window.addEventListener(
    'beforeinput',
    () => (window.__pasteBench.key ??= performance.now()),
    { capture: true },
  );
}

/**
 * Polls every animation frame in the page until `what` holds — `ready` (the prompt
 * starts with `start`, the typing field has the focus) or `drawn` (the prompt's first
 * character is marked typed) — and returns that frame's time. The checks are written
 * here, not passed as source, because the page's Content-Security-Policy refuses eval.
 */
function frameWhen(page, what, start = '') {
  return page.evaluate(
    ([what, start]) =>
      new Promise((resolve, reject) => {
        const prompt = () => document.querySelector('[data-testid="prompt"]');
        const holds = {
          ready: () => prompt()?.textContent.startsWith(start) && document.activeElement?.dataset.testid === 'input',
          drawn: () => prompt()?.querySelector('.line .ch')?.classList.contains('correct'),
        }[what];
        const deadline = performance.now() + 30_000;
        const poll = () => {
          if (holds()) resolve(performance.now());
          else if (performance.now() > deadline) reject(new Error(`${what}: not reached in 30 s`));
          else requestAnimationFrame(poll);
        };
        requestAnimationFrame(poll);
      }),
    [what, start],
  );
}

const server = await startServer();
const browser = await launchBrowser();
try {
  const context = await browser.newContext();
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin });
  await context.addInitScript(instrument);
  const page = await context.newPage();
  const results = TEXTS.map(() => ({ ready: [], key: [] }));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, { text, ime }] of TEXTS.entries()) {
      await page.goto(server.origin + '/');
      // The page's own game has the focus once the app runs: its paste handler is on.
      await typingFocused(page);
      await page.evaluate((text) => navigator.clipboard.writeText(text), text);
      await page.evaluate(() => document.activeElement?.blur());
      await page.keyboard.press('ControlOrMeta+V');
      const start = [...text].slice(0, 20).join('');
      const ready = await frameWhen(page, 'ready', start);
      const first = [...text][0];
      if (ime) {
        const cdp = await context.newCDPSession(page);
        await cdp.send('Input.insertText', { text: first });
        await cdp.detach();
      } else {
        await page.keyboard.type(first);
      }
      const drawn = await frameWhen(page, 'drawn');
      const stamps = await page.evaluate(() => window.__pasteBench);
      results[i].ready.push(ready - stamps.paste);
      results[i].key.push(drawn - stamps.key);
    }
  }
  console.log(`== paste to first key accepted: ${ROUNDS} rounds, headless Chromium, loopback server`);
  for (const [i, { name, text }] of TEXTS.entries()) {
    const { ready, key } = results[i];
    console.log(`${name} (${[...text].length} characters)`);
    console.log(`  paste → ready:       ${summary(ready)}`);
    console.log(`  first key → drawn:   ${summary(key)}`);
    console.log(`  together:            ${summary(ready.map((r, j) => r + key[j]))}`);
  }
} finally {
  await browser.close();
  await server.stop();
}
