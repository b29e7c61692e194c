// The chaos run: the exactly-once promise under real-world failure, end to end.
//
// Real Chromium plays many games over the four modes in three tabs per profile, with the
// service worker's Background Sync beside them, against the real keydo-server behind
// the fault proxy, which draws faults at random for the sync's /api requests (responses
// lost after commit, 5xx, 429, an intermediary's bare 401/403/404/405/413/415, a captive
// portal's 200, hangs, delays). Meanwhile the browser and the proxy go offline in flaps,
// tabs are closed mid-flush and the worker is stopped and sent sync events. Then the
// faults stop and, once every tab is quiescent with 0 pending, the server's database must
// hold exactly the best game per (player, mode) and per (player, mode, week), one save
// per profile: 0 lost, 0 doubled.
//
//   node scripts/chaos.mjs [--games N] [--profiles N]   (KEYDO_CHAOS_GAMES, default 500)
//   KEYDO_FAULT_SEED=<seed> repeats a run's random choices (the seed is printed).
//
// `tests/e2e/chaos.test.mjs` runs a short version of `runChaos` in `make test`.
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { SAVES, SAVE_ME, SCORES, newSeed, pick, seededRandom, shuffle, startFaultProxy } from '../tests/e2e/fault-proxy.mjs';
import { launchBrowser, openControlled, queryDatabase, readRecord, startServer, syncEvents } from '../tests/e2e/harness.mjs';
import { readOutbox } from '../tests/e2e/play.mjs';

export const MODES = ['time', 'words', 'quote', 'zh'];

/** How often each mode is played after the first round of all four (`time` lasts 60 s). */
const MODE_WEIGHTS = { time: 0.5, words: 2, quote: 4, zh: 4 };

/**
 * How likely each sync request gets a fault, and which faults, by weight. A run first
 * injects each once, in this order (most telling first), into every other request.
 */
const FAULT_RATE = 0.3;
export const FAULT_WEIGHTS = {
  'drop-after-commit': 3,
  '403-bare': 2,
  // Each one holds the profile's flush lock until the client's 20 s timeout.
  hang: 0.4,
  '5xx': 3,
  '429-retry-after': 2,
  '401-bare': 1,
  '404-html': 1,
  'html-200': 1,
  delay: 1,
  '405-bare': 0.5,
  '413-bare': 0.5,
  '415-bare': 0.5,
};
/** The requests the sync makes. */
const SYNC_ROUTES = [SCORES, SAVES, SAVE_ME];

/** Passages short enough to keep a game to seconds (characters). */
const SHORT = { quote: 135, zh: 50 };
/** Characters typed in a `time` game before waiting out its 60 s. */
const TIME_GAME_CHARS = [40, 120];
/** A human pace, under the review thresholds: ms per English key, per Chinese character. */
const PACE = { en: [60, 110], zh: [280, 400] };
/** A tab is closed right after its game with this probability (while a flush runs). */
const CLOSE_TAB = 0.25;
/** Between two disruptions (offline flaps, worker events), and how long a flap lasts. */
const DISRUPT_EVERY_MS = [3_000, 9_000];
const FLAP_MS = [1_000, 6_000];
/** After the faults stop: the backoff cap (5 min) plus the client timeout and margin. */
const QUIESCENCE_MS = 360_000;

const WEEK_MS = 7 * 86_400_000;
/** The UTC+8 week of a time (docs/sync.md). */
export const weekOf = (ms) => Math.floor((ms + 8 * 3_600_000 + 3 * 86_400_000) / WEEK_MS);

/**
 * Runs `games` games on `profiles` browser profiles with `tabs` tabs each; returns the
 * report: games by mode, faults injected by kind, results held for review, mismatches
 * (must be empty), wall time.
 */
