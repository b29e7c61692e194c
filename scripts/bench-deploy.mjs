// Measures KeyDo as deployed (loopback only): POST /api/scores throughput and p99
// straight to keydo-server vs through nginx with TLS (deploy/nginx.conf), one vs two
// servers on one PostgreSQL behind nginx, and the server's memory holding 10 000 idle
// connections (the default --max-connections).
//
//   scripts/with-postgres.sh --durable node scripts/bench-deploy.mjs
//   DURATION=30s CONNECTIONS=64 IDLE=5000 scripts/with-postgres.sh --durable node scripts/bench-deploy.mjs
//
// Every figure says how durable its database is (SQLite `synchronous = FULL`;
// PostgreSQL's fsync and synchronous_commit, read from the cluster: `make bench` runs
// it `--durable`) and where TLS was: client to nginx, and server to PostgreSQL (read
// from pg_stat_ssl while the servers are connected).
//
// Every request is a real `words` game the server verifies by replay (docs/replay.md),
// written by server/examples/verified_bodies.rs, GAMES seeds per save.
//
// Needs the release build (make dist server), wrk, nginx and openssl.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { startNginx, testCertificate, testPostgres } from '../tests/e2e/deploy.mjs';
import { ROOT, freePort, startServer, tempDir } from '../tests/e2e/harness.mjs';
import { scoresScript, tokens } from './bench/verified-games.mjs';

const DURATION = process.env.DURATION ?? '10s';
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 32);
const PLAYERS = Number(process.env.PLAYERS ?? 256);
const GAMES = Number(process.env.GAMES ?? 16);
const IDLE = Number(process.env.IDLE ?? 10_000);
const UNLIMITED = ['--rate-limit-per-ip', '1000000000', '--rate-limit-per-identity', '1000000000',
  '--rate-limit-saves', '1000000000'];

const work = tempDir('bench-deploy');
execFileSync('cargo', ['build', '--release', '-q', '-p', 'keydo-server', '--example', 'verified_bodies'],
  { cwd: ROOT, stdio: 'inherit' });
const certificate = testCertificate();
const postgres = testPostgres();

/** Runs wrk and prints one line: requests/s, p99, non-2xx answers. */
function wrk(label, url, script) {
  const out = execFileSync('wrk', ['-t2', `-c${CONNECTIONS}`, `-d${DURATION}`, '--latency', '-s', script, url],
    { encoding: 'utf8' });
  const rps = out.match(/^Requests\/sec:\s+(\S+)/m)?.[1];
  const p99 = out.match(/^\s+99%\s+(\S+)/m)?.[1];
  const non2xx = out.match(/Non-2xx or 3xx responses: (\d+)/)?.[1] ?? '0';
  console.log(`${label.padEnd(44)} ${rps.padStart(10)} req/s   p99 ${p99.padStart(8)}   non-2xx ${non2xx}`);
}

async function keydo(args, publicPort) {
  return startServer({
    args: [...UNLIMITED, '--trusted-proxies', '127.0.0.1',
      ...(publicPort ? ['--public-origin', `https://127.0.0.1:${publicPort}`] : []), ...args],
  });
}

async function throughput() {
  console.log(`== POST /api/scores, ${CONNECTIONS} connections, ${DURATION} per run`);
  const port = await freePort();
  const sqlite = await keydo([], port);
  const nginx = await startNginx({ upstreams: [new URL(sqlite.origin).host], certificate, port });
  const script = scoresScript(work, await tokens(sqlite.origin, PLAYERS), GAMES);
  console.log('SQLite: synchronous = FULL (every commit fsynced)');
  wrk('1 server, SQLite, direct (HTTP)', sqlite.origin, script);
  wrk('1 server, SQLite, through nginx (HTTPS)', nginx.origin, script);
  await nginx.stop();
  await sqlite.stop();

  if (!postgres) {
    console.log('(PostgreSQL runs skipped: run through scripts/with-postgres.sh)');
    return;
  }
  for (const count of [1, 2]) {
    const database = postgres.createDatabase();
    const publicPort = await freePort();
    const servers = [];
    for (let n = 0; n < count; n++) servers.push(await keydo(['--database-url', database.url], publicPort));
    const proxy = await startNginx({
      upstreams: servers.map((s) => new URL(s.origin).host), certificate, port: publicPort,
    });
    const pgScript = scoresScript(work, await tokens(servers[0].origin, PLAYERS), GAMES);
    if (count === 1) console.log(durability(database));
    if (count === 1) wrk('1 server, PostgreSQL, direct (HTTP)', servers[0].origin, pgScript);
    wrk(`${count} server${count > 1 ? 's' : ''}, PostgreSQL, through nginx (HTTPS)`, proxy.origin, pgScript);
    await proxy.stop();
    for (const server of servers) await server.stop();
    database.drop();
  }
}

/** PostgreSQL's durability settings and how many of the servers' connections use TLS. */
function durability(database) {
  const fsync = database.query('SHOW fsync');
  const commit = database.query('SHOW synchronous_commit');
  const [tls, all] = database
    .query(
      `SELECT count(*) FILTER (WHERE s.ssl), count(*) FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid)
       WHERE a.datname = current_database() AND a.pid <> pg_backend_pid()`,
    )
    .split('|');
  return `PostgreSQL: fsync ${fsync}, synchronous_commit ${commit}${fsync === 'on' ? '' : ' (NOT durable)'}; ` +
    `server to PostgreSQL: ${tls} of ${all} connections over TLS`;
}

function rssKiB(pid) {
  return Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+)/m)[1]);
}

async function idleMemory() {
  console.log(`== memory holding ${IDLE} idle connections`);
  // Room above the idle ones for the health check that follows.
  const server = await keydo(['--header-timeout-secs', '600', '--max-connections', String(IDLE + 16)]);
  const { port } = new URL(server.origin);
  const pid = Number(execFileSync('sh', ['-c', `ss -Hltnp 'sport = :${port}' | grep -o 'pid=[0-9]*' | head -1`],
    { encoding: 'utf8' }).trim().slice(4));
  const before = rssKiB(pid);
  const sockets = [];
  for (let i = 0; i < IDLE; i++) {
    sockets.push(await new Promise((done, fail) => {
      const socket = connect(Number(port), '127.0.0.1', () => done(socket));
      socket.on('error', fail);
    }));
  }
  await sleep(1000);
  const opened = rssKiB(pid);
  const health = await fetch(`${server.origin}/api/health`).then((r) => r.status).catch((e) => e.message);
  console.log(`RSS ${before} KiB idle, ${opened} KiB with ${IDLE} idle connections ` +
    `(${(((opened - before) * 1024) / IDLE).toFixed(0)} bytes each); /api/health then: ${health}`);
  for (const socket of sockets) socket.destroy();
  await server.stop();
}

try {
  await throughput();
  await idleMemory();
} finally {
  rmSync(work, { recursive: true, force: true });
  rmSync(certificate.dir, { recursive: true, force: true });
}
