// What loads first (docs/performance.md): the game takes keys before any on-demand
// module has arrived, appears with its first prompt (a second after its wasm when the
// word list does not come), and opens as the player's settings say; the panels below the
// game load once they come into view; each
// module loads when first needed, offline too (from the
// precache); a module whose load fails is tried again and the game plays on (the
// offline status's too, which registers the worker), styles that fail to load are
// fetched again, and a text pasted while its reader cannot be fetched is kept.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  DRAWN_MODULE,
  PRACTICE_MODULE,
  launchBrowser,
  openControlled,
  refuseFirst,
  refuseUntilLowered,
  startServer,
} from './harness.mjs';
import { eventually, typingFocused } from './play.mjs';

/** An on-demand module's file: `keydo-lazy-<module>-<hash>.wasm` (or a chunk they share). */
const LAZY = /\/keydo-lazy-[^/]*\.wasm$/;
/** The name of the module a file is, `split_<name>` in the build's naming. */
const moduleOf = (url) => url.match(/\/keydo-lazy-split_([a-z_]+)-[0-9a-f]{16}\.wasm$/)?.[1];

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

/** Records, in order, every on-demand module the page finished loading. */
function loadedModules(page) {
  const loaded = [];
  page.on('requestfinished', (request) => {
    const name = moduleOf(request.url());
    if (name) loaded.push(name);
  });
  return loaded;
}

/** How many of the prompt's characters show as typed correctly. */
const correctChars = (page) => page.locator('[data-testid="prompt"] .ch.correct').count();

/** Types the prompt's first `count` characters and waits until they show as correct. */
async function typePromptStart(page, count) {
  const prompt = await page.getByTestId('prompt').textContent();
  await page.keyboard.type(prompt.slice(0, count));
  await page.waitForFunction(
    (n) => document.querySelectorAll('[data-testid="prompt"] .ch.correct').length === n,
    count,
    { timeout: 10_000 },
  );
}

test('the first keystroke is accepted before any on-demand module has loaded', async () => {
  const context = await browser.newContext({ serviceWorkers: 'block' });
  const page = await context.newPage();
  // Every on-demand module is held back until the keys are in.
  let release;
  const released = new Promise((resolve) => (release = resolve));
  const held = [];
  await page.route(LAZY, async (route) => {
    held.push(route.request().url());
    await released;
    await route.continue();
  });
  const loaded = loadedModules(page);
  await page.goto(server.origin);
  await typingFocused(page);
  await typePromptStart(page, 5);
  assert.deepEqual(loaded, [], 'no on-demand module had loaded when the keys were taken');
  assert.ok(held.length > 0, 'the page asked for its on-demand modules while the game played');
  release();
  await page.locator('#leaderboard-title').waitFor({ timeout: 30_000 });
  assert.ok(loaded.includes('panels'), `loaded: ${loaded}`);
  assert.equal(await correctChars(page), 5, 'the game kept its keys');
  await context.close();
});

/** The stylesheet of what loads on demand, `on-demand-<hash>.css`. */
const ON_DEMAND_STYLES = /\/on-demand-[0-9a-f]{16}\.css$/;

/** The leaderboard panel's corner radius, which only the on-demand styles give it. */
const leaderboardRadius = (page) =>
  page.locator('.leaderboard').evaluate((panel) => getComputedStyle(panel).borderTopLeftRadius);

