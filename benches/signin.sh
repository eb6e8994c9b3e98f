#!/usr/bin/env bash
# Load test of sign-in on the store: challenge request + verify, 32
# connections, on
#   1. one `w3api serve --data-dir` (the embedded store, SQLite in a file);
#   2. two replicas on one PostgreSQL, each challenge issued by one and
#      verified by the other;
#   3. the same two replicas while PostgreSQL is stopped for OUTAGE and
#      started again: the 503s, any other error, and the time from the
#      database being back to the first second answered without a 503.
# Outside the test suite; figures go in benches/README.md.
#
#   benches/signin.sh                  # 60 s per run
#   DURATION=20s benches/signin.sh
#
# PostgreSQL is .ci/postgres.sh's throwaway cluster (installed from Debian
# when missing). Everything binds 127.0.0.1 and is stopped on exit. Exits
# non-zero when runs 1 or 2 have an error, or when run 3 gives anything but
# 2xx and 503, or never recovers.
set -euo pipefail

cd "$(dirname "$0")/.."
DURATION=${DURATION:-60s}
FAULT_DURATION=${FAULT_DURATION:-30s}
OUTAGE=${OUTAGE:-5}
source benches/lib.sh
on_exit '.ci/postgres.sh stop'

cargo build --profile dist --quiet -p w3api-cli -p w3api-load-signin
W3API=target/dist/w3api
LOAD=target/dist/w3api-load-signin

# Starts `w3api serve` named $1 with the store flags that follow; sets URL.
serve() {
    local name=$1
    shift
    start "$name" "$W3API" serve --listen 127.0.0.1:0 --api-key "$KEY" --secret "one secret for the replicas" "$@"
}

stop_servers() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait "${PIDS[@]}" 2>/dev/null || true
    PIDS=()
}

summary() { grep '^requests=' "$1"; }
field() { sed -n "s/.*[[:space:]]$2=\([^[:space:]]*\).*/\1/p; s/^$2=\([^[:space:]]*\).*/\1/p" "$1" | head -n1; }

# 1. Embedded store.
serve embedded --data-dir "$WORK/data"
embedded=$URL
"$LOAD" --target "$embedded" --key "$KEY" --connections "$CONNECTIONS" --duration "$DURATION" >"$WORK/embedded.txt" \
    2>"$WORK/embedded.err"
stop_servers

# 2. Two replicas on PostgreSQL.
DATABASE=$(.ci/postgres.sh start)
serve replica-a --database "$DATABASE"
a=$URL
serve replica-b --database "$DATABASE"
b=$URL
"$LOAD" --target "$a" --target "$b" --key "$KEY" --connections "$CONNECTIONS" --duration "$DURATION" \
    >"$WORK/replicas.txt" 2>"$WORK/replicas.err"

# 3. The same replicas, PostgreSQL stopped a third of the way in.
"$LOAD" --target "$a" --target "$b" --key "$KEY" --connections "$CONNECTIONS" --duration "$FAULT_DURATION" \
    --timeline >"$WORK/fault.txt" 2>"$WORK/fault.err" &
load_pid=$!
stop_on_exit "$load_pid"
fault_seconds=${FAULT_DURATION%s}
sleep $((fault_seconds / 3))
halted_ms=$(date +%s%3N)
.ci/postgres.sh halt
sleep "$OUTAGE"
.ci/postgres.sh resume
resumed_ms=$(date +%s%3N)
wait "$load_pid"
stop_servers

start_ms=$(field "$WORK/fault.txt" start_epoch_ms)
# The first 100 ms bucket after the restart with answers and no 503, and
# every bucket after it the same.
recovered_ms=$(awk -v since=$((resumed_ms - start_ms)) '
    $1 == "timeline" && $2 >= since - 100 {
        if ($4 == 0 && $3 > 0) { if (first == "") first = $2 } else { first = "" }
    }
    END { print (first == "" ? -1 : first) }' "$WORK/fault.txt")
unavailable=$(awk '$1 == "timeline" { n += $4 } END { print n + 0 }' "$WORK/fault.txt")
other=$(awk '$1 == "timeline" { n += $5 } END { print n + 0 }' "$WORK/fault.txt")
# The bucket's end: at most this long after the database was back.
recovery=$([ "$recovered_ms" -ge 0 ] && echo "at most $((recovered_ms + 100 + start_ms - resumed_ms)) ms" || echo "never")

cat <<REPORT
w3api sign-in load: challenge request + verify, $CONNECTIONS connections, $(nproc) cores
  embedded store (--data-dir), one server, $DURATION:      $(summary "$WORK/embedded.txt")
  PostgreSQL, two replicas (issued on one, verified on the other), $DURATION:  $(summary "$WORK/replicas.txt")
  PostgreSQL stopped for ${OUTAGE} s, $((halted_ms - start_ms)) ms into a $FAULT_DURATION run:  $(summary "$WORK/fault.txt")
      503 answers: $unavailable; other errors: $other; answered without a 503 again $recovery after PostgreSQL was back (100 ms buckets)
REPORT

failed=0
miss() { echo "MISSED: $*" >&2; failed=1; }
[ "$(field "$WORK/embedded.txt" errors)" = 0 ] || miss "errors on the embedded store"
[ "$(field "$WORK/replicas.txt" errors)" = 0 ] || miss "errors on the replicas"
[ "$other" = 0 ] || { miss "errors other than 503 during the outage"; grep -v '^503' "$WORK/fault.err" | head -5 >&2; }
[ "$unavailable" -gt 0 ] || miss "no 503 during the outage"
[ "$recovered_ms" -ge 0 ] || miss "no recovery after the outage"
exit "$failed"
