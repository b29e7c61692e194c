// Shared set-up for KeyDo's end-to-end tests: the real server on a loopback port,
// serving a real build, and Debian's Chromium driven by Playwright.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { chromium } from 'playwright-core';

export const ROOT = resolve(import.meta.dirname, '..', '..');
/** The build under test: dist/, or another build named by KEYDO_E2E_DIST. */
export const DIST = process.env.KEYDO_E2E_DIST ? resolve(process.env.KEYDO_E2E_DIST) : join(ROOT, 'dist');
/**
 * The server under test: the release build, or the one KEYDO_SERVER_BIN names
 * (scripts/test.sh passes the debug build its native tests already compiled).
 */
export const SERVER_BIN = process.env.KEYDO_SERVER_BIN
  ? resolve(process.env.KEYDO_SERVER_BIN)
  : join(ROOT, 'target', 'release', 'keydo-server');

/** Chromium as this machine runs it: headless, no sandbox, no background traffic. */
const CHROMIUM = {
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
  ],
};

/**
 * The window pages open in unless a test says otherwise: a desktop's, tall enough to
 * show the panels below the game, which are drawn once they come into view
 * (docs/performance.md, "What loads first"). Playwright's own default (1280 × 720)
 * ends just above them.
 */
const VIEWPORT = { width: 1280, height: 1000 };

/** A browser whose contexts are fresh, incognito-like profiles; `extraArgs` adds flags. */
export async function launchBrowser(extraArgs = []) {
  const browser = await chromium.launch({ ...CHROMIUM, args: [...CHROMIUM.args, ...extraArgs] });
  const newContext = browser.newContext.bind(browser);
  const newPage = browser.newPage.bind(browser);
  browser.newContext = (options = {}) => newContext({ viewport: VIEWPORT, ...options });
  browser.newPage = (options = {}) => newPage({ viewport: VIEWPORT, ...options });
  return browser;
}

/**
 * A context on a real (temporary) profile, for what incognito cannot do, such as
 * installing the app. `close()` also removes the profile.
 */
export async function launchProfile(extraArgs = []) {
  const profile = tempDir('profile');
  const context = await chromium.launchPersistentContext(profile, {
    ...CHROMIUM,
    viewport: VIEWPORT,
    args: [...CHROMIUM.args, ...extraArgs],
  });
  const close = context.close.bind(context);
  context.close = async () => {
    await close();
    rmSync(profile, { recursive: true, force: true });
  };
  return context;
}

/** A free loopback port (the OS picks; the server binds it right after). */
async function freePort() {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => done(port));
    });
  });
}

/** A temporary directory removed by `cleanup`. */
export function tempDir(prefix) {
  return mkdtempSync(join(tmpdir(), `keydo-${prefix}-`));
}

/** A copy of dist/ the test may change (for update tests). */
export function copyDist() {
  const dir = tempDir('dist');
  cpSync(DIST, dir, { recursive: true });
  return dir;
}

/**
 * Starts keydo-server on its own port and database; resolves once /api/health answers.
 * Extra flags (rate limits...) go in `args`; `port` and `dataDir` restart a stopped
 * server where it was (see `stop({ keepData })`).
 */
/** Review thresholds at the hard limits: no result is held for its speed alone. */
export const REVIEW_AT_HARD_LIMITS = 'time=350,words=350,quote=350,zh=600';

/**
 * The gates for places that matter turned off (docs/replay.md): a test's fresh save
 * would otherwise wait for review with every result (top places, little typing), and
 * held results are not limited in number or rate. A test may pass its own flags.
 */
export const GATES_OFF = {
  KEYDO_REVIEW_TOP_PLACES: 'time=0,words=0,quote=0,zh=0',
  KEYDO_REVIEW_LEAP_PERCENT: '0',
  KEYDO_REVIEW_MIN_TYPING_SECS: '0',
  KEYDO_REVIEW_PENDING_PER_MODE: '1000000',
  KEYDO_RATE_LIMIT_HELD_PER_SAVE: '1000000',
  KEYDO_RATE_LIMIT_HELD_PER_IP: '1000000',
};

