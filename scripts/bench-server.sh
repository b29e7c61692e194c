#!/usr/bin/env bash
# Benchmarks keydo-server's score submissions against a bare axum handler doing the
# same SQLite upsert (server/examples/bare_upsert.rs), then measures the server's
# memory after creating 100k players through the API.
#
# Every request is a real `words` game (server/examples/verified_bodies.rs) that
# keydo-server replays through the typing engine before it records it (docs/replay.md);
# the bare handler only parses it. The first pass over the bodies records new results
# (GAMES seeds per save); later passes resend them: verified again and answered from
# their first receipt.
#
# Then the cost of verification by the length of the game: built-in Chinese passages
# against pasted Chinese texts of the longest kind (3,000 字, each a different text the
# server also stores), TEXT_PLAYERS saves × TEXT_GAMES games of each, same server.
#
#   scripts/bench-server.sh            # 32 connections, 10 s per run, 256 saves × 16 games
#   DURATION=30s CONNECTIONS=64 GAMES=32 scripts/bench-server.sh
#   RSS_PLAYERS=0 scripts/bench-server.sh   # throughput only
#
# Loopback only. Needs wrk (apt-get install wrk), curl and python3.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
duration=${DURATION:-10s}
connections=${CONNECTIONS:-32}
threads=${THREADS:-2}
players=${PLAYERS:-256}
games=${GAMES:-16}
text_players=${TEXT_PLAYERS:-32}
text_games=${TEXT_GAMES:-4}
rss_players=${RSS_PLAYERS:-100000}
target_dir=${CARGO_TARGET_DIR:-$repo/target}
work=$(mktemp -d -t keydo-bench.XXXXXX)
pids=()

cleanup() {
    for pid in "${pids[@]}"; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    rm -rf "$work"
}
trap cleanup EXIT

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

wait_for() { # url
    for _ in $(seq 1 100); do
        curl -fs -o /dev/null "$1" 2>/dev/null && return 0
        curl -s -o /dev/null "$1" 2>/dev/null && return 0
        sleep 0.1
    done
    echo "nothing answers at $1" >&2
    exit 1
}

summary() { # label wrk-output-file
    local rps p99 errors
    rps=$(awk '/^Requests\/sec/ {print $2}' "$2")
    p99=$(awk '$1 == "99%" {print $2}' "$2")
    errors=$(awk '/Non-2xx/ {print $5}' "$2")
    printf '%-34s %12s req/s   p99 %8s   non-2xx %s\n' "$1" "$rps" "$p99" "${errors:-0}"
}

echo "building (release)..." >&2
(cd "$repo" && cargo build --release -q -p keydo-server --bin keydo-server --example bare_upsert --example verified_bodies)
server_bin=$target_dir/release/keydo-server
bare_bin=$target_dir/release/examples/bare_upsert

start_server() { # log-filter
    local port
    port=$(free_port)
    mkdir -p "$work/dist"
    rm -rf "$work/data"
    RUST_LOG=$1 "$server_bin" --addr "127.0.0.1:$port" --dist "$work/dist" --data-dir "$work/data" \
        --rate-limit-per-ip 1000000000 --rate-limit-per-identity 1000000000 \
        --rate-limit-saves 1000000000 --rate-limit-held-per-save 1000000000 \
        --rate-limit-held-per-ip 1000000000 \
        --rate-limit-texts-per-save 1000000000 --rate-limit-texts-per-ip 1000000000 >"$work/server.log" 2>&1 &
    pids+=($!)
    server_pid=$!
    server_url=http://127.0.0.1:$port
    wait_for "$server_url/api/health"
}

stop_server() {
    kill "$server_pid"
    wait "$server_pid" 2>/dev/null || true
}

scores_script() { # kind tokens-file games-per-save
    local now
    now=$(python3 -c 'import time; print(int(time.time() * 1000))')
    "$target_dir/release/examples/verified_bodies" "$1" "$2" "$3" "$now" "$work/bodies.lua"
    cat "$work/bodies.lua" "$repo/scripts/bench/post-verified.lua" >"$work/post-scores.lua"
}

create_tokens() { # count
    : >"$work/tokens"
    for _ in $(seq 1 "$1"); do
        curl -fs -X POST -H 'Content-Type: application/json' -d '{}' "$server_url/api/saves" |
            python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])' >>"$work/tokens"
    done
}

