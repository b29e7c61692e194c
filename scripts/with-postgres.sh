#!/usr/bin/env bash
# Runs a command next to a throwaway PostgreSQL cluster.
#
# Starts a fresh cluster in a temporary directory, listening on 127.0.0.1 only, with TLS
# (a throwaway certificate authority signs the server's certificate for 127.0.0.1 and
# localhost), runs the command, then stops the cluster and deletes it, whatever the
# command's outcome. The command sees:
#   KEYDO_TEST_POSTGRES_URL  postgres://postgres@127.0.0.1:<port>/postgres
#   KEYDO_TEST_POSTGRES_CA   the PEM certificate authority of the server's certificate
#   KEYDO_TEST_POSTGRES_BIN  the directory of the cluster's pg_dump, pg_restore, psql
#   KEYDO_TEST_POSTGRES_PID  the postmaster's process id (benchmarks read its CPU time)
#
#   scripts/with-postgres.sh cargo test -p keydo-server --test postgres
#   scripts/with-postgres.sh --durable node scripts/bench-deploy.mjs
#
# The tests' cluster runs with fsync off: it is thrown away, and durability would only
# slow them down. `--durable` keeps PostgreSQL's defaults (fsync and synchronous_commit
# on), as a deployment runs: benchmarks use it (`make bench`), so their figures are of a
# database that survives a power cut (also exported as KEYDO_TEST_POSTGRES_DURABLE).
# pg_stat_statements is loaded, for benchmarks to count statements per request.
#
# Needs PostgreSQL's server binaries (Debian: apt-get install postgresql) and openssl.
# As root the cluster runs as the `postgres` user, since PostgreSQL refuses to run as
# root. Exits non-zero without running the command when the cluster cannot start.
set -euo pipefail

durable=off
if [ "${1:-}" = "--durable" ]; then
    durable=on
    shift
fi
if [ "$#" -eq 0 ]; then
    echo "usage: $0 [--durable] <command> [args...]" >&2
    exit 2
fi

pg_bin=""
for candidate in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    pg_bin=$candidate
    break
done
if [ -z "$pg_bin" ]; then
    initdb_path=$(command -v initdb || true)
    if [ -z "$initdb_path" ]; then
        echo "$0: PostgreSQL's initdb was not found (apt-get install postgresql)" >&2
        exit 1
    fi
    pg_bin=$(dirname "$initdb_path")
fi

cluster=$(mktemp -d -t keydo-postgres.XXXXXX)
as_owner=()
if [ "$(id -u)" -eq 0 ]; then
    chown postgres: "$cluster"
    as_owner=(runuser -u postgres --)
fi

# A free loopback port, chosen by the kernel.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

stop_cluster() {
    "${as_owner[@]}" "$pg_bin/pg_ctl" -D "$cluster/data" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$cluster"
}
trap stop_cluster EXIT

"${as_owner[@]}" "$pg_bin/initdb" -D "$cluster/data" -U postgres --auth=trust \
    --encoding=UTF8 --locale=C --no-sync >"$cluster/initdb.log" 2>&1 ||
    { cat "$cluster/initdb.log" >&2; exit 1; }
# A certificate authority, and the server's certificate signed by it.
tls=$cluster/tls
mkdir "$tls"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=KeyDo test CA" \
    -keyout "$tls/ca.key" -out "$tls/ca.pem" 2>"$tls/openssl.log" &&
    openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" \
        -keyout "$tls/server.key" -out "$tls/server.csr" 2>>"$tls/openssl.log" &&
    openssl x509 -req -in "$tls/server.csr" -CA "$tls/ca.pem" -CAkey "$tls/ca.key" \
        -CAcreateserial -days 2 -out "$tls/server.pem" \
        -extfile <(printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n') \
        2>>"$tls/openssl.log" ||
    { cat "$tls/openssl.log" >&2; exit 1; }
chmod 600 "$tls/server.key"
if [ "${#as_owner[@]}" -gt 0 ]; then chown -R postgres: "$tls"; fi

fsync=off
if [ "$durable" = on ]; then fsync=on; fi
"${as_owner[@]}" "$pg_bin/pg_ctl" -D "$cluster/data" -l "$cluster/server.log" -w -t 30 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $cluster -c fsync=$fsync -c max_connections=200 \
        -c shared_preload_libraries=pg_stat_statements -c ssl=on -c ssl_cert_file=$tls/server.pem -c ssl_key_file=$tls/server.key" \
    start >/dev/null ||
    { cat "$cluster/server.log" >&2; exit 1; }

export KEYDO_TEST_POSTGRES_URL="postgres://postgres@127.0.0.1:$port/postgres"
export KEYDO_TEST_POSTGRES_CA="$tls/ca.pem"
# The directory of its Unix socket (`.s.PGSQL.<port>`), for runs on the same host.
export KEYDO_TEST_POSTGRES_SOCKET_DIR="$cluster"
export KEYDO_TEST_POSTGRES_BIN="$pg_bin"
export KEYDO_TEST_POSTGRES_DURABLE="$durable"
KEYDO_TEST_POSTGRES_PID=$(head -1 "$cluster/data/postmaster.pid")
export KEYDO_TEST_POSTGRES_PID
echo "$0: $("$pg_bin/postgres" --version) on 127.0.0.1:$port, fsync $fsync" >&2
"$@"
