// Offline scores arrive exactly once: the outbox keeps the best per (profile, mode,
// week), the page flushes when it can, the service worker flushes on Background Sync,
// and injected faults (a lost response after commit, 500, 429, 422, an intermediary's
// 401/403/404 pages, a request that never answers, a long offline spell, a restored
// server) end with the right value on the server, once, with one save.
import assert from 'node:assert/strict';
import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  backupDatabase,
  launchBrowser,
  openControlled,
  queryDatabase,
  readRecord,
  startServer,
  syncEvents,
  tempDir,
} from './harness.mjs';
import { SAVES, SCORES, startFaultProxy } from './fault-proxy.mjs';
import { LEAST_WAIT_AT_CAP_MS, failedAgain, reachBackoffCap, waitingEntry } from './offline-spell.mjs';
import { PACE, board, eventually, playGame, readOutbox, shortSeed, waitPending } from './play.mjs';

let browser;
const seeds = {};
before(async () => {
  browser = await launchBrowser();
  // Short prompts keep each game to a few seconds at a plausible pace.
  const server = await startServer();
  const context = await browser.newContext();
  const page = await context.newPage();
  seeds.zh = await shortSeed(page, server.origin, 'zh', 45);
  seeds.quote = await shortSeed(page, server.origin, 'quote', 130);
  await context.close();
  await server.stop();
});
after(async () => {
  await browser?.close();
});

/** Hides Background Sync from the page, so only the page's own flushes deliver. */
function withoutBackgroundSync() {
  Object.defineProperty(ServiceWorkerRegistration.prototype, 'sync', { get: () => undefined });
}

/** A fresh server and browser profile, with the app installed and controlling the page. */
async function fresh({ proxied = false, init, serverArgs = [] } = {}) {
  const server = await startServer({ args: serverArgs });
  const proxy = proxied ? await startFaultProxy(server.origin) : null;
  const origin = proxy?.origin ?? server.origin;
  const context = await browser.newContext();
  if (init) await context.addInitScript(init);
  const page = await openControlled(context, origin);
  await page.getByTestId('offline-ready').waitFor();
  return {
    server,
    proxy,
    origin,
    context,
    page,
    /** Closes everything, including a server restarted into `server`. */
    async close() {
      await context.close();
      await proxy?.close();
      await this.server.stop();
    },
  };
}

test('played offline: the best per mode reaches the server once back online', async () => {
  const t = await fresh();
  try {
    await t.context.setOffline(true);
    const zhSlow = await playGame(t.page, t.origin, { mode: 'zh', seed: seeds.zh, pace: PACE.slow });
    const zhFast = await playGame(t.page, t.origin, { mode: 'zh', seed: seeds.zh, pace: PACE.fast });
    const quote = await playGame(t.page, t.origin, { mode: 'quote', seed: seeds.quote });
    assert.ok(zhFast > zhSlow, `faster typing scores higher: ${zhFast} > ${zhSlow}`);

    const outbox = await readOutbox(t.page);
    assert.deepEqual(
      outbox.map((e) => [e.mode, e.value]).sort(),
      [['quote', quote], ['zh', zhFast]],
    );
    await waitPending(t.page, 2);

    await t.context.setOffline(false);
    await waitPending(t.page, 0);
    assert.deepEqual(await readOutbox(t.page), []);
    assert.deepEqual(await board(t.server.origin, 'zh'), [zhFast]);
    assert.deepEqual(await board(t.server.origin, 'zh', 'weekly'), [zhFast]);
    assert.deepEqual(await board(t.server.origin, 'quote'), [quote]);

    // The page's own board shows the mode just played, fetched again once delivered...
    assert.equal(await t.page.getByTestId('leaderboard-mode').inputValue(), 'quote');
    await t.page.locator(`[data-testid="leaderboard"][data-value="${quote}"]`).waitFor();
    // ...and, fetched live, highlights the player's row...
    await t.page.getByTestId('leaderboard-mode').selectOption('zh');
    await t.page.getByTestId('board-alltime').click();
    const row = t.page.locator(`[data-testid="leaderboard"][data-value="${zhFast}"]`);
    await row.waitFor();
    assert.match(await row.getAttribute('class'), /\bme\b/);
    // ...and offline says so instead of showing stale ranks.
    await t.context.setOffline(true);
    await t.page.getByTestId('leaderboard-refresh').click();
    await t.page.getByTestId('leaderboard-offline').waitFor();
    assert.equal(await t.page.getByTestId('leaderboard').count(), 0);
    await t.context.setOffline(false);
  } finally {
    await t.close();
  }
});