export async function startServer({ dist = DIST, args = [], port, dataDir = tempDir('data') } = {}) {
  port ??= await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const child = spawn(
    SERVER_BIN,
    ['serve', '--addr', `127.0.0.1:${port}`, '--dist', dist, '--data-dir', dataDir, ...args],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      // Tests play fast: only the hard limits apply unless a test passes its own
      // `--review-thresholds` (replay.test.mjs); the timing rules always do.
      env: { KEYDO_REVIEW_THRESHOLDS: REVIEW_AT_HARD_LIMITS, ...GATES_OFF, ...process.env, RUST_LOG: 'warn' },
    },
  );
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise((done) => child.once('exit', done));
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`keydo-server exited early:\n${output}`);
    try {
      if ((await fetch(`${origin}/api/health`)).ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`keydo-server did not answer /api/health within 15 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    origin,
    dataDir,
    pid: child.pid,
    output: () => output,
    port,
    async stop({ keepData = false } = {}) {
      child.kill('SIGTERM');
      await exited;
      if (!keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Every file of a built output with its URL path, as the precache step sees it: the
 * brotli and gzip copies the build writes beside files are those files, not others.
 */
export function listOutput(dir) {
  const files = [];
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (!/\.(br|gz)$/.test(name)) files.push({ url: '/' + relative(dir, path).split(sep).join('/'), path });
    }
  };
  walk(dir);
  return files;
}

/** The service worker's own files, which are never precached (docs/service-worker.md). */
export function isWorkerFile(url) {
  return (
    url === '/sw.js' ||
    url === '/precache-manifest.json' ||
    url === '/keydo_lifecycle.js' ||
    url === '/keydo_flush.js' ||
    url.startsWith('/keydo_worker')
  );
}

/** The cache name recomputed from the files themselves, independently of the build step. */
export function expectedCache(dir) {
  const files = listOutput(dir)
    .filter((f) => !isWorkerFile(f.url))
    .map((f) => ({ url: f.url, sha: createHash('sha256').update(readFileSync(f.path)).digest('hex') }))
    .sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
  const lines = files.map((f) => `${f.url} ${f.sha}\n`).join('');
  const digest = createHash('sha256').update(lines).digest('hex');
  return { name: `keydo-precache-${digest}`, urls: files.map((f) => f.url) };
}

/** Opens the app and waits until its service worker controls the page. */
export async function openControlled(context, origin) {
  const page = await context.newPage();
  await page.goto(origin + '/');
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, {
    timeout: 30_000,
  });
  return page;
}

/** The names of the page's caches and the URL paths in each. */
export function cacheContents(page) {
  return page.evaluate(async () => {
    const out = {};
    for (const name of await caches.keys()) {
      const cache = await caches.open(name);
      out[name] = (await cache.keys()).map((r) => new URL(r.url).pathname).sort();
    }
    return out;
  });
}

export { freePort };
/** `keydo-server backup <file>`: a consistent copy of a running server's database. */
export function backupDatabase(dataDir, file) {
  execFileSync(SERVER_BIN, ['backup', file, '--data-dir', dataDir], {
    stdio: 'pipe',
    env: { ...process.env, RUST_LOG: 'warn' },
  });
}

/**
 * Rows of `sql` run read-only on the server's SQLite file in `dataDir` (the sqlite3
 * command-line shell; safe beside the running server), as objects by column name.
 */
export function queryDatabase(dataDir, sql) {
  const out = execFileSync('sqlite3', ['-readonly', '-json', join(dataDir, 'keydo.sqlite3'), sql], {
    encoding: 'utf8',
  });
  return out.trim() === '' ? [] : JSON.parse(out);
}

/**
 * Fires the service worker's Background Sync (`flush-outbox`) over CDP, as the browser
 * does when it is online again; the context needs one page open (a blank one will do)
 * to reach the browser. `stopWorkers()` stops the worker, so the next event wakes it.
 */
export async function syncEvents(context, origin) {
  const page = context.pages()[0] ?? (await context.newPage());
  const cdp = await context.newCDPSession(page);
  const registrations = [];
  cdp.on('ServiceWorker.workerRegistrationUpdated', (e) => registrations.push(...e.registrations));
  await cdp.send('ServiceWorker.enable');
  const deadline = Date.now() + 15_000;
  let registration;
  while (!(registration = registrations.find((r) => r.scopeURL === origin + '/' && !r.isDeleted))) {
    if (Date.now() > deadline) throw new Error(`no service worker registration for ${origin}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    dispatch: (lastChance = false) =>
      cdp.send('ServiceWorker.dispatchSyncEvent', {
        origin,
        registrationId: registration.registrationId,
        tag: 'flush-outbox',
        lastChance,
      }),
    stopWorkers: () => cdp.send('ServiceWorker.stopAllWorkers'),
    detach: () => cdp.detach(),
  };
}