test('the game appears with its first prompt, or a second later without a late word list', async () => {
  const context = await browser.newContext({ serviceWorkers: 'block' });
  // Whether the prompt was still loading when the game's mode picker first appeared.
  await context.addInitScript(() => {
    new MutationObserver((_, observer) => {
      if (document.querySelector('[data-testid="mode-zh"]')) {
        window.promptLoadingWithGame = document.querySelector('.prompt-loading') !== null;
        window.gameAppearedAt = performance.now();
        observer.disconnect();
      }
    }).observe(document, { childList: true, subtree: true });
  });
  const page = await context.newPage();
  await page.goto(server.origin);
  await typingFocused(page);
  assert.equal(await page.evaluate(() => window.promptLoadingWithGame), false, 'the game appeared before its prompt');
  // The fonts' warm-up (index.html) is laid out, one face a frame, unseen and unread.
  await page.waitForFunction(() => [...document.getElementById('font-warmup').children].every((face) => !face.hidden));
  const warmup = await page.locator('#font-warmup').evaluate((p) => {
    const { width, height } = p.getBoundingClientRect();
    return { width, height, clip: getComputedStyle(p).clipPath, read: p.ariaHidden !== 'true' };
  });
  assert.deepEqual(warmup, { width: 1, height: 1, clip: 'inset(50%)', read: false });

  // A word list that never arrives holds the game back a second, not for good.
  const held = await context.newPage();
  await held.route(/\/texts\/words\.txt$/, () => {});
  await held.goto(server.origin);
  await held.locator('.prompt-loading').waitFor({ timeout: 30_000 });
  assert.equal(await held.evaluate(() => window.promptLoadingWithGame), true);
  // Both on the page's clock: the game appeared about WORDS_WAIT after the wasm was in.
  const waited = await held.evaluate(
    () =>
      window.gameAppearedAt -
      performance.getEntriesByType('resource').find((entry) => entry.name.endsWith('_bg.wasm')).responseEnd,
  );
  assert.ok(waited >= 900 && waited < 5_000, `the game appeared ${waited.toFixed(0)} ms after its wasm`);
  await context.close();
});

/** The corpus a request is for, if it is one of the game's: `words.txt`, `zh.json`... */
const corpusOf = (url) => url.match(/\/texts\/(words\.txt|quotes\.json|zh\.json)$/)?.[1];

test('the panels, the result screen, the passages and the offline status wait for the game to be drawn', async () => {
  const context = await browser.newContext({ serviceWorkers: 'block' });
  const page = await context.newPage();
  // The texts are held, so the game shows its loading state and is not drawn.
  let releaseTexts;
  const textsReleased = new Promise((resolve) => (releaseTexts = resolve));
  await page.route(/\/texts\/(words\.txt|quotes\.json|zh\.json)$/, async (route) => {
    await textsReleased;
    await route.continue();
  });
  const asked = [];
  const corpora = [];
  page.on('request', (request) => {
    const name = moduleOf(request.url());
    if (name) asked.push(name);
    if (ON_DEMAND_STYLES.test(request.url())) asked.push('styles');
    const corpus = corpusOf(request.url());
    if (corpus) corpora.push(corpus);
  });
  await page.goto(server.origin);
  await page.locator('.prompt-loading').waitFor({ timeout: 30_000 });
  // A second of the wasm running with the game undrawn: the panels were asked for in
  // the first tasks after the mount before they waited for it.
  await page.waitForTimeout(1_000);
  const waiting = ['panels', 'drawn', 'passages', 'styles'];
  assert.deepEqual(
    asked.filter((name) => waiting.includes(name)),
    [],
    `asked for while the texts loaded: ${asked}`,
  );
  // A first visit plays from the word list: the passages are not fetched beside it.
  assert.deepEqual([...new Set(corpora)], ['words.txt'], `fetched while undrawn: ${corpora}`);
  releaseTexts();
  await typingFocused(page);
  await page.locator('#leaderboard-title').waitFor({ timeout: 30_000 });
  await page.getByTestId('profile-panel').waitFor({ timeout: 30_000 });
  await eventually(() => ['quotes.json', 'zh.json'].every((c) => corpora.includes(c)));
  // The passages' reader comes with them.
  await eventually(() => asked.includes('passages'));
  for (const name of waiting) assert.ok(asked.includes(name), `${name} asked for once drawn; asked: ${asked}`);
  assert.equal(corpora.filter((c) => c === 'zh.json').length, 1, `fetched once: ${corpora}`);
  // The panels are drawn with their styles (a rounded border, from on-demand.css),
  // which joined the page's own sheet: one sheet, as when they were inlined.
  assert.equal(await leaderboardRadius(page), '12px');
  assert.equal(await page.evaluate(() => document.styleSheets.length), 1);
  // And they play.
  await page.getByTestId('mode-zh').click();
  await page.locator('[data-testid="prompt"][lang="zh-Hans"] .ch').first().waitFor();
  await context.close();
});

