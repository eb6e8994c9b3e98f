# What the load scripts share: a work directory and the servers they start,
# both gone when the script exits, and wrk's settings. Sourced, not run,
# after a script sets its own defaults.

DURATION=${DURATION:-10s}
CONNECTIONS=${CONNECTIONS:-32}
THREADS=${THREADS:-2}
WALLETS=${WALLETS:-300}
SAMPLES=${SAMPLES:-31}
KEY=load-test-key

WORK=$(mktemp -d)
PIDS=()

# shellcheck source=.ci/on-exit.sh
. .ci/on-exit.sh
on_exit 'rm -rf "$WORK"'

# Starts a server whose first stdout line is "listening on URL", logging
# to $WORK/NAME.log; sets URL and SERVER_PID. Run it in the script's own
# shell (not in $(...)), so that cleanup knows the server.
start() {
    local log="$WORK/$1.log"
    shift
    "$@" >"$log" 2>"$log.err" &
    SERVER_PID=$!
    PIDS+=("$SERVER_PID")
    stop_on_exit "$SERVER_PID"
    for _ in $(seq 1 500); do
        URL=$(sed -n 's/^listening on //p' "$log" | head -n1)
        [ -n "$URL" ] && return 0
        sleep 0.01
    done
    echo "server did not start: $*" >&2
    cat "$log.err" >&2
    exit 1
}

# Prints "VmRSS VmHWM" of a process, in MiB.
memory() {
    awk '$1 == "VmRSS:" { rss = $2 } $1 == "VmHWM:" { hwm = $2 }
        END { printf "%.0f %.0f\n", rss / 1024, hwm / 1024 }' "/proc/$1/status"
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

# median_answer NAME FETCH [ARG...]: writes $WORK/NAME.json, the answer of
# median size among SAMPLES answers to the kind of request a run makes;
# `FETCH ARG... N` prints the answer for sample N (drawn the same way on
# every run).
median_answer() {
    local name=$1 n
    shift
    mkdir -p "$WORK/samples-$name"
    for n in $(seq 1 "$SAMPLES"); do "$@" "$n" >"$WORK/samples-$name/$n.json"; done
    cp "$(wc -c "$WORK/samples-$name"/*.json | grep -v ' total$' | sort -n |
        awk '{ file[NR] = $2 } END { print file[int((NR + 1) / 2)] }')" "$WORK/$name.json"
}

# Percentage of a in b, one decimal.
percent() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b > 0 ? 100 * a / b : 0) }'; }

# Size in bytes of $WORK/NAME.json.
bytes() { wc -c <"$WORK/$1.json" | tr -d ' '; }

# The cargo profile the benches build and measure: `dist` unless PROFILE
# names another (`PROFILE=release`, for a quicker build of two commits to
# compare side by side).
PROFILE=${PROFILE:-dist}

# start_baseline NAME...: the baseline server (benches/baseline, built with
# $PROFILE by the caller) answering `/` with 10 bytes and
# `/body/NAME` with a copy of $WORK/NAME.json, so that it moves as many
# bytes as the answer measured; sets BASELINE.
start_baseline() {
    local bodies=() name
    for name in "$@"; do bodies+=("$name=$WORK/$name.json"); done
    start baseline "target/$PROFILE/w3api-load-baseline" 127.0.0.1:0 "${bodies[@]}"
    BASELINE=$URL
}

# Sets W3API to the binary measured: the one named, as it is (nothing is
# built), or else the $PROFILE build, built now.
w3api_build() {
    if [ -z "${W3API:-}" ]; then
        cargo build --profile "$PROFILE" --quiet -p w3api-cli
        W3API=target/$PROFILE/w3api
    fi
}

# Installs the pinned node packages of .ci/node-mode (ethers, OpenZeppelin,
# Hardhat) into $nodes and puts them on NODE_PATH.
node_packages() {
    nodes=$PWD/target/ci/node-mode
    . .ci/npm.sh
    npm_install .ci/node-mode "$nodes"
    export NODE_PATH=$nodes/node_modules
}

# wait_for_chain RPC_URL: until the chain answers (generated, at first use).
wait_for_chain() {
    until curl -sf -o /dev/null -H 'Content-Type: application/json' \
        -d '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}' "$1"; do
        sleep 0.05
    done
}
