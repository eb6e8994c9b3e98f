#!/usr/bin/env bash
# Where a request's time goes: `w3api serve` under wrk, sampled by perf, with
# Anvil (npm, pinned in .ci/node-mode) loaded the same way in the same run for
# the ratio. Outside the test suite; findings go in benches/README.md.
#
#   benches/profile.sh                  # eth_getBalance, eth_blockNumber, cached wallet tokens
#   DURATION=8s ROUNDS=5 benches/profile.sh
#   PERF=0 benches/profile.sh           # the ratios alone
#
# The binary is the `dist` build (what benches/ measure and a deployment
# runs) with frame pointers and line tables, so that perf can walk the
# stack; it goes to target/prof, apart from the plain builds. The answer
# cache is off for the RPC methods (each call is answered afresh, as the
# comparison with Anvil needs) and on for the wallet-tokens answer, which is
# the cached path. Every server binds 127.0.0.1 on a free port and is
# stopped on exit.
set -euo pipefail

cd "$(dirname "$0")/.."
DURATION=${DURATION:-6s}
ROUNDS=${ROUNDS:-3}
PERF=${PERF:-1}
source benches/lib.sh

need_wrk
[ "$PERF" = 0 ] || command -v perf >/dev/null || { echo "perf is not installed (Debian: linux-perf)" >&2; exit 1; }
node_packages
ANVIL=$nodes/node_modules/.bin/anvil

CARGO_TARGET_DIR=target/prof RUSTFLAGS="-C force-frame-pointers=yes" CARGO_PROFILE_DIST_DEBUG=line-tables-only \
    cargo build --profile dist --quiet -p w3api-cli
W3API=target/prof/dist/w3api

rpc() { curl -sf -H 'Content-Type: application/json' -d "$2" "$1"; }
body() { printf '{"jsonrpc":"2.0","id":1,"method":"%s","params":%s}' "$1" "$2"; }
rps() { wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" "$@" | awk '/Requests\/sec/ { print $2 }'; }

# Samples process $1 for 6 s while wrk loads it with the rest of the
# arguments; prints how its time splits between the kernel and the server's
# own code, and the server's functions with the most time, callees included.
profile() {
    local pid=$1 name=$2
    shift 2
    (sleep 1 && perf record -F 999 -g -p "$pid" -o "$WORK/$name.perf" -- sleep 6 >/dev/null 2>&1) &
    local sampler=$!
    wrk -t"$THREADS" -c"$CONNECTIONS" -d8s "$@" >/dev/null
    wait "$sampler"
    # Through files, not pipes that stop early: a reader that quits would
    # stop perf by SIGPIPE, and the script with it.
    perf report -i "$WORK/$name.perf" --no-children --stdio --sort dso -g none >"$WORK/$name.dso" 2>/dev/null
    perf report -i "$WORK/$name.perf" --children --stdio --sort symbol -g none --dsos w3api \
        >"$WORK/$name.symbols" 2>/dev/null
    echo "--- $name: time by object"
    awk '/%/ && n++ < 4' "$WORK/$name.dso"
    echo "--- $name: the server's functions, with what they call (top 40)"
    awk '/%/ && n++ < 40 { print substr($0, 1, 160) }' "$WORK/$name.symbols"
}

start w3api env RUST_LOG=warn "$W3API" serve --listen 127.0.0.1:0 --api-key "$KEY" --answer-cache-size 0
W3API_URL=$URL/eth/$KEY
W3API_PID=$SERVER_PID
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$ANVIL" --port "$PORT" --silent >"$WORK/anvil.log" 2>&1 &
stop_on_exit $!
ANVIL_URL=http://127.0.0.1:$PORT
until rpc "$ANVIL_URL" "$(body eth_blockNumber '[]')" >/dev/null; do sleep 0.1; done

# Anvil's first dev account: funded on both chains.
ACCOUNT=0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266
for method in eth_getBalance eth_blockNumber; do
    case $method in
        eth_getBalance) request=$(body "$method" "[\"$ACCOUNT\",\"latest\"]") ;;
        *) request=$(body "$method" '[]') ;;
    esac
    printf 'wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.body = [[%s]]\n' \
        "$request" >"$WORK/$method.lua"
    rpc "$W3API_URL" "$request" | grep -q '"result"' || { echo "w3api does not answer $request" >&2; exit 1; }
    rpc "$ANVIL_URL" "$request" | grep -q '"result"' || { echo "anvil does not answer $request" >&2; exit 1; }
    for round in $(seq "$ROUNDS"); do
        anvil=$(rps -s "$WORK/$method.lua" "$ANVIL_URL")
        ours=$(rps -s "$WORK/$method.lua" "$W3API_URL")
        echo "$method round $round: Anvil $anvil requests/s, w3api $ours: $(awk -v a="$anvil" -v w="$ours" 'BEGIN { printf "%.2f", w / a }')x"
    done
    [ "$PERF" = 0 ] || profile "$W3API_PID" "$method" -s "$WORK/$method.lua" "$W3API_URL"
done

start w3api-cached env RUST_LOG=warn "$W3API" serve --listen 127.0.0.1:0 --api-key "$KEY"
CACHED_PID=$SERVER_PID
WALLET=$("$W3API" devnet wallets --count 1)
TOKENS=$URL/api/v2.2/wallets/$WALLET/tokens?chain=eth
printf 'wrk.headers["X-API-Key"] = "%s"\n' "$KEY" >"$WORK/tokens.lua"
echo "cached wallet tokens ($(curl -sf -H "X-API-Key: $KEY" "$TOKENS" | wc -c) bytes): $(rps -s "$WORK/tokens.lua" "$TOKENS") requests/s"
[ "$PERF" = 0 ] || profile "$CACHED_PID" wallet-tokens -s "$WORK/tokens.lua" "$TOKENS"