run_wrk() { # label url output
    wrk -t"$threads" -c"$connections" -d"$duration" --latency -s "$work/post-scores.lua" "$2" >"$3"
    summary "$1" "$3"
}

echo "== POST /api/scores, verified: $connections connections, $duration, $players saves × $games games" >&2
for filter in warn info; do
    start_server "$filter"
    create_tokens "$players"
    scores_script words "$work/tokens" "$games"
    run_wrk "keydo-server (log level $filter)" "$server_url" "$work/wrk-server-$filter.txt"
    stop_server
done

echo "== verification by game length: $text_players saves × $text_games games of each kind" >&2
for kind in zh text; do
    start_server info
    create_tokens "$text_players"
    scores_script "$kind" "$work/tokens" "$text_games"
    run_wrk "keydo-server, $kind games" "$server_url" "$work/wrk-$kind.txt"
    stop_server
done
zh_rps=$(awk '/^Requests\/sec/ {print $2}' "$work/wrk-zh.txt")
text_rps=$(awk '/^Requests\/sec/ {print $2}' "$work/wrk-text.txt")
python3 -c "print(f'3,000-字 pasted text / built-in zh passage = {float($text_rps) / float($zh_rps) * 100:.0f} % of the requests per second')"

# The baseline commits each upsert alone: at NORMAL (no fsync per commit) it is the
# bare cost of a request; at FULL it shows what an fsync per request would cost without
# the server's group commit.
for synchronous in NORMAL FULL; do
    port=$(free_port)
    rm -f "$work/bare.sqlite3"*
    "$bare_bin" "127.0.0.1:$port" "$work/bare.sqlite3" "$synchronous" >"$work/bare.log" 2>&1 &
    pids+=($!)
    bare_pid=$!
    wait_for "http://127.0.0.1:$port/"
    run_wrk "bare axum + one upsert ($synchronous)" "http://127.0.0.1:$port" "$work/wrk-bare-$synchronous.txt"
    kill "$bare_pid"
    wait "$bare_pid" 2>/dev/null || true
done

server_rps=$(awk '/^Requests\/sec/ {print $2}' "$work/wrk-server-info.txt")
bare_rps=$(awk '/^Requests\/sec/ {print $2}' "$work/wrk-bare-NORMAL.txt")
python3 -c "print(f'keydo-server (as deployed: info log, synchronous=FULL) / bare NORMAL = {float($server_rps) / float($bare_rps) * 100:.0f} %')"

if [ "$rss_players" -eq 0 ]; then
    exit 0
fi

echo "== memory after creating $rss_players players through the API" >&2
start_server warn
rss_before=$(awk '/^VmRSS/ {print $2}' "/proc/$server_pid/status")
{
    echo "total = $rss_players"
    echo "threads = $threads"
    cat "$repo/scripts/bench/create-saves.lua"
} >"$work/create-saves.lua"
started=$(date +%s.%N)
# wrk runs for its whole -d window even after its threads stop, so watch the player
# count and stop wrk once the target is reached (at most 300 s).
wrk -t"$threads" -c"$connections" -d300s -s "$work/create-saves.lua" "$server_url" >"$work/wrk-saves.txt" &
wrk_pid=$!
pids+=($wrk_pid)
players_now() {
    python3 -c "import sqlite3; print(sqlite3.connect('$work/data/keydo.sqlite3').execute('select count(*) from players').fetchone()[0])"
}
for _ in $(seq 1 600); do
    [ "$(players_now)" -ge "$rss_players" ] && break
    kill -0 "$wrk_pid" 2>/dev/null || break
    sleep 0.5
done
kill "$wrk_pid" 2>/dev/null || true
wait "$wrk_pid" 2>/dev/null || true
elapsed=$(python3 -c "print(f'{$(date +%s.%N) - $started:.1f}')")
count=$(players_now)
rss_after=$(awk '/^VmRSS/ {print $2}' "/proc/$server_pid/status")
peak=$(awk '/^VmHWM/ {print $2}' "/proc/$server_pid/status")
db_size=$(du -k "$work/data/keydo.sqlite3" | cut -f1)
echo "players: $count in ${elapsed} s; RSS at start ${rss_before} KiB, after ${rss_after} KiB (peak ${peak} KiB); database file ${db_size} KiB"
stop_server
