#!/usr/bin/env bash
# Load test of `w3api serve` on this machine, against a minimal axum handler
# measured in the same run. Outside the test suite; figures go in README.md.
#
#   benches/load.sh                 # 10 s per measurement
#   DURATION=30s benches/load.sh    # longer runs
#
# Every server binds 127.0.0.1 on a free port and is stopped on exit. Exits
# non-zero when a target is missed:
#   - wallet tokens (a wallet with >= 20 tokens) >= 40% of the baseline's
#     requests/s, p99 < 10 ms, at 32 connections;
#   - eth_getBlockByNumber with full transactions of a 150-transaction block
#     >= 5,000 requests/s;
#   - server start to first accepted connection < 1 s (default scale).
set -euo pipefail

cd "$(dirname "$0")/.."
DURATION=${DURATION:-10s}
CONNECTIONS=${CONNECTIONS:-32}
THREADS=${THREADS:-2}
KEY=load-test-key
WORK=$(mktemp -d)
PIDS=()

cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

if ! command -v wrk >/dev/null; then
    echo "installing wrk (Debian package)" >&2
    SUDO=$([ "$(id -u)" -eq 0 ] || echo sudo)
    $SUDO apt-get update -qq && $SUDO apt-get install -y -qq wrk >/dev/null
fi

cargo build --release --quiet -p w3api-cli
cargo build --release --quiet -p w3api-server --example baseline
W3API=target/release/w3api

now_ms() { date +%s%3N; }

# Starts a server whose first stdout line is "listening on URL"; sets URL.
start() {
    local log="$WORK/$1.log"
    shift
    "$@" >"$log" 2>"$log.err" &
    PIDS+=($!)
    for _ in $(seq 1 500); do
        URL=$(sed -n 's/^listening on //p' "$log" | head -n1)
        [ -n "$URL" ] && return 0
        sleep 0.01
    done
    echo "server did not start: $*" >&2
    cat "$log.err" >&2
    exit 1
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

# 1. Start to first accepted connection, default scale.
started=$(now_ms)
start serve env RUST_LOG="${RUST_LOG:-info}" "$W3API" serve --listen 127.0.0.1:0 --api-key "$KEY"
until curl -sf -o /dev/null "$URL/health"; do sleep 0.005; done
startup_ms=$(($(now_ms) - started))
SERVER=$URL

start baseline target/release/examples/baseline 127.0.0.1:0
BASELINE=$URL

WALLET=$("$W3API" devnet wallets --count 1)
read -r BLOCK BLOCK_TXS < <("$W3API" devnet blocks --chain eth --count 1)
TOKENS_URL="$SERVER/api/v2.2/wallets/$WALLET/tokens?chain=eth"
token_count=$(curl -sf -H "X-API-Key: $KEY" "$TOKENS_URL" | grep -o '"token_address"' | wc -l)
[ "$token_count" -gt 0 ] || { echo "wallet tokens request failed: $TOKENS_URL" >&2; exit 1; }

cat >"$WORK/block.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["$BLOCK",true]}'
LUA
block_bytes=$(curl -sf -H 'Content-Type: application/json' \
    -d "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"eth_getBlockByNumber\",\"params\":[\"$BLOCK\",true]}" \
    "$SERVER/eth/$KEY" | wc -c)

# Warm both servers and the answer caches before measuring.
DURATION=2s load "$BASELINE/" >/dev/null
DURATION=2s load -H "X-API-Key: $KEY" "$TOKENS_URL" >/dev/null

read -r base_rps base_p99 < <(load "$BASELINE/")
read -r tokens_rps tokens_p99 < <(load -H "X-API-Key: $KEY" "$TOKENS_URL")
read -r block_rps block_p99 < <(load -s "$WORK/block.lua" "$SERVER/eth/$KEY")
ratio=$(awk -v a="$tokens_rps" -v b="$base_rps" 'BEGIN { printf "%.1f", 100 * a / b }')

cat <<REPORT
w3api load test: wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency, $(nproc) cores, RUST_LOG=${RUST_LOG:-info}
  startup to first accepted connection      ${startup_ms} ms            (target < 1000 ms)
  baseline: axum, fixed 10-byte body        ${base_rps} req/s   p99 ${base_p99} ms
  GET /api/v2.2/wallets/{address}/tokens ($token_count tokens)  ${tokens_rps} req/s   p99 ${tokens_p99} ms   ${ratio}% of baseline (target >= 40%, p99 < 10 ms)
  eth_getBlockByNumber($BLOCK, full; $BLOCK_TXS txs, $block_bytes bytes)  ${block_rps} req/s   p99 ${block_p99} ms   (target >= 5000 req/s)
REPORT

failed=0
miss() { echo "MISSED: $*" >&2; failed=1; }
[ "$startup_ms" -lt 1000 ] || miss "startup ${startup_ms} ms"
[ "$token_count" -ge 20 ] || miss "wallet holds only $token_count tokens"
[ "$BLOCK_TXS" -ge 150 ] || miss "busiest block has only $BLOCK_TXS transactions"
awk -v r="$ratio" 'BEGIN { exit !(r >= 40) }' || miss "wallet tokens at ${ratio}% of baseline"
awk -v p="$tokens_p99" 'BEGIN { exit !(p < 10) }' || miss "wallet tokens p99 ${tokens_p99} ms"
awk -v r="$block_rps" 'BEGIN { exit !(r >= 5000) }' || miss "full block ${block_rps} req/s"
exit "$failed"