test('a passage the game plays is fetched before the game is drawn', async () => {
  const context = await browser.newContext({ serviceWorkers: 'block' });
  const page = await context.newPage();
  // The word list never arrives, so the game is never drawn in its first mode.
  await page.route(/\/texts\/words\.txt$/, () => {});
  await page.goto(server.origin);
  await page.locator('.prompt-loading').waitFor({ timeout: 30_000 });
  await page.getByTestId('mode-zh').click();
  await typingFocused(page);
  const prompt = await page.getByTestId('prompt').textContent();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Input.insertText', { text: prompt[0] });
  await page.waitForFunction(
    () => document.querySelectorAll('[data-testid="prompt"] .ch.correct').length === 1,
    null,
    { timeout: 10_000 },
  );
  await context.close();
});

test('on a phone, the panels below the game load once scrolled to', async () => {
  const context = await browser.newContext({
    serviceWorkers: 'block',
    viewport: { width: 412, height: 823 },
  });
  const page = await context.newPage();
  const asked = [];
  page.on('request', (request) => {
    const name = moduleOf(request.url());
    if (name) asked.push(name);
  });
  await page.goto(server.origin);
  await typingFocused(page);
  const side = page.locator('aside.side');
  const below = await side.evaluate((aside) => aside.getBoundingClientRect().top - window.innerHeight);
  assert.ok(below > 0, `the panels start ${below} px below the window's end`);
  // The module the game needs next (its result screen, the sync, the offline status)
  // is fetched once it is drawn; the panels wait.
  await page.waitForFunction(
    () => performance.getEntriesByType('resource').some((e) => /keydo-lazy-split_drawn-/.test(e.name)),
    null,
    { timeout: 30_000 },
  );
  await page.waitForTimeout(1_000);
  assert.ok(!asked.includes('panels'), `the panels were asked for off screen: ${asked}`);
  await side.scrollIntoViewIfNeeded();
  await page.locator('#leaderboard-title').waitFor({ timeout: 30_000 });
  await page.getByTestId('profile-panel').waitFor({ timeout: 30_000 });
  assert.equal(asked.filter((name) => name === 'panels').length, 1, `the panels asked for once in view: ${asked}`);
  await context.close();
});

test('each on-demand module loads when first needed, offline too, from the precache', async () => {
  const context = await browser.newContext();
  const installed = await openControlled(context, server.origin);
  await installed.getByText('Ready to play offline').waitFor({ timeout: 30_000 });
  await installed.close();
  await context.setOffline(true);
  const page = await context.newPage();
  const loaded = loadedModules(page);
  const fromWorker = [];
  page.on('response', (response) => {
    if (moduleOf(response.url()) && response.fromServiceWorker()) fromWorker.push(moduleOf(response.url()));
  });
  await page.goto(server.origin);
  await typingFocused(page);
  await page.locator('#leaderboard-title').waitFor({ timeout: 30_000 });
  await page.getByTestId('profile-panel').waitFor({ timeout: 30_000 });
  assert.ok(!loaded.includes('practice'), `practice waits until it is opened; loaded: ${loaded}`);
  assert.ok(!loaded.includes('loader'), `the text reader waits for a text; loaded: ${loaded}`);
  await page.getByTestId('practice-panel').locator('summary').click();
  await page.getByTestId('practice-english').waitFor({ timeout: 30_000 });
  // A loaded text is read by the `loader` module; the result screen's module (`drawn`)
  // came once the game was drawn, and shows the end of this game on it.
  await page.getByTestId('load-text-panel').locator('summary').click();
  await page.getByTestId('load-text-field').fill('On demand.');
  await page.getByTestId('load-text').click();
  await page.waitForFunction(
    () => document.querySelector('[data-testid="prompt"]')?.textContent === 'On demand.',
    null,
    { timeout: 30_000 },
  );
  await typingFocused(page);
  await page.keyboard.type('On demand.', { delay: 120 });
  await page.getByTestId('result').waitFor({ timeout: 30_000 });
  for (const name of ['panels', 'practice', 'loader', 'drawn', 'passages']) {
    assert.ok(loaded.includes(name), `${name} loaded; loaded: ${loaded}`);
    assert.ok(fromWorker.includes(name), `${name} came from the precache; from it: ${fromWorker}`);
  }
  // One reader for both passage corpora.
  for (const name of ['panels', 'practice', 'drawn', 'passages']) {
    assert.equal(loaded.filter((n) => n === name).length, 1, `${name} loaded once`);
  }
  await context.close();
});

