// Lighthouse on the release build (run by `make bench`; nothing here asserts).
//
// Serves dist/ (or KEYDO_E2E_DIST) with target/release/keydo-server on a free loopback
// port and runs npm's Lighthouse against it RUNS times (default 2) with Debian's
// Chromium: the mobile preset with simulated throttling, a fresh profile each run.
// Prints the performance, accessibility and best-practices scores with total blocking
// time, largest contentful paint and cumulative layout shift for each run, then every
// audit that cost points, so a regression says where it comes from. Goal: ≥ 95 in
// all three categories.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DIST, ROOT, startServer } from '../tests/e2e/harness.mjs';

const RUNS = Number(process.env.RUNS ?? 2);
const CATEGORIES = ['performance', 'accessibility', 'best-practices'];
const LIGHTHOUSE = join(ROOT, 'node_modules', '.bin', 'lighthouse');

/**
 * One Lighthouse run against `url`: its JSON result. Lighthouse now and then fails to
 * record its trace (NO_NAVSTART, NO_FCP); such a run is taken again, at most twice.
 */
async function lighthouse(url, attemptsLeft = 3) {
  try {
    return await lighthouseOnce(url);
  } catch (error) {
    const traceFailed = /NO_NAVSTART|NO_FCP|NO_TRACING_STARTED/.test(String(error.stderr ?? ''));
    if (!traceFailed || attemptsLeft <= 1) throw error;
    console.log('  (Lighthouse failed to record its trace; running again)');
    return lighthouse(url, attemptsLeft - 1);
  }
}

async function lighthouseOnce(url) {
  const { stdout } = await promisify(execFile)(
    LIGHTHOUSE,
    [
      url,
      `--only-categories=${CATEGORIES.join(',')}`,
      '--form-factor=mobile',
      '--throttling-method=simulate',
      '--chrome-flags=--headless=new --no-sandbox --disable-gpu',
      '--output=json',
      '--output-path=stdout',
      '--quiet',
    ],
    {
      env: { ...process.env, CHROME_PATH: process.env.CHROME_PATH ?? '/usr/bin/chromium' },
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  return JSON.parse(stdout);
}

const score = (category) => Math.round(category.score * 100);
const metric = (lhr, id) => lhr.audits[id].numericValue;

const server = await startServer({ dist: DIST });
try {
  console.log(`Lighthouse ${RUNS}× on ${DIST} (mobile, simulated throttling):`);
  const costly = new Map();
  for (let run = 1; run <= RUNS; run++) {
    const lhr = await lighthouse(`${server.origin}/`);
    const scores = CATEGORIES.map((id) => `${id} ${score(lhr.categories[id])}`).join(', ');
    const tbt = metric(lhr, 'total-blocking-time');
    const lcp = metric(lhr, 'largest-contentful-paint');
    const fcp = metric(lhr, 'first-contentful-paint');
    const cls = metric(lhr, 'cumulative-layout-shift');
    const elements = metric(lhr, 'dom-size');
    console.log(
      `  run ${run}: ${scores}; TBT ${tbt.toFixed(0)} ms, LCP ${(lcp / 1000).toFixed(2)} s, ` +
        `FCP ${(fcp / 1000).toFixed(2)} s, CLS ${cls.toFixed(3)}, ${elements} DOM elements`,
    );
    for (const id of CATEGORIES) {
      for (const ref of lhr.categories[id].auditRefs) {
        const audit = lhr.audits[ref.id];
        if (ref.weight > 0 && audit.score !== null && audit.score < 0.9) {
          costly.set(`${id}: ${audit.title}`, audit.displayValue ?? `score ${audit.score}`);
        }
      }
    }
  }
  if (costly.size > 0) {
    console.log('  audits that cost points (last value seen):');
    for (const [title, value] of costly) console.log(`    ${title} (${value})`);
  }
} finally {
  await server.stop();
}
