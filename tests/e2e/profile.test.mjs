// The profile across two devices (docs/profile.md), end to end: two browser contexts
// are two devices of one player, linked with a code; changes made on both while
// offline meet by the documented policies on both pages and on the leaderboard; an
// operator's name reset wins over changes queued before it, and both pages say so;
// a lost answer to a profile operation is resent under its key and applied once.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ROOT, launchBrowser, readRecord, startServer } from './harness.mjs';
import { eventually, playGame, shortSeed } from './play.mjs';

const SERVER_BIN = join(ROOT, 'target', 'release', 'keydo-server');

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
  await page.getByTestId('profile-panel').locator('summary').click();
  return { context, page };
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
    throw new Error(`${error.message}: shows ${JSON.stringify(await shown(page))}, expected ${JSON.stringify(expected)}`);
  });
}

async function notices(page) {
  return page.getByTestId('profile-notice').allTextContents();
}

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

    await phone.context.setOffline(false);
    await laptop.context.setOffline(false);
    const merged = { name: 'Ann Offline', theme: 'light', fontSize: '26' };
    await settles(phone.page, merged);
    await settles(laptop.page, merged);
    assert.deepEqual(await notices(laptop.page), []);

    // The leaderboard shows the name both devices now have.
    const seed = await shortSeed(laptop.page, server.origin, 'words', 140);
    await playGame(laptop.page, server.origin, { mode: 'words', seed });
    await eventually(async () => {
      const answer = await (await fetch(`${server.origin}/api/leaderboard?mode=words&board=alltime`)).json();
      return answer.entries.some((e) => e.displayName === 'Ann Offline');
    });
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
    const patches = [];
    let dropped = false;
    await phone.page.route('**/api/saves/me', async (route) => {
      const request = route.request();
      if (request.method() !== 'PATCH') return route.continue();
      const response = await route.fetch();
      patches.push({ key: request.headers()['idempotency-key'], body: await response.json() });
      if (!dropped) {
        // The server has applied it; the page never hears so.
        dropped = true;
        return route.abort('connectionreset');
      }
      return route.fulfill({ response });
    });
    await phone.page.getByTestId('setting-caret').selectOption('block');
    await settles(phone.page, { caret: 'block' });
    await phone.page.unroute('**/api/saves/me');
    assert.equal(patches.length, 2, 'sent once, resent once');
    assert.equal(patches[0].key, patches[1].key, 'the same Idempotency-Key');
    assert.deepEqual(patches[1].body, patches[0].body, 'the resend is answered from the record');
    await settles(laptop.page, { caret: 'block' });
    await phone.context.close();
    await laptop.context.close();
  });
});
