// What a verified POST /api/scores costs on PostgreSQL, and whether servers add up
// (docs/operations.md, "What a submission costs" and "Servers that add up"). Loopback only.
//
//   scripts/with-postgres.sh --durable node scripts/bench-postgres.mjs
//   PARTS=cost DURATION=20s scripts/with-postgres.sh --durable node scripts/bench-postgres.mjs
//
// 1. cost: one server straight over HTTP, SQLite (`synchronous = FULL`) then PostgreSQL
//    (with TLS, without, and over its Unix socket), the same kind of games: req/s and
//    p99, and per request the CPU time of the server, of PostgreSQL (the postmaster and
//    every backend, from /proc) and of wrk, the statements PostgreSQL ran
//    (pg_stat_statements, BEGIN and COMMIT included) and its commits (pg_stat_database).
// 2. quotas: the CPU each part may use is fixed, so adding a server adds its share:
//    PostgreSQL pinned to CPU 1; each server pinned to CPU 0 in its own cgroup allowed
//    QUOTA % of a CPU; one wrk per server, pinned to CPU LOAD_CPU (1: beside
//    PostgreSQL, which uses at most half of it, so the servers' core runs only servers;
//    0: beside the servers), each with CONNECTIONS_PER_SERVER connections, more than a
//    server's share can answer.
//    ROUNDS rounds of 1, 2 and 3 servers on one database; the ratios to each round's
//    one server, and their medians, are the result.
//    Needs root and the cgroup v1 `cpu` controller or cgroup v2.
// 3. round-trips: what a round trip itself costs, apart from KeyDo's statements
//    (server/examples/round_trips.rs over the cluster's Unix socket): transactions of
//    nine trivial statements each awaited before the next, against the same sent in
//    three flights; ROUNDS rounds, per transaction the CPU of PostgreSQL and of the
//    client.
//
// Every request is a real `words` game the server verifies by replay (docs/replay.md),
// written by server/examples/verified_bodies.rs, GAMES seeds per save. Needs the release
// build (make server), wrk and taskset.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { testPostgres } from '../tests/e2e/deploy.mjs';
import { scoresScript, tokens } from './bench/verified-games.mjs';
import { ROOT, startServer, tempDir } from '../tests/e2e/harness.mjs';

const DURATION = process.env.DURATION ?? '5s';
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 32);
// Enough games that a run sends each once: resends are answered from the first
// receipt and cost less than a new game.
const PLAYERS = Number(process.env.PLAYERS ?? 1024);
const GAMES = Number(process.env.GAMES ?? 40);
const QUOTA = Number(process.env.QUOTA ?? 10);
// Each server gets the same load, so more servers are offered more.
const CONNECTIONS_PER_SERVER = Number(process.env.CONNECTIONS_PER_SERVER ?? 16);
const LOAD_CPU = Number(process.env.LOAD_CPU ?? 1);
// Rounds of 1, 2 and 3 servers: each round's ratios are to its own one-server run.
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const PARTS = (process.env.PARTS ?? 'cost,quotas,round-trips').split(',');
const UNLIMITED = ['--rate-limit-per-ip', '1000000000', '--rate-limit-per-identity', '1000000000',
  '--rate-limit-saves', '1000000000'];
const TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));

const work = tempDir('bench-postgres');
execFileSync('cargo', ['build', '--release', '-q', '-p', 'keydo-server', '--example', 'verified_bodies',
  '--example', 'round_trips'],
  { cwd: ROOT, stdio: 'inherit' });
const postgres = testPostgres();
if (!postgres || !process.env.KEYDO_TEST_POSTGRES_PID) {
  throw new Error('run through scripts/with-postgres.sh --durable');
}
const postmaster = Number(process.env.KEYDO_TEST_POSTGRES_PID);
/** Servers to stop if a run fails. */
const running = new Set();

/** CPU seconds (user + system) a process has used; with `children`, its waited-for children's too. */
function cpuSeconds(pid, children = false) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ').map(Number);
  // Fields 14-17 of proc(5), counted from the state (field 3) here.
  const [utime, stime, cutime, cstime] = fields.slice(11, 15);
  return (utime + stime + (children ? cutime + cstime : 0)) / TICKS;
}

/** The postmaster's child processes now: each one's pid and state (proc(5)). */
function postmasterChildren() {
  const children = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(ppid) === postmaster) children.push({ pid: entry, state });
    } catch {
      // Exited while listed.
    }
  }
  return children;
}

