// What the write benchmarks post (bench-deploy.mjs, bench-postgres.mjs): saves created
// on a server, and a wrk script sending their real `words` games, each verified by
// replay on the server (server/examples/verified_bodies.rs, built in release).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../tests/e2e/harness.mjs';

/** `count` saves' tokens, created straight on a server. */
export async function tokens(origin, count) {
  const out = [];
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${origin}/api/saves`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}',
    });
    out.push((await response.json()).token);
  }
  return out;
}

/** wrk's script in `dir`: `games` verified games per save, then scripts/bench/post-verified.lua. */
export function scoresScript(dir, tokenList, games) {
  const stamp = `${Date.now()}-${Math.random().toString(36).slice(2)}`;
  const tokensFile = join(dir, `tokens-${stamp}`);
  const bodies = join(dir, `bodies-${stamp}.lua`);
  writeFileSync(tokensFile, tokenList.join('\n'));
  const examples = join(process.env.CARGO_TARGET_DIR ?? join(ROOT, 'target'), 'release', 'examples');
  execFileSync(join(examples, 'verified_bodies'), ['words', tokensFile, String(games), String(Date.now()), bodies]);
  const path = join(dir, `post-scores-${stamp}.lua`);
  writeFileSync(path, readFileSync(bodies, 'utf8') + readFileSync(join(ROOT, 'scripts', 'bench', 'post-verified.lua'), 'utf8'));
  return path;
}