test('closed while offline, reopened online: delivered', async () => {
  const t = await fresh();
  try {
    await t.context.setOffline(true);
    const value = await playGame(t.page, t.origin, { mode: 'quote', seed: seeds.quote });
    await t.page.close();
    await t.context.setOffline(false);
    const reopened = await t.context.newPage();
    await reopened.goto(t.origin + '/');
    await waitPending(reopened, 0);
    assert.deepEqual(await board(t.server.origin, 'quote'), [value]);
  } finally {
    await t.close();
  }
});

test('Background Sync: the service worker delivers with no page open', async () => {
  const t = await fresh();
  try {
    await t.context.setOffline(true);
    const value = await playGame(t.page, t.origin, { mode: 'zh', seed: seeds.zh });
    const registered = await t.page.evaluate(async () => {
      const registration = await navigator.serviceWorker.ready;
      return registration.sync.getTags();
    });
    assert.deepEqual(registered, ['flush-outbox']);
    await t.page.close();

    // Only a blank page remains, to reach the browser over CDP.
    const sync = await syncEvents(t.context, t.origin);
    await t.context.setOffline(false);
    // A worker woken for the event alone: its flush module comes from the stored script.
    await sync.stopWorkers();
    // The worker flushes what is due; entries still in their backoff fail the event,
    // so keep firing it (as the browser would, later) until the server has the score.
    await eventually(async () => {
      await sync.dispatch();
      return (await board(t.server.origin, 'zh')).length > 0;
    }, 45_000);
    assert.deepEqual(await board(t.server.origin, 'zh'), [value]);
  } finally {
    await t.close();
  }
});

test('without Background Sync the page alone delivers', async () => {
  const t = await fresh({ init: withoutBackgroundSync });
  try {
    await t.context.setOffline(true);
    const value = await playGame(t.page, t.origin, { mode: 'quote', seed: seeds.quote });
    assert.equal(await t.page.evaluate(async () => (await navigator.serviceWorker.ready).sync), undefined);
    // Counted as pending first, so the wait below cannot pass before the outbox is read.
    await waitPending(t.page, 1);
    await t.context.setOffline(false);
    await waitPending(t.page, 0);
    assert.deepEqual(await board(t.server.origin, 'quote'), [value]);
  } finally {
    await t.close();
  }
});