/** PostgreSQL's CPU seconds: the postmaster, its live processes, and those that exited. */
function postgresSeconds() {
  let total = cpuSeconds(postmaster, true);
  for (const { pid } of postmasterChildren()) {
    try {
      total += cpuSeconds(pid);
    } catch {
      // Exited since listed: its time is in the postmaster's children now.
    }
  }
  return total;
}

/**
 * Runs wrk (pinned to `cpu` if given) and returns its requests, req/s, p99 and CPU
 * seconds (from the shell's `times`, which reports its waited-for children).
 */
async function wrk(url, script, { connections = CONNECTIONS, cpu, duration = DURATION } = {}) {
  const command = `${cpu === undefined ? '' : `taskset -c ${cpu} `}wrk -t1 -c${connections} -d${duration} ` +
    `--latency -s '${script}' ${url}; times`;
  const { stdout: out } = await promisify(execFile)('sh', ['-c', command], { encoding: 'utf8' });
  const times = out.trim().split('\n').slice(-2).join(' ').match(/(\d+)m([\d.]+)s/g)
    .map((t) => { const [, m, s] = t.match(/(\d+)m([\d.]+)s/); return Number(m) * 60 + Number(s); });
  const unit = { us: 1e-3, ms: 1, s: 1000 };
  const [, p99, p99Unit] = out.match(/^\s+99%\s+([\d.]+)(us|ms|s)/m);
  const non2xx = Number(out.match(/Non-2xx or 3xx responses: (\d+)/)?.[1] ?? 0);
  if (non2xx > 0) throw new Error(`${non2xx} answers were not 2xx:\n${out}`);
  return {
    requests: Number(out.match(/^\s+(\d+) requests in/m)[1]),
    rps: Number(out.match(/^Requests\/sec:\s+(\S+)/m)[1]),
    p99: Number(p99) * unit[p99Unit],
    cpu: times[2] + times[3],
  };
}

/** `url`'s database over the cluster's Unix socket (with-postgres.sh names its directory). */
function unixSocket(url) {
  const { port, pathname, username } = new URL(url);
  const dir = encodeURIComponent(process.env.KEYDO_TEST_POSTGRES_SOCKET_DIR);
  return `postgres://${username}@${dir}:${port}${pathname}`;
}

async function keydo(args) {
  return startServer({ args: [...UNLIMITED, ...args] });
}

const ms = (seconds, requests) => ((seconds * 1000) / requests).toFixed(3);

