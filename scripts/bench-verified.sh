#!/usr/bin/env bash
# Throughput of POST /api/scores with verification (docs/replay.md): every request is a
# real `words` game that the server replays through the typing engine before it records
# it. The first pass over the bodies records new results (a seed per save per game);
# later passes resend them (verified again, answered from the first receipt).
#
#   scripts/bench-verified.sh            # 32 connections, 10 s, 256 saves × 16 games
#   DURATION=30s CONNECTIONS=64 GAMES=32 scripts/bench-verified.sh
#
# Loopback only. Needs wrk, curl and python3. scripts/bench-server.sh measures the
# unverified baseline and the bare upsert.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
duration=${DURATION:-10s}
connections=${CONNECTIONS:-32}
threads=${THREADS:-2}
players=${PLAYERS:-256}
games=${GAMES:-16}
target_dir=${CARGO_TARGET_DIR:-$repo/target}
work=$(mktemp -d -t keydo-bench-verified.XXXXXX)
server_pid=""

cleanup() {
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
url=http://127.0.0.1:$port

echo "building (release)..." >&2
(cd "$repo" && cargo build --release -q -p keydo-server --bin keydo-server --example verified_bodies)

mkdir -p "$work/dist"
RUST_LOG=warn "$target_dir/release/keydo-server" --addr "127.0.0.1:$port" --dist "$work/dist" \
    --data-dir "$work/data" --rate-limit-per-ip 1000000000 --rate-limit-per-identity 1000000000 \
    --rate-limit-saves 1000000000 >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 100); do
    curl -fs -o /dev/null "$url/api/health" && break
    sleep 0.1
done

: >"$work/tokens"
for _ in $(seq 1 "$players"); do
    curl -fs -X POST -H 'Content-Type: application/json' -d '{}' "$url/api/saves" |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])' >>"$work/tokens"
done
now=$(python3 -c 'import time; print(int(time.time() * 1000))')
"$target_dir/release/examples/verified_bodies" "$work/tokens" "$games" "$now" "$work/bodies.lua"
cat "$work/bodies.lua" "$repo/scripts/bench/post-verified.lua" >"$work/post-verified.lua"

bodies=$((players * games))
echo "== POST /api/scores, verified: $connections connections, $duration, $bodies distinct games" >&2
wrk -t"$threads" -c"$connections" -d"$duration" --latency -s "$work/post-verified.lua" "$url" >"$work/wrk.txt"
rps=$(awk '/^Requests\/sec/ {print $2}' "$work/wrk.txt")
p99=$(awk '$1 == "99%" {print $2}' "$work/wrk.txt")
errors=$(awk '/Non-2xx/ {print $5}' "$work/wrk.txt")
results=$(python3 -c "import sqlite3; print(sqlite3.connect('$work/data/keydo.sqlite3').execute('select count(*) from results').fetchone()[0])")
printf '%-34s %12s req/s   p99 %8s   non-2xx %s   results stored %s\n' \
    "keydo-server, verified scores" "$rps" "$p99" "${errors:-0}" "$results"
