// KeyDo as deployed: nginx with deploy/nginx.conf terminates TLS (a certificate made
// by openssl for this test) in front of keydo-server. Chromium, told to accept that
// certificate, installs the app, plays offline and delivers its score; every response
// carries the security headers; rate limits count the client nginx forwards.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { httpsRequest, startNginx, testCertificate } from './deploy.mjs';
import { DIST, freePort, launchProfile, listOutput, openControlled, startServer } from './harness.mjs';
import { playGame, shortSeed, waitPending } from './play.mjs';

let certificate;
let server;
let nginx;
before(async () => {
  certificate = testCertificate();
  const port = await freePort();
  server = await startServer({
    args: ['--public-origin', `https://127.0.0.1:${port}`, '--trusted-proxies', '127.0.0.1'],
  });
  nginx = await startNginx({ upstreams: [new URL(server.origin).host], certificate, port });
});
after(async () => {
  await nginx?.stop();
  await server?.stop();
  if (certificate) rmSync(certificate.dir, { recursive: true, force: true });
});

const viaNginx = (path, options = {}) =>
  httpsRequest(nginx.origin + path, { ca: certificate.cert, ...options });

test('over HTTPS the app installs, plays offline and its score arrives', async () => {
  const context = await launchProfile(['--ignore-certificate-errors']);
  const violations = [];
  const watch = (message) => {
    if (/Content.Security.Policy/i.test(message.text())) violations.push(message.text());
  };
  context.on('page', (page) => page.on('console', watch));
  context.on('serviceworker', (worker) => worker.on('console', watch));
  try {
    const page = await openControlled(context, nginx.origin);
    page.on('console', watch);
    const cdp = await context.newCDPSession(page);
    const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
    assert.deepEqual(installabilityErrors, []);
    await page.getByTestId('offline-ready').waitFor();
    const seed = await shortSeed(page, nginx.origin, 'zh', 45);

    await context.setOffline(true);
    const value = await playGame(page, nginx.origin, { mode: 'zh', seed });
    await waitPending(page, 1);
    await context.setOffline(false);
    await waitPending(page, 0);

    const board = await viaNginx('/api/leaderboard?mode=zh&board=alltime');
    assert.equal(board.status, 200);
    assert.deepEqual(JSON.parse(board.body).entries.map((e) => e.value), [value]);
    assert.deepEqual(violations, [], 'the Content-Security-Policy blocked something');
  } finally {
    await context.close();
  }
});

test('security headers arrive on the shell, a hashed asset, the worker and API errors', async () => {
  const hashed = listOutput(DIST).find((f) => /-[0-9a-f]{16}(_bg\.wasm|\.js|\.css)$/.test(f.url));
  assert.ok(hashed, 'the build has content-hashed assets');
  for (const path of ['/', hashed.url, '/sw.js', '/api/saves/me', '/missing.js']) {
    const { status, headers } = await viaNginx(path);
    assert.ok(status === 200 || path === '/api/saves/me' || path === '/missing.js', `${path}: ${status}`);
    const policy = headers['content-security-policy'] ?? '';
    assert.match(policy, /^script-src 'self' 'wasm-unsafe-eval' 'sha256-[A-Za-z0-9+/]+=*'/, path);
    assert.match(policy, /frame-ancestors 'none'/, path);
    assert.doesNotMatch(policy, /unsafe-inline/, path);
    assert.equal(headers['x-content-type-options'], 'nosniff', path);
    assert.equal(headers['referrer-policy'], 'no-referrer', path);
    assert.equal(headers['strict-transport-security'], 'max-age=31536000', path);
  }
  const error = await viaNginx('/api/saves/me');
  assert.equal(error.status, 401);
  assert.equal(JSON.parse(error.body).error.code, 'UNAUTHORIZED');
});

test('plain HTTP is redirected to HTTPS', async () => {
  const { status, headers } = await httpsRequest(nginx.httpOrigin + '/');
  assert.equal(status, 301);
  assert.match(headers.location, /^https:\/\/127\.0\.0\.1\//);
});

test('rate limits count the client nginx forwards; forged headers change nothing', async () => {
  // New saves: at most 2 per 60 s per client (the default).
  const createSave = (send, localAddress, forged) =>
    send('/api/saves', {
      method: 'POST',
      localAddress,
      headers: { 'content-type': 'application/json', ...(forged && { 'x-forwarded-for': forged }) },
      body: '{}',
    }).then((r) => r.status);
  const direct = (path, options) => httpsRequest(server.origin + path, options);

  assert.deepEqual(
    [await createSave(viaNginx, '127.0.0.2'), await createSave(viaNginx, '127.0.0.2')],
    [201, 201],
  );
  assert.equal(await createSave(viaNginx, '127.0.0.2'), 429, 'the third save from one client');
  assert.equal(await createSave(viaNginx, '127.0.0.2', '203.0.113.9'), 429, 'forged through nginx');
  assert.equal(await createSave(viaNginx, '127.0.0.3'), 201, 'another client has its own budget');

  // Straight to keydo-server, not through a trusted proxy: forged headers are ignored.
  assert.deepEqual(
    [
      await createSave(direct, '127.0.0.4', '203.0.113.1'),
      await createSave(direct, '127.0.0.4', '203.0.113.2'),
      await createSave(direct, '127.0.0.4', '203.0.113.3'),
    ],
    [201, 201, 429],
  );
});