test('the next visit opens as the settings say before any on-demand module has loaded', async () => {
  const context = await browser.newContext({ serviceWorkers: 'block' });
  const page = await context.newPage();
  await page.goto(server.origin);
  await typingFocused(page);
  await page.getByTestId('profile-panel').locator('summary').click();
  await page.getByTestId('setting-theme').selectOption('dark');
  await page.getByTestId('setting-font-size').selectOption('26');
  await page.getByTestId('setting-preferred-mode').selectOption('zh');
  const asSet = () =>
    document.documentElement.dataset.theme === 'dark' &&
    getComputedStyle(document.documentElement).getPropertyValue('--prompt-size') === '26px' &&
    document.querySelector('[data-testid="mode-zh"]')?.getAttribute('aria-pressed') === 'true' &&
    document.querySelector('[data-testid="prompt"]')?.lang === 'zh-Hans';
  // Shown once stored (docs/profile.md): the reload below finds them.
  await page.waitForFunction(asSet, null, { timeout: 10_000 });
  // The next visit, every on-demand module held back but the passages' reader, which
  // a 中文 game needs to draw its prompt: the settings come from the main module's one
  // read, not from the profile's queue (in the `drawn` module). A module's chunks load
  // only with it, so they pass.
  let held = 0;
  await page.route(/\/keydo-lazy-split_(?!passages-)[^/]*\.wasm$/, () => {
    held += 1;
  });
  await page.reload();
  await typingFocused(page);
  await page.waitForFunction(asSet, null, { timeout: 10_000 });
  assert.ok(held >= 1, 'an on-demand module was asked for, and is still held');
  await context.close();
});

test('a module whose load fails is tried again, and the game plays on meanwhile', async () => {
  const context = await browser.newContext({ serviceWorkers: 'block' });
  const page = await context.newPage();
  const refused = await refuseFirst(page, PRACTICE_MODULE, 2);
  await page.goto(server.origin);
  await typingFocused(page);
  await page.getByTestId('practice-panel').locator('summary').click();
  const error = page.getByTestId('on-demand-error');
  await error.filter({ hasText: 'The practice could not be loaded; trying again.' }).waitFor({ timeout: 10_000 });
  // The game takes keys while the module waits for its next attempt.
  await page.getByTestId('input').focus();
  await typePromptStart(page, 3);
  // Two refusals: tried again after 1 s, then 2 s; the third attempt loads.
  await page.getByTestId('practice-english').waitFor({ timeout: 30_000 });
  assert.equal(refused(), 2);
  assert.equal(await error.count(), 0, 'the error line is gone once the module is in');
  await context.close();
});

test('the offline status, whose module registers the worker, is tried again when its load fails', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  // A first visit: no worker yet to serve the module, so the refusal reaches the page.
  // The module (`drawn`) is refused until the status says so: the result's bests and
  // the sync ask for it too, and one of them may be first.
  const refusal = await refuseUntilLowered(page, DRAWN_MODULE);
  await page.goto(server.origin);
  await typingFocused(page);
  const error = page
    .getByTestId('on-demand-error')
    .filter({ hasText: 'The offline status could not be loaded; trying again.' });
  await error.waitFor({ timeout: 10_000 });
  await typePromptStart(page, 3);
  refusal.lower();
  await page.getByText('Ready to play offline').waitFor({ timeout: 30_000 });
  assert.ok(refusal.refused() >= 1, `refused ${refusal.refused()} times`);
  assert.equal(await error.count(), 0, 'the error line is gone once the module is in');
  const scope = await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.scope);
  assert.equal(scope, server.origin + '/');
  await context.close();
});

