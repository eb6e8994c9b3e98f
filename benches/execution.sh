#!/usr/bin/env bash
# The devnet's execution, measured on this machine. Outside the test suite;
# figures go in benches/README.md.
#
#   benches/execution.sh             # 10 s per load run, 300 transfers
#   DURATION=30s COUNT=1000 benches/execution.sh
#   W3API=/path/to/w3api benches/execution.sh   # another build
#   SCALES="default" benches/execution.sh        # skip the large chain's memory
#
# 1. eth_call of an ERC20's balanceOf at latest (OpenZeppelin's, deployed
#    on each node from its npm artifact), with the answer cache off so that
#    every request runs the EVM: w3api against Hardhat's node (npm, the pin
#    of .ci/node-mode) on the same call in the same run, and against w3api's
#    own eth_getBalance. Targets: at least 20x Hardhat's requests/s, and at
#    least half of eth_getBalance's.
# 2. Read your writes: a transfer sent with eth_sendRawTransaction until the
#    recipient's wallet tokens show it, COUNT times; against the same two
#    round trips asking what needs no work. Target: p99 under 20 ms.
# 3. Memory (VmRSS after generation, VmHWM the peak) and generation time of
#    the eth chain at each of SCALES, now that the EVM state is kept for
#    every block.
#
# Every server binds 127.0.0.1 on a free port and stops when the script exits.
set -euo pipefail

cd "$(dirname "$0")/.."
COUNT=${COUNT:-300}
SCALES=${SCALES:-default large}
source benches/lib.sh

need_wrk
w3api_build
node_packages
cp .ci/node-mode/hardhat.config.cjs "$nodes/"
export HARDHAT_DISABLE_TELEMETRY_PROMPT=true

# post_lua NAME JSON: a wrk script that POSTs JSON.
post_lua() {
    printf 'wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.body = %s\n' "'$2'" >"$WORK/$1.lua"
}

call_body() { # TOKEN HOLDER
    echo "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"eth_call\",\"params\":[{\"to\":\"$1\",\"data\":\"0x70a08231000000000000000000000000${2#0x}\"},\"latest\"]}"
}

# 1. Hardhat's node, as .ci/node-mode.sh starts it.
(cd "$nodes" && exec timeout 900 node_modules/.bin/hardhat --config hardhat.config.cjs node --hostname 127.0.0.1 --port 0) \
    >"$WORK/hardhat.out" 2>"$WORK/hardhat.err" &
HARDHAT_PID=$!
stop_on_exit "$HARDHAT_PID"
for _ in $(seq 1 600); do
    HARDHAT=$(sed -e 's/\x1b\[[0-9;]*m//g' -n -e 's|^Started HTTP and WebSocket JSON-RPC server at \(http://127.0.0.1:[0-9]*\)/$|\1|p' "$WORK/hardhat.out")
    [ -n "$HARDHAT" ] && break
    sleep 0.1
done
[ -n "$HARDHAT" ] || { echo "hardhat did not start" >&2; cat "$WORK/hardhat.err" >&2; exit 1; }

start serve "$W3API" serve --listen 127.0.0.1:0 --api-key "$KEY" --answer-cache-size 0
RPC=$URL/eth/$KEY
wait_for_chain "$RPC"

read -r hh_token hh_holder < <(node benches/execution/deploy.cjs "$HARDHAT")
read -r w3_token w3_holder < <(node benches/execution/deploy.cjs "$RPC")
post_lua hardhat-call "$(call_body "$hh_token" "$hh_holder")"
post_lua w3api-call "$(call_body "$w3_token" "$w3_holder")"
post_lua w3api-balance "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"eth_getBalance\",\"params\":[\"$w3_holder\",\"latest\"]}"
# Each answer is checked once by hand before the load: a balance, not an error.
for target in "$HARDHAT hardhat-call" "$RPC w3api-call"; do
    set -- $target
    answer=$(curl -sf -H 'Content-Type: application/json' -d "$(sed -n "s/^wrk.body = '\(.*\)'$/\1/p" "$WORK/$2.lua")" "$1")
    case "$answer" in *'"result":"0x00000000000000000000000000000000000000000000d3c21bcecceda1000000"'*) ;;
        *) echo "$2: unexpected answer $answer" >&2; exit 1 ;; esac