async function cost() {
  console.log(`== cost of a verified POST /api/scores: one server, direct HTTP, ${CONNECTIONS} connections, ${DURATION}`);
  console.log(`${'database'.padEnd(50)}  req/s   p99 ms   CPU ms per request: server, PostgreSQL, wrk;  ` +
    'statements, commits per request');
  // A database per run: the same simulated games are sent each time, and a database
  // spends a game's log once (docs/replay.md).
  const database = postgres.createDatabase();
  const fsync = database.query('SHOW fsync');
  const commit = database.query('SHOW synchronous_commit');
  const runs = [
    { label: 'SQLite (synchronous = FULL)' },
    { label: `PostgreSQL, TLS (fsync ${fsync}, sync. commit ${commit})`, url: (url) => url },
    { label: `PostgreSQL, no TLS (fsync ${fsync}, sync. commit ${commit})`, url: (url) => `${url}?sslmode=disable` },
    // The same host's PostgreSQL over its Unix socket, as docs/operations.md advises.
    { label: `PostgreSQL, Unix socket (fsync ${fsync}, sync. commit ${commit})`, url: unixSocket },
  ];
  for (const { label, url } of runs) {
    const onPostgres = url !== undefined;
    const own = onPostgres ? postgres.createDatabase() : null;
    const server = await keydo(onPostgres ? ['--database-url', url(own.url)] : []);
    running.add(server);
    const db = own ?? database;
    db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    // Warm the server's caches and PostgreSQL's connections and statements on other saves.
    await wrk(server.origin, scoresScript(work, await tokens(server.origin, 64), 4), { duration: '2s' });
    const script = scoresScript(work, await tokens(server.origin, PLAYERS), GAMES);
    db.query('SELECT pg_stat_statements_reset(), pg_stat_reset()');
    const commits = () => Number(db.query(
      'SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()'));
    const before = { server: cpuSeconds(server.pid), postgres: postgresSeconds(), commits: commits() };
    const run = await wrk(server.origin, script);
    const after = { server: cpuSeconds(server.pid), postgres: postgresSeconds(), commits: commits() };
    const statements = onPostgres ? (Number(db.query(
      `SELECT sum(calls) FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
       WHERE d.datname = current_database() AND s.query NOT LIKE '%pg_stat%'`)) / run.requests).toFixed(1) : '-';
    const commitsPer = onPostgres ? ((after.commits - before.commits) / run.requests).toFixed(2) : '-';
    const tls = onPostgres ? `, ${db.query(
      `SELECT count(*) FILTER (WHERE s.ssl) || ' of ' || count(*) FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid)
       WHERE a.datname = current_database() AND a.pid <> pg_backend_pid()`)} connections over TLS` : '';
    console.log(`${label.padEnd(50)} ${String(Math.round(run.rps)).padStart(6)}  ${run.p99.toFixed(1).padStart(7)}` +
      `   ${ms(after.server - before.server, run.requests).padStart(6)}  ${ms(after.postgres - before.postgres, run.requests).padStart(10)}` +
      `  ${ms(run.cpu, run.requests).padStart(5)}  ${statements.padStart(10)}  ${commitsPer.padStart(7)}${tls}`);
    if (onPostgres) {
      console.log('  statements per request, by statement (calls per request, mean ms):');
      const rows = db.query(
        `SELECT round(calls::numeric / ${run.requests}, 2) || ' | ' || round(mean_exec_time::numeric, 3) || ' | ' ||
           regexp_replace(left(query, 90), '\\s+', ' ', 'g')
         FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
         WHERE d.datname = current_database() AND s.query NOT LIKE '%pg_stat%' ORDER BY calls DESC LIMIT 25`);
      for (const row of rows.split('\n')) console.log(`    ${row}`);
    }
    await server.stop();
    running.delete(server);
    own?.drop();
  }
  database.drop();
}

/** A CPU cgroup allowing `percent` of one CPU: v2 if mounted there, else v1's `cpu` controller. */
function cpuGroup(name, percent) {
  const v2 = '/sys/fs/cgroup/cgroup.controllers';
  const dir = existsSync(v2) ? `/sys/fs/cgroup/${name}` : `/sys/fs/cgroup/cpu/${name}`;
  mkdirSync(dir, { recursive: true });
  const quota = Math.round(percent * 1000);
  if (existsSync(v2)) writeFileSync(join(dir, 'cpu.max'), `${quota} 100000`);
  else writeFileSync(join(dir, 'cpu.cfs_quota_us'), String(quota));
  return {
    add: (pid) => writeFileSync(join(dir, 'cgroup.procs'), String(pid)),
    remove: () => rmdirSync(dir),
  };
}

