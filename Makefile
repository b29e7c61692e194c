# KeyDo's two commands: `make run` builds and serves the game, `make test` runs every test.
# Both install what is missing first (scripts/setup.sh) and are quick when it is there.
SHELL := bash
export PATH := $(CURDIR)/node_modules/.bin:$(HOME)/.cargo/bin:$(PATH)

.PHONY: run test dist server bench

## Build the shell and serve it with the API on http://127.0.0.1:8080
run:
	scripts/setup.sh
	$(MAKE) dist
	cargo run --release -p keydo-server -- serve --dist dist

## Every test: formatting, lints, native unit/integration tests, browser end-to-end tests
test:
	scripts/setup.sh --test
	scripts/test.sh

## The offline shell in dist/ (Trunk, then the precache post-build hook)
dist:
	trunk build --release

server:
	cargo build --release -p keydo-server

## Size and timing budgets, Lighthouse, the deployment's throughput and the long chaos run (see README)
bench: dist server
	node scripts/lighthouse.mjs
	node scripts/bench-shell.mjs
	node scripts/bench-floor.mjs
	node scripts/bench-playable.mjs
	node scripts/bench-typing.mjs
	node scripts/bench-paste.mjs
	node scripts/bench-sync.mjs
	node scripts/bench-profile.mjs
	node scripts/bench-practice.mjs
	scripts/bench-server.sh
	scripts/with-postgres.sh --durable node scripts/bench-deploy.mjs
	scripts/with-postgres.sh --durable node scripts/bench-postgres.mjs
	scripts/with-postgres.sh --durable node scripts/bench-boards.mjs
	node scripts/chaos.mjs --games 500
