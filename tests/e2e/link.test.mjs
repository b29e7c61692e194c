// Linking asks first (docs/profile.md, "Devices"): a page opened from a link address
// fills the code in and sends nothing; "Link this device…" says in words what joining
// will do to this device's save (its name, its best, whom it joins); Cancel changes
// nothing — the name, the devices and the best on the board stay — and only "Join"
// folds the save into the other player, whose board then shows this device's best.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launchBrowser, readRecord, startServer } from './harness.mjs';
import { eventually, playGame, shortSeed } from './play.mjs';

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

/** A device: its own browser context (its own IndexedDB), with the page open. */
async function device() {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(server.origin);
  return { context, page };
}

async function openPanel(page) {
  const panel = page.getByTestId('profile-panel');
  if ((await panel.getAttribute('open')) === null) await panel.locator('summary').click();
}

function shownName(page) {
  return page.getByTestId('profile-display-name').textContent();
}

/** Names the device's save `name` and waits until the server has it. */
async function rename(page, name) {
  await openPanel(page);
  await page.getByTestId('profile-name').fill(name);
  await page.getByTestId('profile-name-save').click();
  await eventually(
    async () =>
      (await shownName(page)) === name &&
      (await page.getByTestId('profile-sync').getAttribute('data-queued')) === '0',
    30_000,
  );
}

/** The all-time quote board as the API answers it: [displayName, value] per entry. */
async function quoteBoard() {
  const answer = await (await fetch(`${server.origin}/api/leaderboard?mode=quote&board=alltime`)).json();
  return answer.entries.map((e) => [e.displayName, e.value]);
}

/** How many devices the page lists once asked (the first listing on this page). */
async function deviceCount(page) {
  await page.getByTestId('devices-refresh').click();
  let count;
  await eventually(async () => {
    count = await page.getByTestId('device').count();
    return count > 0;
  }, 10_000);
  return count;
}

test('a link address shows what joining does, cancelling changes nothing, and joining keeps the best', async () => {
  const phone = await device();
  await rename(phone.page, 'Swift Otter');
  await phone.page.getByTestId('link-code-show').click();
  const code = await phone.page.getByTestId('link-code').textContent();

  // The laptop has a save of its own, with a best on the board.
  const laptop = await device();
  const seed = await shortSeed(laptop.page, server.origin, 'quote', 130);
  const best = await playGame(laptop.page, server.origin, { mode: 'quote', seed });
  await rename(laptop.page, 'Calm Dolphin');
  await eventually(async () => (await quoteBoard()).some(([name]) => name === 'Calm Dolphin'));
  const before = await readRecord(laptop.page, 'meta', 'save');

  // Opened from the QR code's address: the code is filled in, and nothing is sent.
  const linkRequests = [];
  laptop.page.on('request', (request) => {
    if (request.url().includes('/api/devices')) linkRequests.push(`${request.method()} ${request.url()}`);
  });
  await laptop.page.goto(`${server.origin}/#link=${code}`);
  await laptop.page.reload();
  const input = laptop.page.getByTestId('link-code-input');
  await eventually(async () => (await input.inputValue()) === code, 10_000);
  await laptop.page.waitForTimeout(1_000);
  assert.deepEqual(linkRequests, [], 'a code from the address is never sent by itself');

  // Asked: the page says what will happen, in words, and waits.
  await laptop.page.getByTestId('link-code-submit').click();
  const words = await laptop.page.getByTestId('link-confirm-words').textContent();
  const wpm = (best / 100).toFixed(2);
  assert.equal(
    words,
    `This device's save Calm Dolphin, best ${wpm} WPM in Quote, joins Swift Otter; its name is ` +
      'replaced by Swift Otter, and any other device playing as Calm Dolphin is signed out. ' +
      'Its results and bests are kept and count for Swift Otter.',
  );
  assert.equal(await laptop.page.getByTestId('link-confirm-join').textContent(), 'Join Swift Otter');
  assert.deepEqual(
    linkRequests.map((r) => r.replace(server.origin, '')),
    ['POST /api/devices/link-codes/check'],
    'checking whose the code is, only',
  );

  // Cancelled: nothing changed, here or on the server.
  await laptop.page.getByTestId('link-confirm-cancel').click();
  assert.match(await laptop.page.getByTestId('link-result').textContent(), /Not linked/);
  assert.equal(await laptop.page.getByTestId('link-confirm').count(), 0);
  assert.equal(await shownName(laptop.page), 'Calm Dolphin');
  assert.deepEqual(await readRecord(laptop.page, 'meta', 'save'), before);
  assert.equal(await deviceCount(laptop.page), 1);
  assert.deepEqual(
    (await quoteBoard()).filter(([name]) => name === 'Calm Dolphin'),
    [['Calm Dolphin', best]],
  );
  assert.ok(!linkRequests.some((r) => r.startsWith('POST') && r.endsWith('/api/devices')), 'no link was sent');

  // Confirmed: the laptop joins the phone's player, and its best counts for it.
  await laptop.page.getByTestId('link-code-submit').click();
  await laptop.page.getByTestId('link-confirm-join').click();
  await laptop.page.getByText('This device now plays as Swift Otter').waitFor();
  await eventually(async () => (await shownName(laptop.page)) === 'Swift Otter', 20_000);
  const after = await readRecord(laptop.page, 'meta', 'save');
  const phoneSave = await readRecord(phone.page, 'meta', 'save');
  assert.equal(after.playerId, phoneSave.playerId);
  assert.deepEqual(await quoteBoard(), [['Swift Otter', best]]);
  // Both devices of the player; the list shown before is replaced once the answer comes.
  await laptop.page.getByTestId('devices-refresh').click();
  await eventually(async () => (await laptop.page.getByTestId('device').count()) === 2, 10_000);
  await phone.context.close();
  await laptop.context.close();
});
