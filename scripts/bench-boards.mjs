// Measures the boards at a million players (docs/operations.md, "Ranks at a million"):
// the seeded fixture's load time, GET /api/leaderboard's top 100 and "my rank" (all
// time and weekly) p50/p99 over players sampled evenly across the board, each served
// rank checked against a count of the rows above it, and the rank's plan at chosen
// places.
//
//   scripts/with-postgres.sh --durable node scripts/bench-boards.mjs
//   PLAYERS=100000 node scripts/bench-boards.mjs          # SQLite, without a cluster
//
// Then a 90/10 mix on the `words` boards: nine "my rank" reads for every verified game
// posted (server/examples/verified_bodies.rs, games of sampled fixture players).
//
// The server is the release build (make dist server) on loopback HTTP; the fixture is
// server/examples/board_fixture.rs. Reads go one at a time, then CONCURRENCY at a time.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { testPostgres } from '../tests/e2e/deploy.mjs';
import { ROOT, startServer, tempDir } from '../tests/e2e/harness.mjs';

const PLAYERS = Number(process.env.PLAYERS ?? 1_000_000);
const SAMPLES = Number(process.env.SAMPLES ?? 1_000);
const TOP_REQUESTS = Number(process.env.TOP_REQUESTS ?? 2_000);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 8);
const MODE = process.env.MODE ?? 'time';
const MIX_REQUESTS = Number(process.env.MIX_REQUESTS ?? 5_000);
const DEEPEST = Math.max(1, PLAYERS - 1_000);
const PLACES = [1, 1_000, 100_000, 500_000, 999_000].filter((place) => place <= DEEPEST);
// The UTC+8 week of now (keydo_core::api::week): the server's weekly board.
const WEEK_MS = 7 * 24 * 3600 * 1000;
const WEEK = Math.floor((Date.now() + 8 * 3600 * 1000 + 3 * 24 * 3600 * 1000) / WEEK_MS);

for (const example of ['board_fixture', 'verified_bodies']) {
  execFileSync('cargo', ['build', '--release', '-q', '-p', 'keydo-server', '--example', example],
    { cwd: ROOT, stdio: 'inherit' });
}
const examples = join(process.env.CARGO_TARGET_DIR ?? join(ROOT, 'target'), 'release', 'examples');
const postgres = testPostgres();
const dataDir = tempDir('bench-boards');
// The server finds SQLite as keydo.sqlite3 in its data directory.
const database = postgres
  ? { ...postgres.createDatabase(), serverArgs() { return ['--database-url', this.url]; } }
  : { url: join(dataDir, 'keydo.sqlite3'), serverArgs: () => [], drop() {} };
const fixture = (command, ...args) => execFileSync(join(examples, 'board_fixture'),
  [command, '--database', database.url, '--players', String(PLAYERS), '--last-week', String(WEEK),
    '--mode', MODE, ...args],
  { encoding: 'utf8', maxBuffer: 64 << 20 });

function percentiles(times) {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return `p50 ${at(0.5).toFixed(2)} ms, p99 ${at(0.99).toFixed(2)} ms (${sorted.length} requests)`;
}

/** Verified `words` games by the players of `tokens`, `games` each: [{ token, body }]. */
function verifiedGames(tokens, games) {
  const tokensFile = join(dataDir, 'mix-tokens');
  const out = join(dataDir, 'mix-bodies.lua');
  writeFileSync(tokensFile, tokens.join('\n'));
  execFileSync(join(examples, 'verified_bodies'), ['words', tokensFile, String(games), String(Date.now()), out]);
  return readFileSync(out, 'utf8').split('\n')
    .map((line) => line.match(/^ {2}\{ token = "([^"]+)", body = \[\[(.*)\]\] \},$/))
    .filter(Boolean)
    .map(([, token, body]) => ({ token, body }));
}

/** Runs `task(i)` for i < count, `concurrency` at a time; returns each one's milliseconds. */
async function timed(count, task, concurrency = CONCURRENCY) {
  const times = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const started = performance.now();
      await task(i);
      times.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return times;
}

try {
  const durability = postgres
    ? `PostgreSQL, fsync ${database.query('SHOW fsync')}, synchronous_commit ${database.query('SHOW synchronous_commit')}`
    : 'SQLite, synchronous = FULL';
  console.log(`${PLAYERS} players on ${durability}; loopback HTTP without TLS; ${CONCURRENCY} requests at a time`);
  const loaded = JSON.parse(fixture('load'));
  console.log(`load: ${loaded.players} players, ${loaded.games} games in ${loaded.seconds.toFixed(1)} s`);
  const sampled = JSON.parse(fixture('sample', '--count', String(SAMPLES)));
  console.log(`plans of the rank (${MODE}, all time):\n${fixture('explain', ...PLACES.map(String))}`);

  const server = await startServer({ dataDir, args: [...database.serverArgs(),
    '--rate-limit-per-ip', '1000000000', '--rate-limit-per-identity', '1000000000'] });
  const boardOf = (mode, which, limit, token) => fetch(
    `${server.origin}/api/leaderboard?mode=${mode}&board=${which}&limit=${limit}`,
    { headers: token ? { authorization: `Bearer ${token}` } : {} },
  ).then((response) => {
    if (!response.ok) throw new Error(`leaderboard: HTTP ${response.status}`);
    return response.json();
  });
  const board = (which, limit, token) => boardOf(MODE, which, limit, token);
  try {
    // One request at a time: what a read costs; CONCURRENCY at a time: under load.
    for (const concurrency of [1, CONCURRENCY]) {
      for (const which of ['alltime', 'weekly']) {
        const times = await timed(TOP_REQUESTS, () => board(which, 100), concurrency);
        console.log(`top 100, ${which}, ${concurrency} at a time: ${percentiles(times)}`);
      }
      for (const which of ['alltime', 'weekly']) {
        const players = sampled.filter((player) => player[which] !== null);
        let differences = 0;
        const times = await timed(players.length, async (i) => {
          const answer = await board(which, 1, players[i].token);
          if (answer.me?.rank !== players[i][which]) differences++;
        }, concurrency);
        console.log(`my rank, ${which}, ${concurrency} at a time: ${percentiles(times)}; ` +
          `${differences} of ${players.length} differ from a count of the rows above`);
        if (differences > 0) process.exitCode = 1;
      }
    }

    const writes = verifiedGames(sampled.slice(0, 250).map((player) => player.token), 2);
    const [readTimes, writeTimes] = [[], []];
    let written = 0;
    const started = performance.now();
    await timed(MIX_REQUESTS, async (i) => {
      const at = performance.now();
      if (i % 10 === 9 && written < writes.length) {
        const { token, body } = writes[written++];
        const response = await fetch(`${server.origin}/api/scores`, {
          method: 'POST', body,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        });
        if (!response.ok) throw new Error(`scores: HTTP ${response.status} ${await response.text()}`);
        writeTimes.push(performance.now() - at);
      } else {
        await boardOf('words', 'alltime', 1, sampled[i % sampled.length].token);
        readTimes.push(performance.now() - at);
      }
    });
    const seconds = (performance.now() - started) / 1000;
    console.log(`90/10 mix on words (${(MIX_REQUESTS / seconds).toFixed(0)} req/s): ` +
      `my rank ${percentiles(readTimes)}; verified games posted ${percentiles(writeTimes)}`);
  } finally {
    await server.stop();
  }
} finally {
  database.drop();
}