describe('faults between browser and server', () => {
  test('a response lost after the server committed: the resend is a no-op', async () => {
    const t = await fresh({ proxied: true });
    try {
      t.proxy.inject({ kind: 'drop-after-commit' });
      const value = await playGame(t.page, t.origin, { mode: 'zh', seed: seeds.zh });
      await waitPending(t.page, 0);
      const sent = t.proxy.submissions;
      assert.ok(sent.length >= 2, `resent after the lost answer: ${sent.length}`);
      assert.equal(sent[0].rule, 'drop-after-commit');
      assert.ok(sent.every((s) => s.body.scoreId === sent[0].body.scoreId), 'the same game');
      assert.deepEqual(await board(t.server.origin, 'zh'), [value]);
    } finally {
      await t.close();
    }
  });

  test('a 500 then success', async () => {
    const t = await fresh({ proxied: true });
    try {
      t.proxy.inject({ kind: 'status', status: 500, code: 'INTERNAL' });
      const value = await playGame(t.page, t.origin, { mode: 'quote', seed: seeds.quote });
      await waitPending(t.page, 0);
      assert.deepEqual(t.proxy.submissions.map((s) => s.rule).slice(0, 2), ['status', 'pass']);
      assert.deepEqual(await board(t.server.origin, 'quote'), [value]);
    } finally {
      await t.close();
    }
  });

  test('a 429 waits out its Retry-After', async () => {
    const t = await fresh({ proxied: true });
    try {
      t.proxy.inject({ kind: 'status', status: 429, code: 'RATE_LIMITED', retryAfter: 3 });
      const value = await playGame(t.page, t.origin, { mode: 'zh', seed: seeds.zh });
      await t.page.getByTestId('sync-error').waitFor();
      await waitPending(t.page, 0);
      const [limited, next] = t.proxy.submissions;
      assert.equal(limited.rule, 'status');
      assert.ok(next.at - limited.at >= 3_000, `waited ${next.at - limited.at} ms`);
      assert.deepEqual(await board(t.server.origin, 'zh'), [value]);
    } finally {
      await t.close();
    }
  });

  test('a 422 is blocked and shown; Retry sends it', async () => {
    const t = await fresh({ proxied: true });
    try {
      t.proxy.inject({ kind: 'status', status: 422, code: 'VALUE_MISMATCH' });
      const value = await playGame(t.page, t.origin, { mode: 'quote', seed: seeds.quote });
      const blocked = t.page.getByTestId('sync-blocked');
      await blocked.waitFor();
      assert.equal(await blocked.getAttribute('data-code'), 'VALUE_MISMATCH');
      assert.match(await blocked.textContent(), /could not reproduce this score/);
      await waitPending(t.page, 1);
      const [entry] = await readOutbox(t.page);
      assert.equal(entry.sync.blocked, true);
      // Triggers that are not a manual retry leave it alone.
      await t.page.evaluate(() => window.dispatchEvent(new Event('online')));
      await t.page.waitForTimeout(1_000);
      assert.equal(t.proxy.submissions.length, 1, 'never replayed automatically');
      assert.deepEqual(await board(t.server.origin, 'quote'), []);

      await t.page.getByTestId('retry').click();
      await waitPending(t.page, 0);
      assert.deepEqual(await board(t.server.origin, 'quote'), [value]);
    } finally {
      await t.close();
    }
  });

  test('a better result recorded while a send is in flight is not lost', async () => {
    const t = await fresh({ proxied: true });
    try {
      t.proxy.inject({ kind: 'hold' });
      const first = await playGame(t.page, t.origin, { mode: 'zh', seed: seeds.zh, pace: PACE.slow });
      await eventually(() => t.proxy.submissions.length === 1);
      const better = await playGame(t.page, t.origin, { mode: 'zh', seed: seeds.zh, pace: PACE.fast });
      assert.ok(better > first);
      // The server commits the first, and its answer arrives after the better one is stored.
      t.proxy.release();
      await waitPending(t.page, 0);
      const values = t.proxy.submissions.map((s) => s.body.value);
      assert.equal(values[0], first);
      assert.ok(values.length >= 2 && values.slice(1).every((v) => v === better), `${values}`);
      assert.deepEqual(await board(t.server.origin, 'zh'), [better]);
    } finally {
      await t.close();
    }
  });
});

/** The server's saves (player ids), read from its database file. */
function savesOnServer(server) {
  return queryDatabase(server.dataDir, 'SELECT player_id FROM players').map((row) => row.player_id);
}

/** The save this browser plays as, from its IndexedDB. */
async function playerId(page) {
  return (await readRecord(page, 'meta', 'save'))?.playerId;
}

