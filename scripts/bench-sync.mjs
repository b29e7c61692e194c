// Measures the sync budgets (run by `make bench`; nothing here asserts):
//  - durable-write latency of finishing a game: the `keydo:durable-write` performance
//    measure the app records around the IndexedDB commit, p50/p95 over GAMES games;
//  - time from `online` to the server having the score, median of RUNS runs: an
//    outbox entry waits offline, the browser goes online, and the clock stops when the
//    server's leaderboard shows it;
//  - the same after a long offline spell, median of RUNS runs: in a fresh profile a
//    game played offline fails until its backoff is at the 5-minute cap (the page's
//    clock is driven), the browser goes online, and the clock stops when the server has
//    answered its submission (seen by a fault proxy that injects nothing).
import { startFaultProxy } from '../tests/e2e/fault-proxy.mjs';
import { launchBrowser, openControlled, startServer } from '../tests/e2e/harness.mjs';
import { reachBackoffCap } from '../tests/e2e/offline-spell.mjs';
import { eventually, playGame, shortSeed } from '../tests/e2e/play.mjs';
import { playHumanGame } from './chaos.mjs';

const GAMES = Number(process.env.GAMES ?? 20);
const RUNS = Number(process.env.RUNS ?? 10);
const sorted = (xs) => [...xs].sort((a, b) => a - b);
const at = (xs, p) => sorted(xs)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
const median = (xs) => at(xs, 0.5);

// Every long-spell run is a new player: from one address that outpaces the default
// limit on save creation, and the 429 would be measured instead of the sync.
const server = await startServer({ args: ['--rate-limit-saves', '1000'] });
const browser = await launchBrowser();
try {
  const context = await browser.newContext();
  const page = await openControlled(context, server.origin);
  await page.getByTestId('offline-ready').waitFor();

  // Durable writes: real games, each ending in one IndexedDB commit.
  const seed = await shortSeed(page, server.origin, 'zh', 40);
  const writes = [];
  for (let i = 0; i < GAMES; i++) {
    await playGame(page, server.origin, { mode: 'zh', seed });
    const [measure] = await page.evaluate(() =>
      performance.getEntriesByName('keydo:durable-write').map((m) => m.duration),
    );
    writes.push(measure);
  }
  await eventually(async () => (await page.getByTestId('sync-status').getAttribute('data-pending')) === '0');

  // Online → on the server: each run stores a better words result while offline.
  const latencies = [];
  for (let i = 0; i < RUNS; i++) {
    await context.setOffline(true);
    const value = await page.evaluate(storeOfflineResult, 2000 + i * 40);
    const start = Date.now();
    await context.setOffline(false);
    await eventually(async () => {
      const response = await fetch(`${server.origin}/api/leaderboard?mode=words&board=alltime`);
      const board = await response.json();
      return board.entries[0]?.value === value;
    }, 30_000);
    latencies.push(Date.now() - start);
  }

  const afterSpell = await onlineAfterLongSpell(browser, server);

  const ms = (x) => `${x.toFixed(1)} ms`;
  console.log(`durable write of a finished game (IndexedDB commit), ${GAMES} games:`);
  console.log(`  p50 ${ms(median(writes))}, p95 ${ms(at(writes, 0.95))}, max ${ms(Math.max(...writes))}`);
  console.log(`online -> score on the server, ${RUNS} runs:`);
  console.log(`  median ${median(latencies)} ms, p95 ${at(latencies, 0.95)} ms`);
  console.log(`online -> score on the server after an offline spell with the backoff at its cap, ${RUNS} runs:`);
  console.log(`  median ${median(afterSpell)} ms, p95 ${at(afterSpell, 0.95)} ms, max ${Math.max(...afterSpell)} ms`);
} finally {
  await browser.close();
  await server.stop();
}

/**
 * Milliseconds from `online` to the server's answer to the waiting game, RUNS times: each
 * run plays a game offline (at the real time) and drives the page's clock until the
 * backoff is at its cap.
 */
async function onlineAfterLongSpell(browser, server) {
  const proxy = await startFaultProxy(server.origin);
  const latencies = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      const context = await browser.newContext();
      try {
        const page = await openControlled(context, proxy.origin);
        await page.getByTestId('offline-ready').waitFor();
        await context.setOffline(true);
        await playHumanGame(page, proxy.origin, { mode: 'zh', seed: 90_000 + 1_000 * i });
        await context.clock.install();
        const { entry } = await reachBackoffCap(context, page);
        const online = Date.now();
        await context.setOffline(false);
        const answered = await eventually(
          () => proxy.submissions.find((s) => s.body.scoreId === entry.scoreId && s.status === 200 && s.endedAt),
          360_000,
        );
        latencies.push(answered.endedAt - online);
      } finally {
        await context.close();
      }
    }
    return latencies;
  } finally {
    await proxy.close();
  }
}

/**
 * In the page: puts an outbox entry for a plausible 30 s words game worth `value`,
 * exactly as the app stores one, and resolves to its value.
 */
function storeOfflineResult(value) {
  const durationMs = 30_000;
  // value = round(correctChars × 1 200 000 / durationMs) → correctChars = value / 40.
  const correctChars = value / 40;
  const week = Math.floor((Date.now() + 8 * 3600e3 + 3 * 86400e3) / (7 * 86400e3));
  return new Promise((ok, fail) => {
    const open = indexedDB.open('keydo');
    open.onerror = () => fail(open.error);
    open.onsuccess = () => {
      const db = open.result;
      const tx = db.transaction(['meta', 'outbox'], 'readwrite');
      tx.objectStore('meta').get('profile').onsuccess = (e) => {
        const profileId = e.target.result.id;
        const entry = {
          scoreId: crypto.randomUUID(),
          profileId,
          mode: 'words',
          week,
          value,
          stats: { durationMs, correctChars, errors: 0, keystrokes: correctChars, correctKeystrokes: correctChars },
          playedAt: Date.now(),
          sync: { attempts: 0, nextAttemptAt: 0, lastError: null, blocked: false },
        };
        tx.objectStore('outbox').put(entry, `${profileId}/words/${week}`);
      };
      tx.oncomplete = () => {
        db.close();
        ok(value);
      };
      tx.onerror = () => fail(tx.error);
    };
  });
}
