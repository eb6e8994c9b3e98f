# What the load scripts share: a work directory and the servers they start,
# both gone when the script exits, and wrk's settings. Sourced, not run,
# after a script sets its own defaults.

DURATION=${DURATION:-10s}
CONNECTIONS=${CONNECTIONS:-32}
THREADS=${THREADS:-2}
WALLETS=${WALLETS:-300}
KEY=load-test-key

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

# Installs wrk (Debian's package) when missing.
need_wrk() {
    if ! command -v wrk >/dev/null; then
        echo "installing wrk (Debian package)" >&2
        SUDO=$([ "$(id -u)" -eq 0 ] || echo sudo)
        $SUDO apt-get update -qq && $SUDO apt-get install -y -qq wrk >/dev/null
    fi
}

# Runs wrk; prints "requests/s p99_ms".
load() {
    local out
    out=$(wrk --latency -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" "$@")
    echo "$out" >>"$WORK/wrk.txt"
    if echo "$out" | grep -q "Non-2xx"; then
        echo "non-2xx answers under load: $*" >&2
        echo "$out" >&2
        exit 1
    fi
    echo "$out" | awk '
        /Requests\/sec:/ { rps = $2 }
        $1 == "99%" {
            v = $2
            if (v ~ /us$/) { sub(/us$/, "", v); p99 = v / 1000 }
            else if (v ~ /ms$/) { sub(/ms$/, "", v); p99 = v }
            else if (v ~ /s$/) { sub(/s$/, "", v); p99 = v * 1000 }
        }
        END { printf "%.0f %.2f\n", rps, p99 }'
}

# Writes $WORK/$1.lua: the wallets of $WORK/wallets.txt, the newest block
# ($LATEST) and a seed per wrk thread, then the Lua read from stdin (which defines `request`).
random_requests() {
    {
        echo "local wallets = {"
        sed 's/.*/"&",/' "$WORK/wallets.txt"
        echo "}"
        echo "local latest = ${LATEST:-0}"
        cat <<'LUA'
local threads = 0
function setup(thread)
    threads = threads + 1
    thread:set("id", threads)
end
function init(args)
    -- Each thread its own sequence, the same on every run.
    math.randomseed(7919 * id)
end
LUA
        cat
    } >"$WORK/$1.lua"
}