describe('never lost, never stuck (issue 8)', () => {
  test("a 403 without the API's body, then a 404 page: delivered with no click", async () => {
    const t = await fresh({ proxied: true });
    try {
      t.proxy.inject({ kind: 'bare', status: 403 }, { kind: 'bare', status: 404 });
      const value = await playGame(t.page, t.origin, { mode: 'zh', seed: seeds.zh });
      await waitPending(t.page, 0);
      const sent = t.proxy.submissions;
      assert.deepEqual(
        sent.slice(0, 3).map((s) => [s.rule, s.status]),
        [['bare', 403], ['bare', 404], ['pass', 200]],
      );
      assert.ok(sent.every((s) => s.body.scoreId === sent[0].body.scoreId), 'the same game');
      assert.deepEqual(await board(t.server.origin, 'zh'), [value]);
    } finally {
      await t.close();
    }
  });

  test('offline until the backoff is at its cap, then online: the page delivers within seconds', async () => {
    const t = await fresh({ init: withoutBackgroundSync });
    try {
      await t.context.setOffline(true);
      const value = await playGame(t.page, t.origin, { mode: 'zh', seed: seeds.zh });
      // A document loaded under Chromium's offline emulation starts with
      // `navigator.onLine` true, so going online would fire no `online` event: apply
      // the emulation again (no trigger fires meanwhile, nothing is sent).
      await t.context.setOffline(false);
      await t.context.setOffline(true);
      await t.page.waitForFunction(() => !navigator.onLine);
      await t.context.clock.install();
      const { entry, now } = await reachBackoffCap(t.context, t.page);
      const wait = entry.sync.nextAttemptAt - now;
      assert.ok(wait >= LEAST_WAIT_AT_CAP_MS, `the next attempt waits ${wait} ms`);

      // No clock moves from here on: only reconnecting can make the entry due early.
      const online = Date.now();
      await t.context.setOffline(false);
      await eventually(async () => (await board(t.server.origin, 'zh')).length > 0, 10_000);
      const delivered = Date.now() - online;
      assert.ok(delivered < wait, `delivered ${delivered} ms after online, not after the wait`);
      assert.deepEqual(await board(t.server.origin, 'zh'), [value]);
      await waitPending(t.page, 0);
    } finally {
      await t.close();
    }
  });

  test('offline until the backoff is at its cap, no page open: one sync event delivers', async () => {
    const t = await fresh({ init: withoutBackgroundSync });
    try {
      await t.context.setOffline(true);
      const value = await playGame(t.page, t.origin, { mode: 'quote', seed: seeds.quote });
      await t.context.clock.install();
      await reachBackoffCap(t.context, t.page);
      // The worker reads the real clock: bring the page's back to it and press Retry
      // (still offline), so the entry's capped wait is a real one ahead of now.
      await t.context.clock.setSystemTime(Date.now());
      const { entry: capped } = await waitingEntry(t.page);
      await t.page.getByTestId('retry').click();
      const entry = await failedAgain(t.page, capped.sync.attempts);
      const wait = entry.sync.nextAttemptAt - Date.now();
      assert.ok(wait >= LEAST_WAIT_AT_CAP_MS - 5_000, `the next attempt waits ${wait} ms`);
      await t.page.close();

      const sync = await syncEvents(t.context, t.origin);
      await t.context.setOffline(false);
      await sync.stopWorkers();
      await sync.dispatch();
      await eventually(async () => (await board(t.server.origin, 'quote')).length > 0, 15_000);
      assert.deepEqual(await board(t.server.origin, 'quote'), [value]);
    } finally {
      await t.close();
    }
  });

  test('a request that never answers: the lock is freed after the client timeout; a second tab is not stuck', async () => {
    const t = await fresh({ proxied: true });
    try {
      t.proxy.inject({ kind: 'hang' });
      const hungValue = await playGame(t.page, t.origin, { mode: 'zh', seed: seeds.zh });
      await eventually(() => t.proxy.waiting() === 1);
      const [hung] = t.proxy.submissions;

      // Meanwhile a second tab plays and records a game of another mode.
      const second = await t.context.newPage();
      const otherValue = await playGame(second, t.origin, { mode: 'quote', seed: seeds.quote });
      assert.equal(t.proxy.waiting(), 1, 'recorded while the request still hangs');

      await eventually(
        async () => (await board(t.server.origin, 'zh')).length > 0 && (await board(t.server.origin, 'quote')).length > 0,
        45_000,
      );
      assert.ok(hung.abortedByClient, 'the client gave up on the hung request');
      const heldFor = hung.endedAt - hung.at;
      assert.ok(heldFor >= 15_000 && heldFor <= 30_000, `the client waited ${heldFor} ms`);
      // The hung game arrived through a later attempt, once the lock was free.
      const resent = t.proxy.submissions.filter((s) => s.body.scoreId === hung.body.scoreId && s !== hung);
      assert.ok(resent.some((s) => s.status === 200 && s.at >= hung.endedAt), 'resent after the abort');
      assert.deepEqual(await board(t.server.origin, 'zh'), [hungValue]);
      assert.deepEqual(await board(t.server.origin, 'quote'), [otherValue]);
      await waitPending(t.page, 0);
      await waitPending(second, 0);
    } finally {
      await t.close();
    }
  });

  test('a 422-blocked best does not hide a lower valid game; discarding it empties the outbox', async () => {
    const t = await fresh({ proxied: true });
    try {
      t.proxy.inject({ kind: 'status', status: 422, code: 'VALUE_MISMATCH' });
      const best = await playGame(t.page, t.origin, { mode: 'zh', seed: seeds.zh, pace: PACE.fast });
      await t.page.getByTestId('sync-blocked').waitFor();
      const lower = await playGame(t.page, t.origin, { mode: 'zh', seed: seeds.zh, pace: PACE.slow });
      assert.ok(lower < best, `${lower} < ${best}`);

      await eventually(async () => (await board(t.server.origin, 'zh')).length > 0);
      assert.deepEqual(await board(t.server.origin, 'zh'), [lower]);
      await waitPending(t.page, 1);
      const blocked = t.page.getByTestId('sync-blocked');
      assert.equal(await blocked.getAttribute('data-code'), 'VALUE_MISMATCH');

      await t.page.getByTestId('discard').click();
      await waitPending(t.page, 0);
      assert.deepEqual(await readOutbox(t.page), []);
      assert.equal(await blocked.count(), 0);
      const [refused] = t.proxy.submissions;
      assert.equal(refused.body.value, best);
      assert.equal(
        t.proxy.submissions.filter((s) => s.body.scoreId === refused.body.scoreId).length,
        1,
        'the blocked game was never sent again',
      );
      assert.deepEqual(await board(t.server.origin, 'zh'), [lower]);
    } finally {
      await t.close();
    }
  });

  test('a server restored from a backup older than the best: reopened a day later, the board has it again', async () => {
    const t = await fresh();
    const backup = join(tempDir('backup'), 'keydo.sqlite3');
    try {
      const older = await playGame(t.page, t.origin, { mode: 'zh', seed: seeds.zh, pace: PACE.slow });
      await waitPending(t.page, 0);
      backupDatabase(t.server.dataDir, backup);
      const best = await playGame(t.page, t.origin, { mode: 'zh', seed: seeds.zh, pace: PACE.fast });
      await waitPending(t.page, 0);
      assert.ok(best > older);
      assert.deepEqual(await board(t.server.origin, 'zh'), [best]);
      const player = await playerId(t.page);
      await t.page.close();

      // Restore as the README says: stop, replace the file (no WAL beside it), restart.
      await t.server.stop({ keepData: true });
      const file = join(t.server.dataDir, 'keydo.sqlite3');
      rmSync(`${file}-wal`, { force: true });
      rmSync(`${file}-shm`, { force: true });
      copyFileSync(backup, file);
      t.server = await startServer({ port: t.server.port, dataDir: t.server.dataDir });
      assert.deepEqual(await board(t.server.origin, 'zh'), [older], 'the restore lost the best');

      // The next day's start compares the server's bests with the local ones.
      await t.context.clock.install({ time: Date.now() + 25 * 3_600_000 });
      const reopened = await t.context.newPage();
      await reopened.goto(t.origin + '/');
      await eventually(async () => (await board(t.server.origin, 'zh'))[0] === best, 30_000);
      assert.deepEqual(await board(t.server.origin, 'zh'), [best]);
      assert.deepEqual(await board(t.server.origin, 'zh', 'weekly'), [best]);
      assert.equal(await playerId(reopened), player, 'the same save');
      assert.deepEqual(savesOnServer(t.server), [player]);
    } finally {
      rmSync(join(backup, '..'), { recursive: true, force: true });
      await t.close();
    }
  });

  test('a bare 401 from an intermediary: retried with the same save', async () => {
    const t = await fresh({ proxied: true });
    try {
      t.proxy.inject({ kind: 'bare', status: 401 });
      const value = await playGame(t.page, t.origin, { mode: 'zh', seed: seeds.zh });
      await waitPending(t.page, 0);
      const sent = t.proxy.requests.filter((r) => r.route === SCORES);
      assert.deepEqual(sent.slice(0, 2).map((r) => [r.rule, r.status]), [['bare', 401], ['pass', 200]]);
      assert.ok(sent.every((r) => r.authorization === sent[0].authorization), 'one bearer token');
      assert.equal(t.proxy.requests.filter((r) => r.route === SAVES).length, 1, 'no new save');
      assert.deepEqual(savesOnServer(t.server), [await playerId(t.page)]);
      assert.deepEqual(await board(t.server.origin, 'zh'), [value]);
    } finally {
      await t.close();
    }
  });

  test('a 201 lost on save creation: the resend gets the same save', async () => {
    // Save creations are rate limited to 2 a minute per IP; the limit is not under test.
    const t = await fresh({ proxied: true, serverArgs: ['--rate-limit-saves', '20'] });
    try {
      t.proxy.injectOn(SAVES, { kind: 'drop-after-commit' });
      const value = await playGame(t.page, t.origin, { mode: 'quote', seed: seeds.quote });
      await waitPending(t.page, 0);
      const creations = t.proxy.requests.filter((r) => r.route === SAVES);
      assert.ok(creations.length >= 2, `resent: ${creations.length}`);
      assert.equal(creations[0].rule, 'drop-after-commit');
      assert.match(creations[0].idempotencyKey ?? '', /^[0-9a-f-]{36}$/i);
      assert.ok(creations.every((r) => r.idempotencyKey === creations[0].idempotencyKey), 'one Idempotency-Key');
      assert.deepEqual(savesOnServer(t.server), [await playerId(t.page)]);
      assert.deepEqual(await board(t.server.origin, 'quote'), [value]);
    } finally {
      await t.close();
    }
  });
});
