#!/usr/bin/env bash
# Runs every KeyDo test; `make test` calls it after scripts/setup.sh --test.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"

# Each step says when it starts, in seconds since the run began, so a slow run shows
# where its time went.
step() { printf '\n\033[1m== %s\033[0m (at %d s)\n' "$*" "$SECONDS"; }

step "format and lints"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --quiet -- -D warnings
cargo clippy --target wasm32-unknown-unknown --all-targets --quiet \
  -p keydo-app -p keydo-sw -p keydo-sw-flush -p keydo-storage -p keydo-sync -- -D warnings

step "native tests (core rules, precache build, server; PostgreSQL path included)"
scripts/with-postgres.sh cargo test --workspace --quiet

step "browser tests of the IndexedDB storage and the sync (wasm-bindgen-test, headless Chromium)"
CHROMEDRIVER=/usr/bin/chromedriver \
  WASM_BINDGEN_TEST_WEBDRIVER_JSON="$PWD/tests/webdriver.json" \
  WASM_BINDGEN_TEST_TIMEOUT=120 \
  cargo test -p keydo-storage -p keydo-sync --target wasm32-unknown-unknown

# The browser tests run target/debug/keydo-server as `cargo test` above built it for
# the server's integration tests (a plain `cargo build` would compile it again without
# the dev-dependencies' features).
step "release build of the shell"
trunk build --release
cargo build --release --quiet -p keydo-build

step "end-to-end tests in Chromium (behind nginx and on PostgreSQL too)"
KEYDO_SERVER_BIN=target/debug/keydo-server \
  scripts/with-postgres.sh node --test --test-concurrency=1 tests/e2e/

step "done"
