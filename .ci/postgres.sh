#!/usr/bin/env bash
# A throwaway PostgreSQL cluster on loopback, for the store's suite and the
# replica tests. Installs Debian's postgresql when its server is missing.
#
#   .ci/postgres.sh start   # prints the cluster's URL on stdout
#   .ci/postgres.sh stop
#   .ci/postgres.sh halt    # stops the running cluster, keeping its data
#   .ci/postgres.sh resume  # starts it again, on the same port
#   .ci/postgres.sh replica # a hot standby streaming from the running
#                           # cluster, on a port of its own; prints its URL
#
# The cluster lives in target/ci/postgres (a fresh one at each start), trusts
# local connections, and listens on 127.0.0.1 only, on a free port.
set -euo pipefail

cd "$(dirname "$0")/.."
link="$(pwd)/target/ci/postgres"

server_bin() {
    ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1
}

# PostgreSQL refuses to run as root: as root, run it as its own user.
as_owner() {
    if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

stop() {
    local bin data
    bin=$(server_bin)
    for data in "$link/replica/data" "$link/data"; do
        if [ -n "$bin" ] && [ -f "$data/postmaster.pid" ]; then
            as_owner "$bin/pg_ctl" -D "$data" -m fast -w stop >/dev/null 2>&1 || true
        fi
    done
}

# A hot standby of the running cluster: a base backup taken over the
# replication protocol (-R writes the standby's connection settings), then
# started on a port of its own; it replays the primary's WAL as it streams.
replica() {
    local bin dir port primary
    bin=$(server_bin)
    primary=$(sed -n 's/.*-c port=\([0-9]*\).*/\1/p' "$link/options")
    dir=$(readlink -f "$link")/replica
    if [ -f "$dir/data/postmaster.pid" ]; then
        as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir" && mkdir -p "$dir"
    if [ "$(id -u)" -eq 0 ]; then chown postgres: "$dir"; fi
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    as_owner "$bin/pg_basebackup" -h 127.0.0.1 -p "$primary" -U w3api -D "$dir/data" -R -X stream \
        >"$dir/basebackup.log" 2>&1
    echo "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir -c max_connections=200" \
        >"$dir/options"
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -o "$(cat "$dir/options")" start >/dev/null
    echo "postgres://w3api@127.0.0.1:$port/w3api"
}

start() {
    if [ -z "$(server_bin)" ] || [ ! -x "$(server_bin)/postgres" ]; then
        echo "installing postgresql (Debian package)" >&2
        local sudo
        sudo=$([ "$(id -u)" -eq 0 ] || echo sudo)
        $sudo apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql >/dev/null
    fi
    local bin
    bin=$(server_bin)
    stop
    rm -rf "$link"
    mkdir -p "$(dirname "$link")"
    local dir="$link"
    if [ "$(id -u)" -eq 0 ]; then
        # The server's user must reach the directory; a clone under a
        # private home cannot be reached, so the cluster then lives in /tmp
        # and target/ci/postgres points to it.
        mkdir -p "$link" && chown postgres: "$link"
        if ! runuser -u postgres -- test -w "$link"; then
            rm -rf "$link"
            dir=$(mktemp -d /tmp/w3api-postgres.XXXXXX)
            chown postgres: "$dir"
            ln -s "$dir" "$link"
        fi
    else
        mkdir -p "$link"
    fi
    local port
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    as_owner "$bin/initdb" -D "$dir/data" -U w3api --auth=trust --encoding=UTF8 --no-instructions >"$dir/initdb.log"
    echo "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir -c max_connections=200" \
        >"$dir/options"
    resume
    as_owner "$bin/createdb" -h 127.0.0.1 -p "$port" -U w3api w3api
    echo "postgres://w3api@127.0.0.1:$port/w3api"
}

resume() {
    as_owner "$(server_bin)/pg_ctl" -D "$link/data" -l "$link/server.log" -w -o "$(cat "$link/options")" \
        start >/dev/null
}

case "${1:-}" in
    start) start ;;
    stop | halt) stop ;;
    resume) resume ;;
    replica) replica ;;
    *) echo "usage: $0 start|stop|halt|resume|replica" >&2; exit 2 ;;
esac
