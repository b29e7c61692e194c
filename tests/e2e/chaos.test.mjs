// The short chaos run (scripts/chaos.mjs): 12 games over the four modes in three tabs
// and the service worker, under random proxy faults, offline flaps and tabs closed
// mid-flush, end with exactly the best per (player, mode) and per week on the server and
// one save. `node scripts/chaos.mjs` runs the long version (500 games).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FAULT_WEIGHTS, MODES, printReport, runChaos } from '../../scripts/chaos.mjs';
import { newSeed } from './fault-proxy.mjs';

const GAMES = 12;
/** The faults a short run injects first (every other sync request), whatever the seed. */
const FIRST_FAULTS = Object.keys(FAULT_WEIGHTS).slice(0, 5);

test(`chaos: ${GAMES} games, three tabs and the worker, random faults: 0 lost, 0 doubled, one save`, async (t) => {
  const seed = newSeed();
  let report;
  try {
    report = await runChaos({ games: GAMES, seed });
  } catch (error) {
    error.message = `${error.message}\n(chaos seed ${seed}: repeat with KEYDO_FAULT_SEED=${seed})`;
    throw error;
  }
  const lines = [];
  printReport(report, (line) => lines.push(line));
  const summary = lines.join('\n');
  t.diagnostic(summary);

  assert.deepEqual(report.mismatches, [], summary);
  assert.equal(report.games, GAMES, summary);
  for (const mode of MODES) assert.ok(report.modes[mode] > 0, `${mode} played\n${summary}`);
  for (const fault of FIRST_FAULTS) assert.ok(report.faults[fault] > 0, `${fault} injected\n${summary}`);
  assert.ok(report.faults['offline (browser)'] + report.faults['offline (proxy)'] > 0, `offline flaps\n${summary}`);
});
