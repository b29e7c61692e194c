// Measures the offline shell's budgets (run by `make bench`; nothing here asserts):
//  - gzip sizes: service worker scripts (budget 40 KB), app shell wasm+js+css (250 KB),
//    text corpora reported apart;
//  - offline navigation to DOMContentLoaded with a freshly woken worker and the
//    worker's own start-up (fetchStart − workerStart), median of RUNS runs, for
//    KeyDo's Rust worker and for a plain JavaScript worker doing the same work.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import {
  DIST,
  ROOT,
  copyDist,
  launchBrowser,
  listOutput,
  openControlled,
  startServer,
} from '../tests/e2e/harness.mjs';

const RUNS = Number(process.env.RUNS ?? 15);
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
const gzip = (path) => gzipSync(readFileSync(path), { level: 9 }).length;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];

function sizes() {
  const files = listOutput(DIST);
  const group = (pred) => {
    const picked = files.filter((f) => pred(f.url));
    return {
      files: picked.map((f) => f.url),
      raw: picked.reduce((n, f) => n + readFileSync(f.path).length, 0),
      gzip: picked.reduce((n, f) => n + gzip(f.path), 0),
    };
  };
  return {
    serviceWorker: group((u) => u === '/sw.js' || u.startsWith('/keydo_worker') || u === '/keydo_flush.js'),
    flushModule: group((u) => u === '/keydo_flush_bg.wasm'),
    appShell: group((u) => /^\/keydo-app-.*\.(js|wasm)$/.test(u) || u.endsWith('.css')),
    texts: group((u) => u.startsWith('/texts/')),
  };
}

/** Offline navigation timings of RUNS runs, each with a freshly stopped worker. */
async function offlineNavigation(browser, dist) {
  const server = await startServer({ dist });
  const context = await browser.newContext();
  try {
    const page = await openControlled(context, server.origin);
    await page.getByText('Ready to play offline').waitFor();
    const cdp = await context.newCDPSession(page);
    await cdp.send('ServiceWorker.enable');
    const status = new Map();
    cdp.on('ServiceWorker.workerVersionUpdated', ({ versions }) => {
      for (const v of versions) status.set(v.versionId, v.runningStatus);
    });
    const until = async (what, check) => {
      for (let wait = 0; !check(); wait++) {
        if (wait > 250) throw new Error(`the worker was not ${what} within 5 s: ${JSON.stringify([...status])}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    await context.setOffline(true);
    const dcl = [];
    const startup = [];
    for (let i = 0; i < RUNS; i++) {
      await cdp.send('ServiceWorker.stopAllWorkers');
      await until('stopped', () => [...status.values()].every((s) => s === 'stopped'));
      await page.reload({ waitUntil: 'domcontentloaded' });
      const t = await page.evaluate(() => {
        const [nav] = performance.getEntriesByType('navigation');
        return { dcl: nav.domContentLoadedEventStart, start: nav.fetchStart - nav.workerStart };
      });
      dcl.push(t.dcl);
      startup.push(t.start);
      // Let the page finish fetching (wasm, texts): a fetch would wake the worker again.
      await page.waitForLoadState('networkidle');
    }
    return { dcl, startup };
  } finally {
    await context.close();
    await server.stop();
  }
}

/** A copy of dist/ whose /sw.js is the plain JavaScript reference worker. */
function plainWorkerDist() {
  const dir = copyDist();
  const manifest = JSON.parse(readFileSync(join(DIST, 'precache-manifest.json'), 'utf8'));
  const script = readFileSync(join(ROOT, 'bench', 'plain-sw.js'), 'utf8')
    .replace('__CACHE_NAME__', JSON.stringify(manifest.cacheName))
    .replace('__PRECACHE_URLS__', JSON.stringify(manifest.files.map((f) => f.url)));
  writeFileSync(join(dir, 'sw.js'), script);
  return dir;
}

const s = sizes();
console.log('sizes (gzip -9):');
console.log(`  service worker scripts ${kb(s.serviceWorker.gzip)} (raw ${kb(s.serviceWorker.raw)}) budget 40 KB`);
console.log(`  flush module (loaded on Background Sync only) ${kb(s.flushModule.gzip)} (raw ${kb(s.flushModule.raw)})`);
console.log(`  app shell wasm+js+css  ${kb(s.appShell.gzip)} (raw ${kb(s.appShell.raw)}) budget 250 KB`);
console.log(`  text corpora           ${kb(s.texts.gzip)} (raw ${kb(s.texts.raw)})`);

const browser = await launchBrowser();
const plain = plainWorkerDist();
try {
  // Alternate the two, in two rounds each, so machine noise hits both alike.
  const rust = { dcl: [], startup: [] };
  const js = { dcl: [], startup: [] };
  for (let round = 0; round < 2; round++) {
    for (const [into, dist] of [[rust, DIST], [js, plain]]) {
      const got = await offlineNavigation(browser, dist);
      into.dcl.push(...got.dcl);
      into.startup.push(...got.startup);
    }
  }
  const fmt = (r) =>
    `DCL median ${median(r.dcl).toFixed(1)} ms (p95 ${percentile(r.dcl, 0.95).toFixed(1)}), ` +
    `worker start-up median ${median(r.startup).toFixed(1)} ms`;
  console.log(`offline navigation, freshly woken worker, ${2 * RUNS} runs each:`);
  console.log(`  Rust worker (KeyDo) ${fmt(rust)}`);
  console.log(`  plain JS worker     ${fmt(js)}`);
  const ratio = (key) => (median(rust[key]) / median(js[key])).toFixed(2);
  console.log(`  ratio Rust/JS: DCL ${ratio('dcl')}x, start-up ${ratio('startup')}x (goal <= 1.1x)`);
} finally {
  await browser.close();
  rmSync(plain, { recursive: true, force: true });
}
