// Offline scores arrive exactly once: the outbox keeps the best per (profile, mode,
// week), the page flushes when it can, the service worker flushes on Background Sync,
// and injected faults (a lost response after commit, 500, 429, 422) end with the
// right value on the server, once.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { launchBrowser, openControlled, startServer } from './harness.mjs';
import { startFaultProxy } from './fault-proxy.mjs';
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

/** A fresh server and browser profile, with the app installed and controlling the page. */
async function fresh({ proxied = false, init } = {}) {
  const server = await startServer();
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
    async close() {
      await context.close();
      await proxy?.close();
      await server.stop();
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

    // The page's own leaderboard, fetched live, highlights the player's row...
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
    const blank = await t.context.newPage();
    const cdp = await t.context.newCDPSession(blank);
    const registrations = [];
    cdp.on('ServiceWorker.workerRegistrationUpdated', (e) => registrations.push(...e.registrations));
    await cdp.send('ServiceWorker.enable');
    const { registrationId } = await eventually(() =>
      registrations.find((r) => r.scopeURL === t.origin + '/' && !r.isDeleted),
    );
    await t.context.setOffline(false);
    // A worker woken for the event alone: its flush module comes from the stored script.
    await cdp.send('ServiceWorker.stopAllWorkers');
    // The worker flushes what is due; entries still in their backoff fail the event,
    // so keep firing it (as the browser would, later) until the server has the score.
    await eventually(async () => {
      await cdp.send('ServiceWorker.dispatchSyncEvent', {
        origin: t.origin,
        registrationId,
        tag: 'flush-outbox',
        lastChance: false,
      });
      return (await board(t.server.origin, 'zh')).length > 0;
    }, 45_000);
    assert.deepEqual(await board(t.server.origin, 'zh'), [value]);
  } finally {
    await t.close();
  }
});

test('without Background Sync the page alone delivers', async () => {
  const t = await fresh({
    init: () => {
      Object.defineProperty(ServiceWorkerRegistration.prototype, 'sync', { get: () => undefined });
    },
  });
  try {
    await t.context.setOffline(true);
    const value = await playGame(t.page, t.origin, { mode: 'quote', seed: seeds.quote });
    assert.equal(await t.page.evaluate(async () => (await navigator.serviceWorker.ready).sync), undefined);
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
