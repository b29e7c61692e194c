// What the deployment tests share: a test certificate made with openssl, nginx running
// the repository's deploy/nginx.conf in front of keydo-server, HTTPS requests from a
// chosen loopback address, and a PostgreSQL database of the test's own.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequestRaw } from 'node:http';
import { request as httpsRequestRaw } from 'node:https';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ROOT, freePort, tempDir } from './harness.mjs';

const NGINX = '/usr/sbin/nginx';

/** A self-signed certificate for 127.0.0.1 in a new directory: { dir, cert, key }. */
export function testCertificate() {
  const dir = tempDir('tls');
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert,
  ], { stdio: 'ignore' });
  return { dir, cert, key };
}

/** `text` with `pattern` replaced, which must match (a changed config fails here). */
function edit(text, pattern, replacement) {
  assert.match(text, pattern, `deploy/nginx.conf no longer has ${pattern}`);
  return text.replace(pattern, replacement);
}

/**
 * nginx with deploy/nginx.conf as shipped, but listening on free loopback ports, with
 * the test certificate and `upstreams` (host:port of each keydo-server); `port` (for
 * HTTPS) may be chosen beforehand, so the servers can be told their public origin.
 * Resolves once it answers; `origin` is its https:// origin.
 */
export async function startNginx({ upstreams, certificate, port }) {
  port ??= await freePort();
  const httpPort = await freePort();
  const dir = tempDir('nginx');
  let site = readFileSync(join(ROOT, 'deploy', 'nginx.conf'), 'utf8');
  const servers = upstreams.map((u) => `    server ${u} max_fails=3 fail_timeout=10s;\n`).join('');
  site = edit(site, /(    server 127\.0\.0\.1:\d+ [^;]*;\n)+/, servers);
  site = edit(site, /listen 80;/, `listen 127.0.0.1:${httpPort};`);
  site = edit(site, /\n\s*listen \[::\]:80;/, '');
  site = edit(site, /listen 443 ssl http2;/, `listen 127.0.0.1:${port} ssl http2;`);
  site = edit(site, /\n\s*listen \[::\]:443 ssl http2;/, '');
  site = edit(site, /ssl_certificate +\S+;/, `ssl_certificate ${certificate.cert};`);
  site = edit(site, /ssl_certificate_key +\S+;/, `ssl_certificate_key ${certificate.key};`);
  writeFileSync(join(dir, 'keydo.conf'), site);
  const temp = (name) => `${name}_temp_path ${join(dir, name)};`;
  writeFileSync(
    join(dir, 'nginx.conf'),
    [
      'daemon off;',
      // As root, workers would otherwise run as nobody, who cannot read the temp dirs.
      process.getuid?.() === 0 ? 'user root;' : '',
      'worker_processes 1;',
      `pid ${join(dir, 'nginx.pid')};`,
      `error_log ${join(dir, 'error.log')} warn;`,
      'events { worker_connections 1024; }',
      'http {',
      '  access_log off;',
      `  ${temp('client_body')} ${temp('proxy')} ${temp('fastcgi')} ${temp('uwsgi')} ${temp('scgi')}`,
      `  include ${join(dir, 'keydo.conf')};`,
      '}',
    ].join('\n'),
  );
  const child = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise((done) => child.once('exit', done));
  const origin = `https://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited:\n${output}`);
    try {
      if ((await httpsRequest(`${origin}/api/health`, { ca: certificate.cert })).status === 200) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`nginx did not answer within 10 s:\n${output}`);
    }
    await sleep(100);
  }
  return {
    origin,
    httpOrigin: `http://127.0.0.1:${httpPort}`,
    async stop() {
      child.kill('SIGQUIT');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * One HTTP(S) request with node's own client: `{ status, headers, body }`. `ca` trusts
 * the test certificate; `localAddress` picks the loopback address it comes from.
 */
export function httpsRequest(url, { method = 'GET', headers = {}, body, ca, localAddress } = {}) {
  const send = url.startsWith('https:') ? httpsRequestRaw : httpRequestRaw;
  return new Promise((done, fail) => {
    const req = send(
      url,
      { method, headers, localAddress, ca: ca && readFileSync(ca), agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => done({ status: res.statusCode, headers: res.headers, body: text }));
      },
    );
    req.setTimeout(15_000, () => req.destroy(new Error(`no answer from ${url} in 15 s`)));
    req.on('error', fail);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/**
 * The PostgreSQL that scripts/with-postgres.sh started, or null without one (then a
 * test needing it is skipped, except in CI, where it fails).
 */
export function testPostgres() {
  const url = process.env.KEYDO_TEST_POSTGRES_URL;
  const bin = process.env.KEYDO_TEST_POSTGRES_BIN;
  if (url && bin) {
    const psql = (databaseUrl, sql) =>
      execFileSync(join(bin, 'psql'), [databaseUrl, '-tAqc', sql], { encoding: 'utf8' }).trim();
    return {
      /** A new empty database: { url, query(sql), drop() }. */
      createDatabase() {
        const name = `keydo_e2e_${process.pid}_${Date.now()}`;
        psql(url, `CREATE DATABASE ${name}`);
        const databaseUrl = url.replace(/\/[^/]*$/, `/${name}`);
        return {
          url: databaseUrl,
          query: (sql) => psql(databaseUrl, sql),
          drop: () => psql(url, `DROP DATABASE ${name} WITH (FORCE)`),
        };
      },
    };
  }
  if (process.env.CI === 'true') {
    throw new Error('CI=true but no PostgreSQL: run the end-to-end tests through scripts/with-postgres.sh');
  }
  return null;
}