/** The practice module's file (`keydo-lazy-split_practice-<hash>.wasm`). */
export const PRACTICE_MODULE = /\/keydo-lazy-split_practice-[0-9a-f]{16}\.wasm$/;
/** The file of the module fetched once the game is drawn (the result screen, the sync, the offline status). */
export const DRAWN_MODULE = /\/keydo-lazy-split_drawn-[0-9a-f]{16}\.wasm$/;

/**
 * Refuses the requests `page` makes for `pattern` (aborted with `error`) while
 * `refusing(refusedSoFar)` holds, then lets them through; returns how many it has
 * refused so far. A worker serving the file would hide it: open the context with
 * `serviceWorkers: 'block'`. Given a browser context instead of a page, it refuses
 * its service workers' own requests too.
 */
async function refuseWhile(page, pattern, refusing, error = 'connectionreset') {
  let refused = 0;
  await page.route(pattern, async (route) => {
    if (refusing(refused)) {
      refused += 1;
      await route.abort(error);
    } else {
      await route.continue();
    }
  });
  return () => refused;
}

/** Refuses the first `times` requests for `pattern` (a connection reset); see `refuseWhile`. */
export const refuseFirst = (page, pattern, times) => refuseWhile(page, pattern, (refused) => refused < times);

/**
 * Refuses every request for `pattern` until `lower()` is called; `refused()` counts
 * the refusals (see `refuseWhile`).
 */
export async function refuseUntilLowered(page, pattern, error) {
  let refusing = true;
  const refused = await refuseWhile(page, pattern, () => refusing, error);
  return { refused, lower: () => (refusing = false) };
}

/** Every record of `store` in the page's IndexedDB `keydo`, read with the raw API. */
export function readStore(page, store) {
  return page.evaluate(
    (store) =>
      new Promise((ok, fail) => {
        const open = indexedDB.open('keydo');
        open.onerror = () => fail(open.error);
        open.onsuccess = () => {
          const all = open.result.transaction(store).objectStore(store).getAll();
          all.onsuccess = () => {
            open.result.close();
            ok(all.result);
          };
          all.onerror = () => fail(all.error);
        };
      }),
    store,
  );
}

/** The record under `key` in a store of the page's IndexedDB `keydo`, or undefined. */
export function readRecord(page, store, key) {
  return page.evaluate(
    ({ store, key }) =>
      new Promise((ok, fail) => {
        const open = indexedDB.open('keydo');
        open.onerror = () => fail(open.error);
        open.onsuccess = () => {
          const db = open.result;
          const read = db.transaction(store).objectStore(store).get(key);
          read.onsuccess = () => ok(read.result);
          read.onerror = () => fail(read.error);
          read.transaction.oncomplete = () => db.close();
        };
      }),
    { store, key },
  );
}
