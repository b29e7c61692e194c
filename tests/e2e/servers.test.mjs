// Two keydo-server processes on one PostgreSQL behind nginx (deploy/nginx.conf, round
// robin): Chromium plays and syncs through it, and every promise holds across both
// servers: best-only upserts, one save per profile, idempotent replays, leaderboards.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { httpsRequest, startNginx, testCertificate, testPostgres } from './deploy.mjs';
import { freePort, launchBrowser, openControlled, startServer } from './harness.mjs';
import { PACE, playGame, shortSeed, waitPending } from './play.mjs';

const postgres = testPostgres();
const skip = postgres ? false : 'needs PostgreSQL: run through scripts/with-postgres.sh';

let certificate;
let database;
let servers = [];
let nginx;
let browser;
before(async () => {
  if (!postgres) return;
  certificate = testCertificate();
  database = postgres.createDatabase();
  const port = await freePort();
  // One after the other: the first applies the schema's migrations.
  for (let n = 0; n < 2; n++) {
    const metricsPort = await freePort();
    const server = await startServer({
      args: [
        '--database-url', database.url,
        '--metrics-addr', `127.0.0.1:${metricsPort}`,
        '--public-origin', `https://127.0.0.1:${port}`,
        '--trusted-proxies', '127.0.0.1',
      ],
    });
    servers.push({ ...server, metrics: `http://127.0.0.1:${metricsPort}/metrics` });
  }
  nginx = await startNginx({
    upstreams: servers.map((s) => new URL(s.origin).host),
    certificate,
    port,
  });
  browser = await launchBrowser(['--ignore-certificate-errors']);
});
after(async () => {
  await browser?.close();
  await nginx?.stop();
  for (const server of servers) await server.stop();
  database?.drop();
  if (certificate) rmSync(certificate.dir, { recursive: true, force: true });
});

/** Requests answered by a server so far, from its metrics. */
async function requestsServed(server) {
  const text = await (await fetch(server.metrics)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('keydo_http_requests_total{'))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

const json = (response) => JSON.parse(response.body);

test('two servers on one database keep every promise', { skip }, async () => {
  const context = await browser.newContext();
  const requests = [];
  context.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/scores') {
      requests.push(request);
    }
  });
  try {
    const page = await openControlled(context, nginx.origin);
    await page.getByTestId('offline-ready').waitFor();
    const seed = await shortSeed(page, nginx.origin, 'zh', 45);
    const best = await playGame(page, nginx.origin, { mode: 'zh', seed, pace: PACE.fast });
    await waitPending(page, 0);
    const lower = await playGame(page, nginx.origin, { mode: 'zh', seed, pace: PACE.slow });
    await waitPending(page, 0);
    assert.ok(lower < best, `the slower game scores lower: ${lower} < ${best}`);
    await page.reload();
    await waitPending(page, 0);

    // nginx spread the page's requests over both servers.
    for (const server of servers) {
      assert.ok((await requestsServed(server)) > 0, `${server.origin} served nothing`);
    }
    assert.equal(database.query('SELECT count(*) FROM players'), '1', 'one save for the profile');
    // Each game's submission (the page's and the worker's view of one request count once).
    const byBody = new Map();
    for (const request of requests) {
      byBody.set(request.postData(), (await request.allHeaders()).authorization);
    }
    const submissions = [...byBody].map(([body, authorization]) => ({ body, authorization }));
    assert.equal(submissions.length, 2, 'two games were submitted');

    // Replays of each game, straight to each server, get the same answers.
    const replay = (server, { body, authorization }) =>
      httpsRequest(`${server.origin}/api/scores`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization },
        body,
      });
    const answers = [];
    for (const submission of submissions) {
      const [a, b] = [await replay(servers[0], submission), await replay(servers[1], submission)];
      assert.equal(a.status, 200, a.body);
      assert.equal(b.status, 200, b.body);
      assert.deepEqual(json(a), json(b));
      answers.push(json(a));
    }
    const [first, second] = answers;
    assert.equal(first.improved, true, 'the best game is the standing best');
    assert.equal(second.improved, false, 'the lower game changed nothing');
    assert.equal(second.best, best);
    assert.equal(database.query("SELECT count(*) FROM scores WHERE mode = 'zh'"), '1');

    for (const which of ['alltime', 'weekly']) {
      const boards = [];
      for (const server of servers) {
        const response = await httpsRequest(`${server.origin}/api/leaderboard?mode=zh&board=${which}`);
        boards.push(json(response).entries.map((e) => e.value));
      }
      assert.deepEqual(boards, [[best], [best]], which);
    }
  } finally {
    await context.close();
  }
});