test('styles that fail to load hold back no view, and the next view loaded on demand fetches them again', async () => {
  const context = await browser.newContext({ serviceWorkers: 'block' });
  const page = await context.newPage();
  // The styles cannot be fetched until the refusal is lowered.
  const refusal = await refuseUntilLowered(page, ON_DEMAND_STYLES);
  await page.goto(server.origin);
  await typingFocused(page);
  // The panels show, without their styles.
  await page.locator('#leaderboard-title').waitFor({ timeout: 30_000 });
  assert.ok(refusal.refused() >= 1, `refused ${refusal.refused()} times`);
  assert.equal(await leaderboardRadius(page), '0px');
  await typePromptStart(page, 3);
  // The next view loaded on demand (the practice panel, opened) fetches them again,
  // and every view has its styles.
  refusal.lower();
  await page.getByTestId('practice-panel').locator('summary').click();
  await page.getByTestId('practice-english').waitFor({ timeout: 30_000 });
  await eventually(async () => (await leaderboardRadius(page)) === '12px');
  assert.equal(await page.evaluate(() => document.styleSheets.length), 1);
  await context.close();
});

test('a passage corpus whose reader fails to load is read once it loads, and the word game plays meanwhile', async () => {
  const context = await browser.newContext({ serviceWorkers: 'block' });
  const page = await context.newPage();
  const refused = await refuseFirst(page, /\/keydo-lazy-split_passages-[0-9a-f]{16}\.wasm$/, 2);
  await page.goto(server.origin);
  await typingFocused(page);
  // The passages are fetched once the game is drawn; their reader is refused twice.
  await eventually(() => refused() === 2);
  await typePromptStart(page, 3);
  // Tried again after 1 s, then 2 s: the third attempt loads, and 中文 plays.
  await page.getByTestId('mode-zh').click();
  await page.locator('[data-testid="prompt"][lang="zh-Hans"] .ch').first().waitFor({ timeout: 30_000 });
  assert.equal(refused(), 2);
  await context.close();
});

test('a text pasted while its reader cannot be fetched waits in the field, and loads on the next try', async () => {
  const context = await browser.newContext({ serviceWorkers: 'block' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin });
  const page = await context.newPage();
  const reader = /\/keydo-lazy-split_loader-[0-9a-f]{16}\.wasm$/;
  await page.route(reader, (route) => route.abort('connectionreset'));
  await page.goto(server.origin);
  await typingFocused(page);
  const before = await page.getByTestId('prompt').textContent();
  const text = 'Nothing pasted is lost.';
  await page.evaluate((t) => navigator.clipboard.writeText(t), text);
  await page.evaluate(() => document.activeElement?.blur());
  await page.keyboard.press('ControlOrMeta+V');
  const error = page.getByTestId('load-text-error');
  await error.filter({ hasText: 'could not fetch the part that reads texts' }).waitFor({ timeout: 10_000 });
  assert.equal(await page.getByTestId('load-text-field').inputValue(), text, 'the paste waits in the field');
  assert.ok(await page.getByTestId('load-text-panel').evaluate((d) => d.open), 'the field is shown');
  assert.equal(await page.getByTestId('prompt').textContent(), before, 'the game in play is left alone');
  // The network is back: the button loads the text that waited.
  await page.unroute(reader);
  await page.getByTestId('load-text').click();
  await page.waitForFunction(
    (t) => document.querySelector('[data-testid="prompt"]')?.textContent === t,
    text,
    { timeout: 30_000 },
  );
  assert.equal(await page.getByTestId('load-text-field').inputValue(), '', 'the field is emptied once loaded');
  assert.equal(await error.count(), 0);
  await context.close();
});