export async function runChaos({ games, profiles = 1, tabs = 3, seed = newSeed(), log = () => {} }) {
  const started = Date.now();
  // One generator per actor, so each one's choices follow from the seed alone.
  const stream = (n) => seededRandom(seed + n * 0x9e3779b9);
  const random = stream(1);
  const between = ([low, high], draw = random) => low + draw() * (high - low);
  const actions = {
    'offline (browser)': 0,
    'offline (proxy)': 0,
    'tab closed mid-flush': 0,
    'tab closed with a submission in flight': 0,
    'sync event': 0,
    'worker stopped': 0,
  };
  const played = [];
  // Rate limits are not under test here; faults come from the proxy.
  const server = await startServer({
    args: ['--rate-limit-per-ip', '1000000', '--rate-limit-per-identity', '1000000', '--rate-limit-saves', '1000'],
  });
  const proxy = await startFaultProxy(server.origin, { seed });
  const browser = await launchBrowser();
  const origin = proxy.origin;
  try {
    const players = [];
    for (let p = 0; p < profiles; p++) players.push(await openProfile(browser, origin, tabs));
    log(`chaos: seed ${seed}, ${games} games, ${profiles} profile(s) × ${tabs} tabs`);

    const queue = planGames(stream(2), games);
    proxy.randomFaults({ rate: FAULT_RATE, faults: FAULT_WEIGHTS, routes: SYNC_ROUTES, cover: true });
    let playing = true;
    const disruptor = (async () => {
      while (playing) {
        await sleep(between(DISRUPT_EVERY_MS));
        if (playing) await disrupt(pick(random, players));
      }
    })();
    const tabLoops = players.flatMap((player, p) =>
      player.tabs.map((_, slot) =>
        (async () => {
          const draw = stream(10 + p * tabs + slot);
          for (let game; (game = queue.shift()); ) {
            const page = player.tabs[slot];
            const result = await playHumanGame(page, origin, game, (range) => between(range, draw));
            played.push({ profile: p, ...result });
            if (played.length % 10 === 0) log(`chaos: ${played.length}/${games} games`);
            // The run's first game always closes its tab, so every run does it at least once.
            const close = actions['tab closed mid-flush'] === 0 || draw() < CLOSE_TAB;
            if (close) player.tabs[slot] = await closeMidFlush(player, page);
          }
        })(),
      ),
    );
    try {
      await Promise.all(tabLoops);
    } finally {
      playing = false;
      await disruptor;
    }

    // Faults stop; hung requests stay hung until their clients give up.
    proxy.randomFaults(null);
    proxy.setOffline(false);
    for (const player of players) await player.context.setOffline(false);
    log('chaos: faults stopped, waiting for every tab to be quiescent');
    await quiescent(players);

    for (const player of players) player.id = (await readRecord(player.tabs[0], 'meta', 'save'))?.playerId;
    const mismatches = compare(played, players, server, started);
    return {
      seed,
      games: played.length,
      modes: Object.fromEntries(MODES.map((m) => [m, played.filter((g) => g.mode === m).length])),
      faults: { ...proxy.injected, ...actions },
      requests: proxy.requests.length,
      held: queryDatabase(server.dataDir, "SELECT mode, value, holds FROM results WHERE state = 'held'"),
      mismatches,
      wallMs: Date.now() - started,
    };
  } finally {
    await browser.close();
    await proxy.close();
    await server.stop();
  }

  /** One offline flap of the browser or the proxy, or a sync event to the worker. */
  async function disrupt(player) {
    const draw = random();
    if (draw < 0.35) {
      actions['offline (browser)']++;
      await player.context.setOffline(true);
      await sleep(between(FLAP_MS));
      await player.context.setOffline(false);
    } else if (draw < 0.6) {
      actions['offline (proxy)']++;
      proxy.setOffline(true);
      await sleep(between(FLAP_MS));
      proxy.setOffline(false);
    } else {
      if (random() < 0.5) {
        actions['worker stopped']++;
        await player.sync.stopWorkers();
      }
      actions['sync event']++;
      await player.sync.dispatch();
    }
  }

  /**
   * Closes a tab while its flush is sending: the next score submission is slowed down
   * (a queued delay) and the tab closes once it is in flight (or after 2 s without one);
   * then another tab opens in its place.
   */
  async function closeMidFlush(player, page) {
    const before = proxy.submissions.length;
    proxy.inject({ kind: 'delay', ms: 1_500 });
    const inFlight = () => proxy.submissions.slice(before).some((s) => s.endedAt === null);
    const deadline = Date.now() + 2_000;
    while (!inFlight() && Date.now() < deadline) await sleep(20);
    actions['tab closed mid-flush']++;
    if (inFlight()) actions['tab closed with a submission in flight']++;
    await page.close();
    const next = await player.context.newPage();
    await next.goto(origin + '/');
    return next;
  }
}

/** A browser profile: a blank page for CDP, `tabs` app tabs, the worker installed. */
async function openProfile(browser, origin, tabs) {
  const context = await browser.newContext();
  await context.newPage();
  const first = await openControlled(context, origin);
  await first.getByTestId('offline-ready').waitFor();
  const player = { context, tabs: [first], sync: await syncEvents(context, origin), id: null };
  while (player.tabs.length < tabs) {
    const page = await context.newPage();
    await page.goto(origin + '/');
    player.tabs.push(page);
  }
  return player;
}

