// Nothing played is lost while the page is open: a finished game whose IndexedDB
// write fails (injected: the browser refuses the write transaction, as when the
// storage quota is used up) stays in the tab, is shown as "Not saved yet", guards the
// tab against closing, and is saved and delivered once the database takes it again.
// So does a game that ends while the module that holds the write (with the result
// screen, fetched once the game is drawn) cannot be fetched (docs/performance.md, "What loads first").
// And a browser that refuses persistent storage gets one dismissible note, once a
// result waits to be sent.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DRAWN_MODULE, launchBrowser, refuseUntilLowered, startServer } from './harness.mjs';
import {
  PACE,
  board,
  eventually,
  humanPause,
  playGame,
  readOutbox,
  shortSeed,
  waitPending,
} from './play.mjs';

let browser;
let server;
let seed;
before(async () => {
  browser = await launchBrowser();
  server = await startServer();
  const context = await browser.newContext();
  seed = await shortSeed(await context.newPage(), server.origin, 'quote', 130);
  await context.close();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

/**
 * While `globalThis.__keydoFailWrites` is set, every readwrite transaction that would
 * record a game throws the browser's quota error; `__keydoFailedWrites` counts them.
 */
function failRecordingWhileFlagged() {
  const transaction = IDBDatabase.prototype.transaction;
  IDBDatabase.prototype.transaction = function (stores, mode, ...rest) {
    const names = typeof stores === 'string' ? [stores] : [...stores];
    if (globalThis.__keydoFailWrites && mode === 'readwrite' && names.includes('history')) {
      globalThis.__keydoFailedWrites = (globalThis.__keydoFailedWrites ?? 0) + 1;
      throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
    }
    return transaction.call(this, stores, mode, ...rest);
  };
}

/** Starts a quote and types it to its end, without saving's wait that `playGame` has. */
async function typeQuote(page) {
  await page.getByTestId('mode-quote').click();
  const prompt = await page.getByTestId('prompt').textContent();
  await page.getByTestId('input').focus();
  // A person's rhythm: a metronome's game would be held for review, off the board.
  for (const ch of prompt) {
    await page.keyboard.type(ch);
    await humanPause(PACE.fast.en);
  }
}

test('a game whose write fails is kept in the tab, retried, then saved and delivered', async () => {
  const context = await browser.newContext();
  await context.addInitScript(failRecordingWhileFlagged);
  try {
    const page = await context.newPage();
    await page.goto(`${server.origin}/?seed=${seed}`);
    await page.evaluate(() => {
      globalThis.__keydoFailWrites = true;
    });
    await typeQuote(page);

    const notSaved = page.getByTestId('not-saved-yet');
    await notSaved.waitFor();
    assert.match(await notSaved.textContent(), /^Not saved yet: .+ tries again\.$/);
    assert.match(await page.getByTestId('unsaved').textContent(), /^1 result not saved yet/);
    // It keeps trying (1 s, then 2 s later), and nothing reached the database.
    await eventually(() => page.evaluate(() => globalThis.__keydoFailedWrites >= 2), 10_000);
    assert.equal(await page.getByTestId('saved').count(), 0);
    assert.deepEqual(await readOutbox(page), []);

    // Closing the tab now would lose the game: the browser asks first.
    const asked = page.waitForEvent('dialog');
    await page.close({ runBeforeUnload: true });
    const dialog = await asked;
    assert.equal(dialog.type(), 'beforeunload');
    await dialog.dismiss();
    assert.equal(page.isClosed(), false);

    // The database takes writes again: the next attempt (at most 30 s away) saves it.
    await page.evaluate(() => {
      globalThis.__keydoFailWrites = false;
    });
    await page.getByTestId('saved').waitFor({ timeout: 35_000 });
    const value = Number(await page.getByTestId('result-value').getAttribute('data-value'));
    assert.equal(await notSaved.count(), 0);
    assert.equal(await page.getByTestId('unsaved').count(), 0);
    assert.equal(await page.getByTestId('best-quote').getAttribute('data-value'), String(value));
    // "Saved" can show a moment before the sync panel counts the new outbox entry, so
    // the delivery itself is what is awaited.
    await eventually(async () => (await board(server.origin, 'quote')).includes(value));
    assert.deepEqual(await board(server.origin, 'quote'), [value]);
    await waitPending(page, 0);
    assert.equal(await page.getByTestId('retry').count(), 0, 'nothing pending, no Retry');

    // Saved: closing no longer asks.
    const dialogs = [];
    page.on('dialog', (d) => {
      dialogs.push(d.type());
      d.dismiss();
    });
    const closed = page.waitForEvent('close');
    await page.close({ runBeforeUnload: true });
    await closed;
    assert.deepEqual(dialogs, []);
  } finally {
    await context.close();
  }
});

test('a game that ends before the code that saves it is in is kept in the tab, then saved once it loads', async () => {
  // No worker: every fetch of the module that holds the write reaches the route below.
  const context = await browser.newContext({ serviceWorkers: 'block' });
  try {
    const page = await context.newPage();
    // The module fetched once the game is drawn (the result screen, the durable write)
    // cannot be fetched until the refusal is lowered, as when the connection drops
    // once the game is drawn.
    const refusal = await refuseUntilLowered(page, DRAWN_MODULE, 'internetdisconnected');
    await page.goto(`${server.origin}/?seed=${seed}`);
    await typeQuote(page);

    // The game is over; its result lives in the tab only, and the tab says so.
    await page
      .getByTestId('on-demand-error')
      .filter({ hasText: 'The result could not be loaded; trying again.' })
      .waitFor({ timeout: 10_000 });
    await page.getByTestId('unsaved').waitFor({ timeout: 10_000 });
    assert.match(await page.getByTestId('unsaved').textContent(), /^1 result not saved yet/);
    assert.deepEqual(await readOutbox(page), []);
    const asked = page.waitForEvent('dialog');
    await page.close({ runBeforeUnload: true });
    const dialog = await asked;
    assert.equal(dialog.type(), 'beforeunload');
    await dialog.dismiss();

    // The module can be fetched again: the next attempts show the result and save it.
    const refusedWhileOut = refusal.refused();
    assert.ok(refusedWhileOut >= 2, `refused ${refusedWhileOut} times`);
    refusal.lower();
    await page.getByTestId('saved').waitFor({ timeout: 35_000 });
    const value = Number(await page.getByTestId('result-value').getAttribute('data-value'));
    assert.equal(await page.getByTestId('unsaved').count(), 0);
    assert.equal(await page.getByTestId('best-quote').getAttribute('data-value'), String(value));
    await eventually(async () => (await board(server.origin, 'quote')).includes(value));
    await waitPending(page, 0);
  } finally {
    await context.close();
  }
});

/** Makes the browser answer `navigator.storage.persist()` with `granted`. */
function answerPersist(granted) {
  StorageManager.prototype.persisted = async () => false;
  StorageManager.prototype.persist = async () => granted;
}

/** The game in a fresh profile whose browser answers `persist()` with `granted`. */
async function openAnsweringPersist(granted) {
  const context = await browser.newContext();
  await context.addInitScript(answerPersist, granted);
  const page = await context.newPage();
  await page.goto(server.origin + '/');
  return { context, page, note: page.getByTestId('persist-note') };
}

test('a refused persistent storage is noted while a result waits, until dismissed', async () => {
  const { context, page, note } = await openAnsweringPersist(false);
  try {
    // Nothing unsent yet: nothing an eviction could lose, so no note.
    await page.waitForSelector('[data-testid="persist-note"][data-state="refused"]', {
      state: 'attached',
    });
    assert.ok(await note.isHidden());

    // The API unreachable: the game's result waits in the outbox.
    await context.route('**/api/**', (route) => route.abort('internetdisconnected'));
    await playGame(page, server.origin, { mode: 'quote', seed });
    await waitPending(page, 1);
    await note.waitFor({ state: 'visible' });
    assert.match(await note.textContent(), /did not grant KeyDo persistent storage/);

    await page.getByTestId('persist-dismiss').click();
    await page.waitForSelector('[data-testid="persist-note"][data-state="dismissed"]', {
      state: 'attached',
    });
    assert.ok(await note.isHidden());

    // Refused again on the next visit, but the player has read the note.
    await page.reload();
    await page.waitForSelector('[data-testid="persist-note"][data-state="dismissed"]', {
      state: 'attached',
    });
    assert.ok(await note.isHidden());
  } finally {
    await context.close();
  }
});

test('granted persistent storage shows no note', async () => {
  const { context, page, note } = await openAnsweringPersist(true);
  try {
    await page.waitForSelector('[data-testid="persist-note"][data-state="granted"]', {
      state: 'attached',
    });
    assert.ok(await note.isHidden());
  } finally {
    await context.close();
  }
});