done

read -r w3_balance_rps w3_balance_p99 < <(load -s "$WORK/w3api-balance.lua" "$RPC")
read -r w3_call_rps w3_call_p99 < <(load -s "$WORK/w3api-call.lua" "$RPC")
read -r hh_call_rps hh_call_p99 < <(load -s "$WORK/hardhat-call.lua" "$HARDHAT")
kill "$HARDHAT_PID" 2>/dev/null || true

# 2. Read your writes (the server's answer cache back on: a fresh server).
kill "$SERVER_PID" 2>/dev/null || true
start serve-ryw "$W3API" serve --listen 127.0.0.1:0 --api-key "$KEY"
RPC=$URL/eth/$KEY
wait_for_chain "$RPC"
read -r ryw_token _ < <(node benches/execution/deploy.cjs "$RPC")
read -r ryw_p50 ryw_p99 ryw_max base_p50 base_p99 < <(node benches/execution/read-your-writes.cjs "$URL" "$KEY" "$ryw_token" "$COUNT")
kill "$SERVER_PID" 2>/dev/null || true

# 3. Memory and generation time per scale.
memory_rows=()
for scale in $SCALES; do
    start "serve-$scale" "$W3API" serve --listen 127.0.0.1:0 --api-key "$KEY" --scale "$scale"
    started=$(date +%s%3N)
    wait_for_chain "$URL/eth/$KEY"
    generated=$(($(date +%s%3N) - started))
    read -r rss hwm < <(memory "$SERVER_PID")
    memory_rows+=("| $scale | ${generated} ms | $rss MiB | $hwm MiB |")
    kill "$SERVER_PID" 2>/dev/null || true
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; }
percent_of() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f%%", 100 * a / b }'; }
cat <<REPORT
## benches/execution.sh ($(date -u +%F), $W3API, wrk -t$THREADS -c$CONNECTIONS -d$DURATION)

| measurement | requests/s | p99 | ratio |
|---|---|---|---|
| Hardhat $(cd "$nodes" && node -p "require('hardhat/package.json').version"): eth_call balanceOf, latest | $hh_call_rps | $hh_call_p99 ms | baseline |
| w3api: eth_getBalance, latest (answer cache off) | $w3_balance_rps | $w3_balance_p99 ms | baseline |
| w3api: eth_call balanceOf, latest (answer cache off) | $w3_call_rps | $w3_call_p99 ms | **$(ratio "$w3_call_rps" "$hh_call_rps")x Hardhat** (target 20x), **$(percent_of "$w3_call_rps" "$w3_balance_rps") of eth_getBalance** (target 50%) |

Read your writes, $COUNT transfers: sent until the wallet tokens answer shows it, p50 $ryw_p50 ms, **p99 $ryw_p99 ms** (target < 20 ms), max $ryw_max ms; baseline (eth_chainId, then an empty wallet's tokens) p50 $base_p50 ms, p99 $base_p99 ms.

| scale | eth chain generated (start to first answer) | VmRSS | VmHWM |
|---|---|---|---|
$(printf '%s\n' "${memory_rows[@]}")
REPORT

fail=0
awk -v a="$w3_call_rps" -v b="$hh_call_rps" 'BEGIN { exit !(a >= 20 * b) }' || { echo "eth_call under 20x Hardhat" >&2; fail=1; }
awk -v a="$w3_call_rps" -v b="$w3_balance_rps" 'BEGIN { exit !(2 * a >= b) }' || { echo "eth_call under half of eth_getBalance" >&2; fail=1; }
awk -v a="$ryw_p99" 'BEGIN { exit !(a < 20) }' || { echo "read-your-writes p99 over 20 ms" >&2; fail=1; }
exit "$fail"