/** The games to play: every mode once (in a random order), then modes by weight. */
function planGames(random, games) {
  const total = Object.values(MODE_WEIGHTS).reduce((sum, w) => sum + w, 0);
  const weighted = () => {
    let draw = random() * total;
    return Object.keys(MODE_WEIGHTS).find((mode) => (draw -= MODE_WEIGHTS[mode]) < 0) ?? 'zh';
  };
  // At most one 60 s `time` game per 20, so a short run stays short.
  let timeGames = 1;
  const capped = () => {
    const mode = weighted();
    if (mode !== 'time') return mode;
    return ++timeGames <= Math.ceil(games / 20) ? mode : 'zh';
  };
  const modes = [...shuffle(random, MODES), ...Array.from({ length: games }, capped)];
  // Each game its own seeds (restarts step the seed by one), so no prompt seed repeats.
  return modes.slice(0, games).map((mode, i) => ({ mode, seed: 1_000 * (i + 1) }));
}

/**
 * Plays one game through the UI at a human pace with jitter (`between([low, high])`
 * draws a pause): a short passage for `quote` and `zh` (restarting until one comes up),
 * all of `words`, the first few words of `time` and then its 60 s. Resolves to
 * { mode, value, week } once the result is saved.
 */
export async function playHumanGame(page, origin, { mode, seed }, between = ([low, high]) => low + Math.random() * (high - low)) {
  await page.goto(`${origin}/?seed=${seed}`);
  await page.getByTestId(`mode-${mode}`).click();
  let prompt = await page.getByTestId('prompt').textContent();
  for (let restarts = 0; SHORT[mode] && [...prompt].length > SHORT[mode]; restarts++) {
    if (restarts === 100) throw new Error(`no ${mode} passage of at most ${SHORT[mode]} characters`);
    await page.getByTestId('restart').click();
    // A different seed may pick the same passage: then the text never changes. A stale
    // read is harmless too: it is the long text, so the loop restarts again.
    await page
      .waitForFunction((shown) => document.querySelector('[data-testid="prompt"]')?.textContent !== shown, prompt, {
        timeout: 2_000,
      })
      .catch(() => {});
    prompt = await page.getByTestId('prompt').textContent();
  }
  const text = mode === 'time' ? prompt.slice(0, Math.round(between(TIME_GAME_CHARS))) : prompt;
  const input = page.getByTestId('input');
  await input.focus();
  if (mode === 'zh') {
    // An input method commits whole characters: insertText is what the page receives.
    const cdp = await page.context().newCDPSession(page);
    for (const ch of text) {
      await cdp.send('Input.insertText', { text: ch });
      await sleep(between(PACE.zh));
    }
    await cdp.detach();
  } else {
    for (const ch of text) {
      await page.keyboard.type(ch);
      await sleep(between(PACE.en));
    }
  }
  await page.getByTestId('saved').waitFor({ timeout: mode === 'time' ? 90_000 : 30_000 });
  const value = Number(await page.getByTestId('result-value').getAttribute('data-value'));
  return { mode, value, week: weekOf(Date.now()) };
}

/** Waits until every profile's outbox is empty and every open tab shows 0 pending. */
async function quiescent(players) {
  const deadline = Date.now() + QUIESCENCE_MS;
  for (const player of players) {
    let left;
    while ((left = await readOutbox(player.tabs[0])).length > 0) {
      if (Date.now() > deadline) throw new Error(`still pending after the faults stopped: ${JSON.stringify(left)}`);
      await sleep(500);
    }
    for (const page of player.tabs) {
      await page.waitForSelector('[data-testid="sync-status"][data-pending="0"]', {
        timeout: Math.max(deadline - Date.now(), 1),
      });
    }
  }
}

/**
 * The server's rows against the games played: one save per profile, and per (player,
 * mode) and (player, mode, week) exactly the best value played. Every difference is a
 * mismatch, in words. A weekly row is only written while its week is the server's
 * current one, so if the run crossed a week boundary, an earlier week's row may be
 * missing or hold a lower game of that week, but never anything else.
 */
