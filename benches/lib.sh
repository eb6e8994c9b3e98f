# What the load scripts share: a work directory and the servers they start,
# both gone when the script exits. Sourced, not run.

WORK=$(mktemp -d)
PIDS=()

# Extra cleanup a script needs on exit (a command line), run before the rest.
ON_EXIT=${ON_EXIT:-}

cleanup() {
    [ -z "$ON_EXIT" ] || eval "$ON_EXIT" || true
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

# Starts a server whose first stdout line is "listening on URL", logging
# to $WORK/NAME.log; sets URL and SERVER_PID. Run it in the script's own
# shell (not in $(...)), so that cleanup knows the server.
start() {
    local log="$WORK/$1.log"
    shift
    "$@" >"$log" 2>"$log.err" &
    SERVER_PID=$!
    PIDS+=("$SERVER_PID")
    for _ in $(seq 1 500); do
        URL=$(sed -n 's/^listening on //p' "$log" | head -n1)
        [ -n "$URL" ] && return 0
        sleep 0.01
    done
    echo "server did not start: $*" >&2
    cat "$log.err" >&2
    exit 1
}
