// Measures the profile's budgets (docs/profile.md; run by `make bench`, nothing here
// asserts):
//  - durable write of a profile change: the `keydo:profile-write` performance measure
//    the page records around the IndexedDB commit, p50/p95 over CHANGES changes, each
//    made once the one before is stored, as a person makes them (a burst of clicks
//    faster than a commit would measure the writes waiting for one another), once the
//    app is installed: a person's first click comes after the page has loaded, not
//    during the first visit's precache, whose hashing shares the machine;
//  - time from a setting change on device A (online) to device B showing it, RUNS
//    runs: B learns it by polling `GET /api/saves/me` (every 10 s while visible);
//  - replay of QUEUED operations queued offline, after a restart: the page is reloaded
//    and goes online, and the clock stops when nothing is queued.
import { launchBrowser, openControlled, startServer } from '../tests/e2e/harness.mjs';
import { eventually } from '../tests/e2e/play.mjs';

// 200: the p95 of 50 was the third-slowest write, and moved by a few ms from run to run.
const CHANGES = Number(process.env.CHANGES ?? 200);
const RUNS = Number(process.env.RUNS ?? 10);
const QUEUED = Number(process.env.QUEUED ?? 1000);
const sorted = (xs) => [...xs].sort((a, b) => a - b);
const at = (xs, p) => sorted(xs)[Math.min(xs.length - 1, Math.floor(p * xs.length))];

// One player sends QUEUED operations in a row: far more than the per-identity limit
// a public server allows, which would be measured instead of the replay.
const server = await startServer({ args: ['--rate-limit-per-identity', '100000', '--rate-limit-per-ip', '100000'] });
const browser = await launchBrowser();
const queued = (page) => page.getByTestId('profile-sync').getAttribute('data-queued');
try {
  const open = async () => {
    const context = await browser.newContext();
    const page = await openControlled(context, server.origin);
    await page.getByTestId('offline-ready').waitFor();
    await page.getByTestId('profile-panel').locator('summary').click();
    return { context, page };
  };
  const a = await open();
  // Each change sets the other of two sizes than the one before.
  const fontSize = a.page.getByTestId('setting-font-size');
  const writesStored = () =>
    a.page.evaluate(() => performance.getEntriesByName('keydo:profile-write').length);
  // Changes the font size and waits until the change is stored: a change made while
  // the select still shows the one before could repeat the value last queued.
  let made = 0;
  const change = async () => {
    const stored = await writesStored();
    await fontSize.selectOption(made % 2 ? '16' : '18');
    made += 1;
    await a.page.waitForFunction(
      (n) => performance.getEntriesByName('keydo:profile-write').length > n,
      stored,
      { timeout: 60_000 },
    );
  };

  // Durable writes.
  for (let i = 0; i < CHANGES; i++) await change();
  await eventually(async () => (await queued(a.page)) === '0', 60_000);
  const writes = await a.page.evaluate(() =>
    performance.getEntriesByName('keydo:profile-write').map((m) => m.duration),
  );

  // A → B: link B, then change A's caret and wait for B's select to follow.
  await a.page.getByTestId('link-code-show').click();
  const code = await a.page.getByTestId('link-code').textContent();
  const b = await open();
  await b.page.getByTestId('link-code-input').fill(code);
  await b.page.getByTestId('link-code-submit').click();
  await b.page.getByTestId('link-confirm-join').click();
  await b.page.getByTestId('link-result').waitFor();
  const seen = [];
  for (let i = 0; i < RUNS; i++) {
    const target = ['block', 'underline'][i % 2];
    const start = Date.now();
    await a.page.getByTestId('setting-caret').selectOption(target);
    await eventually(async () => (await b.page.getByTestId('setting-caret').inputValue()) === target, 60_000);
    seen.push(Date.now() - start);
  }

  // QUEUED operations offline, a restart, then online.
  await a.context.setOffline(true);
  const queueing = Date.now();
  for (let i = 0; i < QUEUED; i++) await change();
  await eventually(async () => (await queued(a.page)) === String(QUEUED), 600_000);
  const queueTime = Date.now() - queueing;
  const longQueueWrites = await a.page.evaluate(() =>
    performance.getEntriesByName('keydo:profile-write').map((m) => m.duration),
  );
  const lastWrites = longQueueWrites.slice(-100);
  await a.page.reload();
  // The line as stored is shown before the clock starts: before its first read the
  // page shows none queued, which is not the end of a replay.
  await a.page.getByTestId('profile-panel').locator('summary').click();
  await eventually(async () => (await queued(a.page)) === String(QUEUED), 60_000);
  await a.context.setOffline(false);
  const start = Date.now();
  await eventually(async () => (await queued(a.page)) === '0', 600_000);
  const replay = Date.now() - start;

  const ms = (x) => `${x.toFixed(1)} ms`;
  console.log(`durable write of a profile change (IndexedDB commit), ${writes.length} changes:`);
  console.log(`  p50 ${ms(at(writes, 0.5))}, p95 ${ms(at(writes, 0.95))}, max ${ms(Math.max(...writes))}`);
  console.log(`setting changed on device A -> shown on device B (B polls every 10 s), ${RUNS} runs:`);
  console.log(`  median ${at(seen, 0.5)} ms, p95 ${at(seen, 0.95)} ms, max ${Math.max(...seen)} ms`);
  console.log(`queueing ${QUEUED} changes offline (clicks included): ${queueTime} ms; durable write of the last 100, with ${QUEUED - 100}+ queued before them:`);
  console.log(`  p50 ${ms(at(lastWrites, 0.5))}, p95 ${ms(at(lastWrites, 0.95))}`);
  console.log(`replay of ${QUEUED} operations queued offline, after a restart: ${replay} ms (${(replay / QUEUED).toFixed(1)} ms each)`);
} finally {
  await browser.close();
  await server.stop();
}
