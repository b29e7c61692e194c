// Measures the offline shell's budgets (run by `make bench`; nothing here asserts):
//  - gzip sizes: service worker scripts (budget 40 KB), app shell wasm+js+html (250 KB),
//    text corpora reported apart;
//  - offline navigation to DOMContentLoaded with a freshly woken worker and the
//    worker's own start-up (fetchStart − workerStart), for KeyDo's Rust worker, a
//    plain JavaScript worker doing the same work (bench/plain-sw.js) and the same
//    worker written with Workbox (bench/workbox-sw.js, from npm). ROUNDS rounds of
//    RUNS navigations per worker, the workers' order rotating each round; the goal
//    is Rust ≤ 1.1× each reference in every round's median, not only overall.
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

const RUNS = Number(process.env.RUNS ?? 10);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const GOAL = 1.1;
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
const gzip = (path) => gzipSync(readFileSync(path), { level: 9 }).length;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
const ms = (x) => `${x.toFixed(1)} ms`;

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
    startup: group((u) => u === '/sw.js' || u.startsWith('/keydo_worker')),
    flushModule: group((u) => u === '/keydo_flush_bg.wasm'),
    // The style sheet is inlined in index.html.
    appShell: group((u) => /^\/keydo-app-.*\.(js|wasm)$/.test(u) || u === '/index.html'),
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
    // A late fetch from the page can wake the worker again right after a stop, so
    // the stop is repeated every second until CDP reports every version stopped.
    const stopped = async () => {
      for (let wait = 0; ![...status.values()].every((s) => s === 'stopped'); wait++) {
        if (wait > 750) throw new Error(`the worker was not stopped within 15 s: ${JSON.stringify([...status])}`);
        if (wait % 50 === 0) await cdp.send('ServiceWorker.stopAllWorkers');
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    await context.setOffline(true);
    const dcl = [];
    const startup = [];
    for (let i = 0; i < RUNS; i++) {
      await cdp.send('ServiceWorker.stopAllWorkers');
      await stopped();
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

/** A copy of dist/ whose /sw.js is `script` with the precache list filled in. */
function referenceDist(script, extra = () => {}) {
  const dir = copyDist();
  const manifest = JSON.parse(readFileSync(join(DIST, 'precache-manifest.json'), 'utf8'));
  const sw = readFileSync(join(ROOT, 'bench', script), 'utf8')
    .replace('__CACHE_NAME__', JSON.stringify(manifest.cacheName))
    .replace('__PRECACHE_URLS__', JSON.stringify(manifest.files.map((f) => f.url)))
    .replace('__PRECACHE_FILES__', JSON.stringify(manifest.files));
  writeFileSync(join(dir, 'sw.js'), sw);
  extra(dir);
  return dir;
}

/** Workbox's loader and the modules it imports, from node_modules, served at /workbox/. */
function copyWorkbox(dir) {
  const into = join(dir, 'workbox');
  mkdirSync(into);
  const modules = join(ROOT, 'node_modules');
  cpSync(join(modules, 'workbox-sw', 'build', 'workbox-sw.js'), join(into, 'workbox-sw.js'));
  for (const name of ['core', 'precaching', 'routing', 'strategies']) {
    const file = `workbox-${name}.prod.js`;
    cpSync(join(modules, `workbox-${name}`, 'build', file), join(into, file));
  }
}

const s = sizes();
console.log('sizes (gzip -9):');
console.log(`  service worker scripts ${kb(s.serviceWorker.gzip)} (raw ${kb(s.serviceWorker.raw)}) budget 40 KB`);
console.log(`    of which start-up    ${kb(s.startup.gzip)} (raw ${kb(s.startup.raw)}): ${s.startup.files.join(' ')}`);
console.log(`  flush module (loaded on Background Sync only) ${kb(s.flushModule.gzip)} (raw ${kb(s.flushModule.raw)})`);
console.log(`  app shell wasm+js+html ${kb(s.appShell.gzip)} (raw ${kb(s.appShell.raw)}) budget 250 KB`);
console.log(`  text corpora           ${kb(s.texts.gzip)} (raw ${kb(s.texts.raw)})`);

const browser = await launchBrowser();
const workers = [
  { name: 'Rust (KeyDo)', dist: DIST },
  { name: 'plain JS', dist: referenceDist('plain-sw.js') },
  { name: 'Workbox', dist: referenceDist('workbox-sw.js', copyWorkbox) },
];
try {
  for (const w of workers) w.rounds = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Rotate the order so machine noise and warm-up hit every worker alike.
    for (let i = 0; i < workers.length; i++) {
      const w = workers[(round + i) % workers.length];
      const got = await offlineNavigation(browser, w.dist);
      w.rounds.push({ dcl: got.dcl, startup: got.startup });
    }
  }
  const all = (w, key) => w.rounds.flatMap((r) => r[key]);
  console.log(`offline navigation, freshly woken worker: ${ROUNDS} rounds x ${RUNS} runs per worker`);
  for (const w of workers) {
    console.log(
      `  ${w.name.padEnd(13)} DCL median ${ms(median(all(w, 'dcl')))} (p95 ${ms(percentile(all(w, 'dcl'), 0.95))}), ` +
        `start-up median ${ms(median(all(w, 'startup')))} (p95 ${ms(percentile(all(w, 'startup'), 0.95))})`,
    );
  }
  const [rust, ...references] = workers;
  const report = {};
  for (const ref of references) {
    for (const key of ['startup', 'dcl']) {
      const ratios = rust.rounds.map((r, i) => median(r[key]) / median(ref.rounds[i][key]));
      const overall = median(all(rust, key)) / median(all(ref, key));
      const worst = Math.max(...ratios);
      report[`${key} vs ${ref.name}`] = { overall, rounds: ratios };
      console.log(
        `  ${key === 'dcl' ? 'DCL     ' : 'start-up'} Rust/${ref.name.padEnd(8)} overall ${overall.toFixed(2)}x; ` +
          `per round min ${Math.min(...ratios).toFixed(2)}x median ${median(ratios).toFixed(2)}x max ${worst.toFixed(2)}x ` +
          `[${ratios.map((x) => x.toFixed(2)).join(' ')}] ${worst <= GOAL ? 'within' : 'over'} the ${GOAL}x goal`,
      );
    }
  }
  mkdirSync(join(ROOT, 'bench-results'), { recursive: true });
  writeFileSync(
    join(ROOT, 'bench-results', 'shell.json'),
    JSON.stringify({ sizes: s, runs: RUNS, rounds: ROUNDS, workers, ratios: report }, null, 1),
  );
} finally {
  await browser.close();
  for (const w of workers.slice(1)) rmSync(w.dist, { recursive: true, force: true });
}