async function quotas() {
  if (process.getuid?.() !== 0 || !(existsSync('/sys/fs/cgroup/cgroup.controllers') || existsSync('/sys/fs/cgroup/cpu'))) {
    console.log('== quotas skipped: needs root and a CPU cgroup controller');
    return;
  }
  console.log(`== servers under CPU quotas: PostgreSQL pinned to CPU 1; each server pinned to CPU 0 with ` +
    `${QUOTA} % of a CPU; wrk pinned to CPU ${LOAD_CPU}, ${CONNECTIONS_PER_SERVER} connections per server; ` +
    `server to PostgreSQL without TLS; ${DURATION} per run`);
  // PostgreSQL on its own CPU; the backends it forks later inherit the pin.
  execFileSync('sh', ['-c', `for pid in ${postmaster} $(pgrep -P ${postmaster}); do taskset -a -p -c 1 $pid >/dev/null; done`]);
  const ratios = { 2: [], 3: [] };
  for (let round = 1; round <= ROUNDS; round++) {
    console.log(`round ${round}`);
    const one = await quotaRun(1);
    for (const count of [2, 3]) ratios[count].push((await quotaRun(count, one)) / one);
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  console.log(`median over ${ROUNDS} rounds: 2 servers ${median(ratios[2]).toFixed(2)}x one, ` +
    `3 servers ${median(ratios[3]).toFixed(2)}x one`);
}

/** One run of `count` servers under quotas; returns its req/s. */
async function quotaRun(count, one) {
  const database = postgres.createDatabase();
  const servers = [];
  const groups = [];
  for (let n = 0; n < count; n++) {
    const server = await keydo(['--database-url', `${database.url}?sslmode=disable`]);
    running.add(server);
    execFileSync('taskset', ['-a', '-p', '-c', '0', String(server.pid)], { stdio: 'ignore' });
    const group = cpuGroup(`keydo-bench-server-${n}`, QUOTA);
    // Every thread: on v1 `cgroup.procs` moves the whole process.
    group.add(server.pid);
    servers.push(server);
    groups.push(group);
  }
  const scripts = [];
  for (const server of servers) scripts.push(scoresScript(work, await tokens(server.origin, Math.ceil(PLAYERS / count)), GAMES));
  const before = { postgres: postgresSeconds(), servers: servers.map((server) => cpuSeconds(server.pid)) };
  const runs = await Promise.all(servers.map((server, n) =>
    wrk(server.origin, scripts[n], { connections: CONNECTIONS_PER_SERVER, cpu: LOAD_CPU })));
  const postgresCpu = postgresSeconds() - before.postgres;
  const serverCpu = servers.map((server, n) => cpuSeconds(server.pid) - before.servers[n]);
  const rps = runs.reduce((sum, run) => sum + run.rps, 0);
  const requests = runs.reduce((sum, run) => sum + run.requests, 0);
  const p99 = Math.max(...runs.map((run) => run.p99));
  const seconds = Number.parseFloat(DURATION);
  console.log(`${count} server${count > 1 ? 's' : ' '}  ${String(Math.round(rps)).padStart(6)} req/s  ` +
    `(${(rps / (one ?? rps)).toFixed(2)}x one)  worst p99 ${p99.toFixed(1)} ms  PostgreSQL ` +
    `${((postgresCpu / seconds) * 100).toFixed(0)} % of its CPU, ${ms(postgresCpu, requests)} ms per request; ` +
    `servers ${serverCpu.map((cpu) => `${((cpu / seconds) * 100).toFixed(0)} %`).join(', ')} of a CPU, ` +
    `${ms(serverCpu.reduce((sum, cpu) => sum + cpu, 0), requests)} ms per request`);
  for (const server of servers) {
    await server.stop();
    running.delete(server);
  }
  for (const group of groups) group.remove();
  database.drop();
  return rps;
}

/**
 * Waits (at most 2 s) until no backend serves `url`'s database and the postmaster has
 * reaped every exited one: a backend's CPU time is in its own /proc entry while it
 * runs and in the postmaster's children's times once reaped, not in between.
 */
async function backendsGone(url) {
  const name = new URL(url).pathname.slice(1);
  for (let wait = 0; wait < 100; wait++) {
    const lingering = postmasterChildren().some(({ pid, state }) => {
      try {
        return state === 'Z' || readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(` ${name} `);
      } catch {
        return false;
      }
    });
    if (!lingering) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`backends of ${name} still there after 2 s`);
}

async function roundTrips() {
  const connections = 8;
  const seconds = Number.parseFloat(DURATION);
  console.log(`== a round trip's cost: ${connections} connections on one client thread, over the Unix socket, ` +
    `transactions of nine trivial statements, ${DURATION} per run`);
  const database = postgres.createDatabase();
  const probe = join(ROOT, 'target', 'release', 'examples', 'round_trips');
  for (let round = 1; round <= ROUNDS; round++) {
    for (const how of ['one-at-a-time', 'flights']) {
      const before = postgresSeconds();
      const out = execFileSync(probe, [how, unixSocket(database.url), String(connections), String(seconds)],
        { encoding: 'utf8', timeout: (seconds + 30) * 1000 });
      await backendsGone(database.url);
      const spent = postgresSeconds() - before;
      const transactions = Number(out.match(/^transactions (\d+)$/m)[1]);
      const client = Number(out.match(/^cpu_ticks (\d+)$/m)[1]) / TICKS;
      console.log(`round ${round} ${how.padEnd(13)} ${String(Math.round(transactions / seconds)).padStart(7)} ` +
        `transactions/s  CPU per transaction: PostgreSQL ${ms(spent, transactions)} ms, client ${ms(client, transactions)} ms`);
    }
  }
  database.drop();
}

try {
  if (PARTS.includes('cost')) await cost();
  if (PARTS.includes('quotas')) await quotas();
  if (PARTS.includes('round-trips')) await roundTrips();
} finally {
  for (const server of running) await server.stop();
  rmSync(work, { recursive: true, force: true });
}
