// The profile across two devices (docs/profile.md), end to end: two browser contexts
// are two devices of one player, linked with a code; changes made on both while
// offline meet by the documented policies on both pages and on the leaderboard; an
// operator's name reset wins over changes queued before it, and both pages say so;
// a lost answer to a profile operation is resent under its key and applied once; a
// name being typed is not wiped out when the profile changes under it; and a change
// asks the service worker to deliver it only while offline.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { PROFILE_OPERATIONS, startFaultProxy } from './fault-proxy.mjs';
import { SERVER_BIN, launchBrowser, openControlled, readRecord, readStore, startServer } from './harness.mjs';
import { eventually, playGame, shortSeed } from './play.mjs';

let browser;
let server;
/** A short 中文 seed, found by a page without a save (so no player's requests count). */
let zhSeed;
before(async () => {
  browser = await launchBrowser();
  server = await startServer();
  const scout = await browser.newContext();
  zhSeed = await shortSeed(await scout.newPage(), server.origin, 'zh', 40);
  await scout.close();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

/** A device: its own browser context (its own IndexedDB), with the page open. */
async function device(origin = server.origin) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await openPanel(page, origin);
  return { context, page };
}

async function openPanel(page, origin = server.origin) {
  await page.goto(origin);
  await page.getByTestId('profile-panel').locator('summary').click();
}

/** What the page shows of the profile, and what its settings did to the document. */
function shown(page) {
  return page.evaluate(() => {
    const value = (id) => document.querySelector(`[data-testid="${id}"]`)?.value;
    return {
      name: document.querySelector('[data-testid="profile-display-name"]')?.textContent,
      theme: document.documentElement.dataset.theme,
      fontSize: value('setting-font-size'),
      caret: document.documentElement.dataset.caret,
      promptSize: getComputedStyle(document.documentElement).getPropertyValue('--prompt-size'),
      queued: document.querySelector('[data-testid="profile-sync"]')?.dataset.queued,
    };
  });
}

async function rename(page, name) {
  await page.getByTestId('profile-name').fill(name);
  await page.getByTestId('profile-name-save').click();
  await eventually(async () => (await shown(page)).name === name, 10_000);
}

/** Waits until the page shows `expected` (a subset of `shown`) with nothing queued. */
async function settles(page, expected, timeout = 40_000) {
  await eventually(async () => {
    const now = await shown(page);
    return now.queued === '0' && Object.entries(expected).every(([k, v]) => now[k] === v);
  }, timeout).catch(async (error) => {
    const operations = await readStore(page, 'operations');
    throw new Error(
      `${error.message}: shows ${JSON.stringify(await shown(page))}, expected ${JSON.stringify(expected)}; ` +
        `operations stored: ${JSON.stringify(operations)}`,
    );
  });
}

async function notices(page) {
  return page.getByTestId('profile-notice').allTextContents();
}

test('a change made online is sent by the page alone; one made offline asks the service worker too', async () => {
  const own = await startServer();
  const context = await browser.newContext();
  // Notes each Background Sync registration, and registers it as asked.
  await context.addInitScript(() => {
    const register = SyncManager.prototype.register;
    window.syncRegistrations = [];
    SyncManager.prototype.register = function (tag) {
      window.syncRegistrations.push({ tag, online: navigator.onLine });
      return register.call(this, tag);
    };
  });
  try {
    const page = await openControlled(context, own.origin);
    await page.getByTestId('profile-panel').locator('summary').click();
    const registrations = () => page.evaluate(() => window.syncRegistrations);

    await page.getByTestId('setting-caret').selectOption('underline');
    await settles(page, { caret: 'underline' });
    assert.deepEqual(await registrations(), [], 'online, the page delivers without waking the worker');

    await context.setOffline(true);
    await page.waitForFunction(() => !navigator.onLine);
    await page.getByTestId('setting-caret').selectOption('block');
    await eventually(async () => (await registrations()).length === 1, 10_000);
    assert.deepEqual(await registrations(), [{ tag: 'flush-outbox', online: false }]);
    assert.equal((await shown(page)).queued, '1');

    await context.setOffline(false);
    await settles(page, { caret: 'block' });
  } finally {
    await context.close();
    await own.stop();
  }
});

test('a name being typed stays while the profile changes under it', async () => {
  // A server of its own: the saves it creates leave the shared server's limits alone.
  const own = await startServer();
  const { context, page } = await device(own.origin);
  try {
    // The first change sent creates the save, which names the player; after that the
    // stored name stays put.
    await page.getByTestId('setting-caret').selectOption('underline');
    await eventually(async () => (await shown(page)).name !== '' && (await shown(page)).queued === '0');
    await page.getByTestId('profile-name').fill('Half a na');
    // Another setting changes: the profile's view changes (queued, then confirmed).
    await page.getByTestId('setting-caret').selectOption('block');
    await eventually(async () => (await shown(page)).caret === 'block' && (await shown(page)).queued === '0');
    assert.equal(await page.getByTestId('profile-name').inputValue(), 'Half a na');
  } finally {
    await context.close();
    await own.stop();
  }
});

describe('two devices of one player', () => {
  let phone;
  let laptop;

  test('a link code attaches the second device to the first one’s player', async () => {
    phone = await device();
    await rename(phone.page, 'Ann Typist');
    await settles(phone.page, { name: 'Ann Typist' });
    await phone.page.getByTestId('link-code-show').click();
    const code = await phone.page.getByTestId('link-code').textContent();
    assert.match(code, /^[0-9A-Z]{5}-[0-9A-Z]{5}$/);
    assert.equal(await phone.page.getByTestId('link-code-qr').count(), 1);

    laptop = await device();
    await laptop.page.getByTestId('link-code-input').fill(code.toLowerCase());
    await laptop.page.getByTestId('link-code-submit').click();
    // Linking asks first; the confirmation names the player the code joins.
    await laptop.page.getByTestId('link-confirm-join').click();
    await laptop.page.getByText('This device now plays as Ann Typist').waitFor();
    await settles(laptop.page, { name: 'Ann Typist' });
    const [phoneSave, laptopSave] = await Promise.all(
      [phone, laptop].map((d) => readRecord(d.page, 'meta', 'save')),
    );
    assert.equal(laptopSave.playerId, phoneSave.playerId);
    assert.notEqual(laptopSave.token, phoneSave.token, 'each device has its own token');

    // Used once: a third device cannot reuse the code.
    const third = await device();
    await third.page.getByTestId('link-code-input').fill(code);
    await third.page.getByTestId('link-code-submit').click();
    const refused = await third.page.getByTestId('link-result').textContent();
    assert.doesNotMatch(refused, /now plays as/);
    await third.context.close();

    await laptop.page.getByTestId('devices-refresh').click();
    await eventually(async () => (await laptop.page.getByTestId('device').count()) === 2, 10_000);
  });

  test('offline changes on both devices meet by field: the name from one, each later setting', async () => {
    await phone.context.setOffline(true);
    await laptop.context.setOffline(true);
    await rename(phone.page, 'Ann Offline');
    await phone.page.getByTestId('setting-theme').selectOption('dark');
    // Later, on the laptop: the same setting (a later change wins) and another one.
    await laptop.page.getByTestId('setting-theme').selectOption('light');
    await laptop.page.getByTestId('setting-font-size').selectOption('26');
    // Applied at once, offline: the laptop's document already follows its settings.
    await eventually(async () => (await shown(laptop.page)).theme === 'light', 5_000);
    assert.equal((await shown(phone.page)).theme, 'dark');
    assert.equal((await shown(phone.page)).queued, '2');

    // The laptop's later changes reach the server first; the phone's older theme then
    // meets them and loses, while its name (changed nowhere else) goes through.
    await laptop.context.setOffline(false);
    await settles(laptop.page, { theme: 'light', fontSize: '26' });
    await phone.context.setOffline(false);
    const merged = { name: 'Ann Offline', theme: 'light', fontSize: '26', promptSize: '26px' };
    await settles(phone.page, merged);
    await settles(laptop.page, merged);
    assert.deepEqual(await notices(laptop.page), []);
    assert.deepEqual(await notices(phone.page), [
      'Your change of the theme was older than a change made on another device, which was kept. OK',
    ]);
    await phone.page.getByTestId('profile-notice-dismiss').click();

    // The leaderboard shows the name both devices now have.
    await playGame(laptop.page, server.origin, { mode: 'zh', seed: zhSeed });
    await eventually(async () => {
      const answer = await (await fetch(`${server.origin}/api/leaderboard?mode=zh&board=alltime`)).json();
      return answer.entries.some((e) => e.displayName === 'Ann Offline');
    });
    await openPanel(laptop.page);
  });

  test('a moderator’s name reset wins over names queued before it, on both devices', async () => {
    const { playerId } = await readRecord(phone.page, 'meta', 'save');
    await phone.context.setOffline(true);
    await laptop.context.setOffline(true);
    await rename(phone.page, 'Rude One');
    await rename(laptop.page, 'Ruder One');
    const said = execFileSync(
      SERVER_BIN,
      ['admin', '--data-dir', server.dataDir, 'reset-name', playerId, 'Polite Player'],
      { encoding: 'utf8' },
    );
    assert.match(said, /Polite Player/);
    await phone.context.setOffline(false);
    await laptop.context.setOffline(false);
    for (const { page } of [phone, laptop]) {
      await settles(page, { name: 'Polite Player' });
      await eventually(async () => (await notices(page)).some((n) => /overridden by a moderator/.test(n)), 10_000);
    }
    // Read, dismissed, and the player may choose again.
    await phone.page.getByTestId('profile-notice-dismiss').first().click();
    await eventually(async () => (await notices(phone.page)).length === 0, 5_000);
  });

  test('a lost answer to a profile operation is resent under its key and applied once', async () => {
    await phone.context.close();
    await laptop.context.close();
    // A device of its own behind a proxy that lets the server commit, then cuts the answer.
    const proxy = await startFaultProxy(server.origin);
    after(() => proxy.close());
    const tablet = await device(proxy.origin);
    proxy.injectOn(PROFILE_OPERATIONS, { kind: 'drop-after-commit' });
    const patches = () => proxy.requests.filter((r) => r.route === PROFILE_OPERATIONS);
    const keys = (request) => request.body.operations.map((o) => o.idempotencyKey);
    await tablet.page.getByTestId('setting-caret').selectOption('block');
    const lost = await eventually(async () => patches().find((r) => r.cutByProxy && r.endedAt));
    const [firstAnswer] = JSON.parse(lost.answer).answers;
    assert.equal(firstAnswer.profile.settings.caret, 'block', 'the server applied it');

    // Before the page sends it again, another device of the player changes the caret
    // later. Applied a second time, the resend would now meet that change and lose.
    const { token } = await readRecord(tablet.page, 'meta', 'save');
    const later = await fetch(`${server.origin}/api/saves/me`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
      body: JSON.stringify({
        baseVersion: firstAnswer.version,
        base: { settings: { caret: 'block' } },
        changes: { settings: { caret: 'underline' } },
        changedAt: Date.now() + 60_000,
      }),
    });
    assert.equal(later.status, 200);

    const [, resent] = await eventually(async () => {
      const all = patches();
      return all.length >= 2 && all[1].status !== null && all;
    });
    assert.equal(keys(lost).length, 1);
    assert.deepEqual(keys(resent), keys(lost), 'the same Idempotency-Key');
    assert.equal(resent.status, 200);
    assert.deepEqual(JSON.parse(resent.answer).answers, [firstAnswer], 'answered from the record, not applied again');
    // The page learns of the later change by polling, and has nothing to regret.
    await settles(tablet.page, { caret: 'underline' });
    assert.deepEqual(await notices(tablet.page), []);
    assert.equal(patches().length, 2);
    await tablet.context.close();
  });
});