function compare(played, players, server, started) {
  const mismatches = [];
  const saves = queryDatabase(server.dataDir, 'SELECT player_id FROM players').map((r) => r.player_id);
  const ids = players.map((p) => p.id);
  if (ids.some((id) => !id)) mismatches.push(`a profile has no save: ${JSON.stringify(ids)}`);
  if (saves.length !== players.length || !ids.every((id) => saves.includes(id))) {
    mismatches.push(`saves on the server ${JSON.stringify(saves)}, profiles' saves ${JSON.stringify(ids)}`);
  }
  const best = (games) => Math.max(...games.map((g) => g.value));
  const allTime = groupBy(played, (g) => `${ids[g.profile]} ${g.mode}`);
  const weekly = groupBy(played, (g) => `${ids[g.profile]} ${g.mode} ${g.week}`);
  const rows = (sql) => new Map(queryDatabase(server.dataDir, sql).map((r) => [r.key, r.value]));
  // A held result (docs/replay.md) is recorded and counts for its player, but is off the
  // public boards until reviewed: the server has a game if its board row or its best
  // held result holds it.
  const withHeld = (boardRows, heldSql) => {
    const accepted = new Map(boardRows);
    for (const [key, value] of rows(heldSql)) accepted.set(key, Math.max(value, accepted.get(key) ?? -Infinity));
    return accepted;
  };
  const allTimeRows = withHeld(
    rows("SELECT player_id || ' ' || mode AS key, value FROM scores"),
    "SELECT player_id || ' ' || mode AS key, max(value) AS value FROM results WHERE state = 'held' GROUP BY 1",
  );
  const weeklyRows = withHeld(
    rows("SELECT player_id || ' ' || mode || ' ' || week AS key, value FROM weekly_scores"),
    `SELECT player_id || ' ' || mode || ' ' || board_week AS key, max(value) AS value FROM results
     WHERE state = 'held' AND board_week IS NOT NULL GROUP BY 1`,
  );
  const currentWeek = weekOf(Date.now());
  const crossedWeek = weekOf(started) !== currentWeek;

  for (const [key, games] of allTime) {
    if (allTimeRows.get(key) !== best(games)) {
      mismatches.push(`all-time ${key}: server ${allTimeRows.get(key)}, best played ${best(games)}`);
    }
  }
  for (const [key, games] of weekly) {
    const value = weeklyRows.get(key);
    const earlier = crossedWeek && games[0].week < currentWeek;
    const fine = earlier ? value === undefined || games.some((g) => g.value === value) : value === best(games);
    if (!fine) mismatches.push(`week ${key}: server ${value}, best played ${best(games)}`);
  }
  for (const key of allTimeRows.keys()) if (!allTime.has(key)) mismatches.push(`all-time row nobody played: ${key}`);
  for (const key of weeklyRows.keys()) if (!weekly.has(key)) mismatches.push(`weekly row nobody played: ${key}`);
  return mismatches;
}

function groupBy(items, keyOf) {
  const groups = new Map();
  for (const item of items) {
    const key = keyOf(item);
    groups.set(key, [...(groups.get(key) ?? []), item]);
  }
  return groups;
}

/** Prints a report: games, faults by kind, mismatches, wall time. */
export function printReport(report, print = console.log) {
  print(`chaos run (seed ${report.seed})`);
  print(`  games: ${report.games} (${Object.entries(report.modes).map(([m, n]) => `${m} ${n}`).join(', ')})`);
  print(`  /api requests through the proxy: ${report.requests}`);
  print('  faults injected:');
  for (const [kind, n] of Object.entries(report.faults)) print(`    ${kind}: ${n}`);
  print(`  results held for review: ${report.held.length}`);
  for (const h of report.held) print(`    ${h.mode} ${h.value} (${h.holds})`);
  print(`  mismatches: ${report.mismatches.length}`);
  for (const m of report.mismatches) print(`    ${m}`);
  print(`  wall time: ${(report.wallMs / 1000).toFixed(1)} s`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { games: { type: 'string' }, profiles: { type: 'string' } } });
  const games = Number(values.games ?? process.env.KEYDO_CHAOS_GAMES ?? 500);
  const profiles = Number(values.profiles ?? 1);
  const seed = newSeed();
  try {
    const report = await runChaos({ games, profiles, seed, log: console.log });
    printReport(report);
    process.exitCode = report.mismatches.length === 0 ? 0 : 1;
  } catch (error) {
    console.error(`chaos run failed (seed ${seed}; repeat with KEYDO_FAULT_SEED=${seed}):`);
    console.error(error);
    process.exitCode = 1;
  }
}
