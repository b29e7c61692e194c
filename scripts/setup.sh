#!/usr/bin/env bash
# Installs what KeyDo's build (and, with --test, its tests) need, skipping what is there.
#
#   scripts/setup.sh          wasm32 target, Trunk, wasm-bindgen CLI, npm tools, crates
#   scripts/setup.sh --test   also Chromium + ChromeDriver, PostgreSQL, wrk, nginx,
#                             openssl and sqlite3 (apt)
#
# Fast when everything is present: each step checks the installed version first.
set -euo pipefail
cd "$(dirname "$0")/.."

TRUNK_VERSION=0.21.14 # 0.22 needs a newer rustc than this project's toolchain.
# The CLI must equal the wasm-bindgen crate version in Cargo.lock.
WASM_BINDGEN_VERSION=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/"/, "", $3); print $3 }' Cargo.lock)

# The tools' own release profiles ask for fat LTO and one codegen unit, which triples
# their build on a small machine for no gain in a build tool: installed with thin
# local LTO and parallel codegen instead.
tool_profile=(env CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16)

say() { printf '\033[1msetup:\033[0m %s\n' "$*"; }

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

if [ "$(trunk --version 2>/dev/null)" != "trunk $TRUNK_VERSION" ]; then
  say "installing Trunk $TRUNK_VERSION (a one-time compile of several minutes)"
  "${tool_profile[@]}" cargo install trunk --version "$TRUNK_VERSION" --locked
fi

if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $WASM_BINDGEN_VERSION" ]; then
  say "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (a one-time compile of several minutes)"
  # Not --locked: one of its locked dependency versions is no longer on the registry.
  "${tool_profile[@]}" cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force
fi

if [ ! -x node_modules/.bin/wasm-opt ] || [ ! -x node_modules/.bin/terser ] ||
  [ ! -d node_modules/playwright-core ] || [ ! -x node_modules/.bin/lighthouse ] ||
  [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "installing npm tools (binaryen's wasm-opt, terser, playwright-core, Lighthouse for make bench)"
  npm ci --no-audit --no-fund
fi

say "fetching crates"
cargo fetch --quiet

if [ "${1:-}" = "--test" ]; then
  missing=()
  [ -x /usr/bin/chromium ] || missing+=(chromium)
  [ -x /usr/bin/chromedriver ] || missing+=(chromium-driver)
  compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)
  command -v wrk >/dev/null || missing+=(wrk)
  [ -x /usr/sbin/nginx ] || missing+=(nginx)
  command -v openssl >/dev/null || missing+=(openssl)
  # The e2e tests read the server's database file read-only with the sqlite3 shell.
  command -v sqlite3 >/dev/null || missing+=(sqlite3)
  if [ ${#missing[@]} -gt 0 ]; then
    say "installing ${missing[*]} from apt"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
fi
say "ready"
