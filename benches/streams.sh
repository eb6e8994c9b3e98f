#!/usr/bin/env bash
# Stream deliveries under load: STREAMS (50) streams of every ERC20 transfer
# on eth, one block a second (`w3api serve --block-time 1s`), delivered to a
# local receiver that answers at once:
#   - block-to-delivery latency p50/p99 for DURATION, against the floor of a
#     plain POST to the same receiver;
#   - deliveries/s, replaying every delivery of the run at once, against the
#     rate of plain POSTs to the receiver with as many in flight.
# On the embedded store (memory) and on PostgreSQL (.ci/postgres.sh's
# throwaway cluster). Outside the test suite; figures go in benches/README.md.
#
#   benches/streams.sh
#   DURATION=60s STREAMS=50 benches/streams.sh
set -euo pipefail

cd "$(dirname "$0")/.."
DURATION=${DURATION:-30s}
STREAMS=${STREAMS:-50}
source benches/lib.sh
on_exit '.ci/postgres.sh stop'

cargo build --profile dist --quiet -p w3api-cli -p w3api-load-streams
W3API=target/dist/w3api
LOAD=target/dist/w3api-load-streams

run() { # name, store flags...
    local name=$1
    shift
    start "$name" "$W3API" serve --listen 127.0.0.1:0 --api-key "$KEY" --block-time 1s --confirmations 3 \
        --webhook-host 127.0.0.1 "$@"
    "$LOAD" --target "$URL" --key "$KEY" --streams "$STREAMS" --duration "$DURATION" --connections "$CONNECTIONS" |
        sed "s/^/$name /"
    kill "$SERVER_PID"
    wait "$SERVER_PID" 2>/dev/null || true
}

run embedded
run postgres --database "$(.ci/postgres.sh start)"
