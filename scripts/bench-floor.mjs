// Sizes the page's first module against the floor of its libraries (run by `make
// bench`; nothing here asserts): bench/floor-page is the smallest typing page on the
// same Leptos, wasm-bindgen, rexie, serde and gloo-net, built as the page is (the
// `wasm-release` settings, wasm-bindgen, wasm-opt -Oz), and its wasm is compared with
// the main module of the built page, both brotli at quality 11 with a 4 MiB window,
// the settings of the build's precompressed files (build/src/precompress.rs; node's
// brotli is another implementation, within 0.1 % of them) (docs/performance.md, "What
// loads first").
//
//   node scripts/bench-floor.mjs [dist]   # default: dist/ (or KEYDO_E2E_DIST)
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { brotliCompressSync, constants } from 'node:zlib';
import { DIST, ROOT } from '../tests/e2e/harness.mjs';

const dist = process.argv[2] ? resolve(process.argv[2]) : DIST;
const crate = join(ROOT, 'bench', 'floor-page');
const target = join(ROOT, 'target', 'floor-page');
const out = join(target, 'bound');

const run = (command, args) => execFileSync(command, args, { cwd: crate, stdio: 'inherit' });
run('cargo', ['build', '--release', '--target', 'wasm32-unknown-unknown', '--target-dir', target]);
run('wasm-bindgen', [
  '--target', 'web', '--no-typescript', '--out-dir', out,
  join(target, 'wasm32-unknown-unknown', 'release', 'keydo-floor-page.wasm'),
]);
run('wasm-opt', [
  '-Oz', '--strip-debug', '--strip-producers',
  join(out, 'keydo-floor-page_bg.wasm'), '-o', join(out, 'optimized.wasm'),
]);

const brotli = (path) => {
  const bytes = readFileSync(path);
  const packed = brotliCompressSync(bytes, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_LGWIN]: 22 },
  });
  return { raw: bytes.length, brotli: packed.length };
};
const main = readdirSync(dist).find((name) => /^keydo-app-[0-9a-f]+_bg\.wasm$/.test(name));
if (!main) throw new Error(`${dist} has no built page (keydo-app-<hash>_bg.wasm)`);
const page = brotli(join(dist, main));
const floor = brotli(join(out, 'optimized.wasm'));
console.log('wasm                    raw B     brotli B');
console.log(`page's main module  ${String(page.raw).padStart(9)} ${String(page.brotli).padStart(12)}`);
console.log(`floor page          ${String(floor.raw).padStart(9)} ${String(floor.brotli).padStart(12)}`);
console.log(`main ÷ floor (brotli): ${(page.brotli / floor.brotli).toFixed(2)}`);
