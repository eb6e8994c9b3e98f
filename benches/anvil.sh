#!/usr/bin/env bash
# w3api against Anvil, the dev node a Rust stack would otherwise pick (npm
# @foundry-rs/anvil, pinned in .ci/node-mode), side by side in one run:
# both on loopback, the same OpenZeppelin ERC20 deployed on each, each
# measure taken on both in alternating rounds. Prints each ratio
# (w3api / Anvil, higher is better) and fails under its floor. Outside the
# test suite; figures go in benches/README.md.
#
#   benches/anvil.sh                          # the dist build
#   W3API=target/release/w3api benches/anvil.sh
#   ROUNDS=5 DURATION=8s benches/anvil.sh
#
# Reads: wrk -t2 -c32 for DURATION per round, ROUNDS rounds, the median
# ratio. Our answer cache is off, so that every request is answered afresh
# as Anvil answers it. The serial send loop: SERIAL ERC20 transfers sent one
# by one, each followed by its receipt (automine), 5 rounds, the median.
# Then a burst: BURST ether transfers sent with automine off, then mined as
# one block; the time from the first send to the mined block. Beside each
# rate, the server's own CPU per request (its utime and stime over the
# measure, from /proc), which the shared cores and the kernel's loopback
# work disturb less than the rate.
set -euo pipefail

cd "$(dirname "$0")/.."
DURATION=${DURATION:-6s}
ROUNDS=${ROUNDS:-3}
SERIAL=${SERIAL:-200}
BURST=${BURST:-1000}
source benches/lib.sh
[ $((5 * SERIAL)) -ge 1000 ] || { echo "SERIAL=$SERIAL: eth_getLogs reads 1,000 blocks, so the 5 rounds need SERIAL of 200 or more" >&2; exit 1; }
[ "${DURATION%s}" -gt 0 ] 2>/dev/null || { echo "DURATION=$DURATION: a whole number of seconds, such as 5s" >&2; exit 1; }

# The floors of issue 49: w3api's rate over Anvil's.
declare -A FLOOR=(
    [eth_getBalance]=2 [eth_blockNumber]=2 [eth_getTransactionReceipt]=2 [eth_call]=3
    [eth_getBlockByNumber]=2 [eth_getLogs]=2 [serial]=3 [burst]=2
)

need_wrk
w3api_build
node_packages
# The binary itself, not npm's launcher, so that its CPU is the node's.
ANVIL_BIN=$(find "$nodes/node_modules/@foundry-rs" -path '*/bin/anvil' -type f | head -n1)
[ -x "$ANVIL_BIN" ] || { echo "no anvil binary in $nodes/node_modules/@foundry-rs" >&2; exit 1; }

rpc() { curl -sf -H 'Content-Type: application/json' -d "$2" "$1"; }
body() { printf '{"jsonrpc":"2.0","id":1,"method":"%s","params":%s}' "$1" "$2"; }
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ratio() { awk -v w="$1" -v a="$2" 'BEGIN { printf "%.2f", w / a }'; }

start w3api env RUST_LOG=warn "$W3API" serve --listen 127.0.0.1:0 --api-key "$KEY" --answer-cache-size 0
W3API_URL=$URL/eth/$KEY
W3API_PID=$SERVER_PID
wait_for_chain "$W3API_URL"
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$ANVIL_BIN" --host 127.0.0.1 --port "$PORT" --silent >"$WORK/anvil.log" 2>&1 &
ANVIL_PID=$!
stop_on_exit "$ANVIL_PID"
ANVIL_URL=http://127.0.0.1:$PORT
wait_for_chain "$ANVIL_URL"

declare -A URLS=([anvil]=$ANVIL_URL [w3api]=$W3API_URL) PID=([anvil]=$ANVIL_PID [w3api]=$W3API_PID) TOKEN HOLDER LAST
# CPU time the node has used, user and system, in clock ticks.
ticks() { awk '{ print $14 + $15 }' "/proc/${PID[$1]}/stat"; }
TICK_US=$((1000000 / $(getconf CLK_TCK)))
declare -A CPU=([anvil]=0 [w3api]=0) DONE=([anvil]=0 [w3api]=0)
# measured NODE COMMAND...: runs COMMAND, adding the node's CPU over it to CPU[NODE].
measured() {
    local node=$1 before
    shift
    before=$(ticks "$node")
    "$@"
    CPU[$node]=$((CPU[$node] + $(ticks "$node") - before))
}
# per_request NODE: sets PER to the node's CPU per request (or transaction)
# since the last call, in microseconds, and counts afresh. Not for $(...),
# whose subshell would keep the counts going.
per_request() {
    PER=$(awk -v t="${CPU[$1]}" -v n="${DONE[$1]}" -v us="$TICK_US" 'BEGIN { printf "%.0f", t * us / n }')
    CPU[$1]=0
    DONE[$1]=0
}
for node in anvil w3api; do
    read -r "TOKEN[$node]" "HOLDER[$node]" < <(node benches/execution/deploy.cjs "${URLS[$node]}")
done

declare -A LABEL=(
    [serial]="ERC20 transfers sent one by one, each with its receipt (automine)"
    [burst]="$BURST ether transfers sent 32 at a time with automine off, then mined as one block"
    [eth_getBalance]="eth_getBalance, latest" [eth_blockNumber]=eth_blockNumber
    [eth_call]="eth_call balanceOf, latest" [eth_getBlockByNumber]="eth_getBlockByNumber(latest, true)"
    [eth_getTransactionReceipt]="eth_getTransactionReceipt" [eth_getLogs]="eth_getLogs, the token's 1,000 transfers over 1,000 blocks"
)
ROWS=()
FAILED=()
# record MEASURE ANVIL W3API UNIT: a row of the report, with each node's
# CPU per request since the last row, checked against its floor.
record() {
    local r anvil_cpu
    r=$(ratio "$3" "$2")
    per_request anvil
    anvil_cpu=$PER
    per_request w3api
    ROWS+=("| ${LABEL[$1]} | $2 $4 | $3 $4 | **${r}x** | ${FLOOR[$1]}x | $anvil_cpu / $PER µs |")
    awk -v r="$r" -v f="${FLOOR[$1]}" 'BEGIN { exit !(r >= f) }' || FAILED+=("$1 at ${r}x, under ${FLOOR[$1]}x")
}

# The serial send loop first: its 5 rounds leave over 1,000 blocks with a
# transfer each on both chains, which eth_getLogs then reads.
declare -A SENT=([anvil]= [w3api]=)
for round in 1 2 3 4 5; do
    for node in anvil w3api; do
        measured "$node" node benches/anvil/sends.cjs serial "${URLS[$node]}" "${TOKEN[$node]}" "$SERIAL" >"$WORK/sent"
        read -r rate hash <"$WORK/sent"
        SENT[$node]+="$rate "
        DONE[$node]=$((DONE[$node] + SERIAL))
        LAST[$node]=$hash
    done
    echo "serial round $round: Anvil $(echo "${SENT[anvil]}" | awk '{ print $NF }') tx/s, w3api $(echo "${SENT[w3api]}" | awk '{ print $NF }') tx/s" >&2
done
record serial "$(echo "${SENT[anvil]}" | tr ' ' '\n' | grep . | median)" \
    "$(echo "${SENT[w3api]}" | tr ' ' '\n' | grep . | median)" tx/s

# request NODE MEASURE: the JSON-RPC request the read measure sends to NODE.
request() {
    local token=${TOKEN[$1]} holder=${HOLDER[$1]} latest
    case $2 in
        eth_getBalance) body eth_getBalance "[\"$holder\",\"latest\"]" ;;
        eth_blockNumber) body eth_blockNumber '[]' ;;
        eth_call) body eth_call "[{\"to\":\"$token\",\"data\":\"0x70a08231000000000000000000000000${holder#0x}\"},\"latest\"]" ;;
        eth_getBlockByNumber) body eth_getBlockByNumber '["latest",true]' ;;
        eth_getTransactionReceipt) body eth_getTransactionReceipt "[\"${LAST[$1]}\"]" ;;
        eth_getLogs)
            latest=$(rpc "${URLS[$1]}" "$(body eth_blockNumber '[]')" | sed 's/.*"result":"\(0x[0-9a-f]*\)".*/\1/')
            body eth_getLogs "[{\"address\":\"$token\",\"fromBlock\":\"$(printf '0x%x' $((latest - 999)))\",\"toBlock\":\"$latest\"}]" ;;
    esac
}

for measure in eth_getBalance eth_blockNumber eth_call eth_getBlockByNumber eth_getTransactionReceipt eth_getLogs; do
    declare -A RATE=([anvil]= [w3api]=)
    for node in anvil w3api; do
        request "$node" "$measure" >"$WORK/$node-$measure.json"
        answer=$(rpc "${URLS[$node]}" "$(cat "$WORK/$node-$measure.json")")
        case $answer in *'"result":null'* | *'"error"'* | '') echo "$node: no answer to $measure: $answer" >&2; exit 1 ;; esac
        [ "$measure" != eth_getLogs ] || [ "$(grep -o '"transactionHash"' <<<"$answer" | wc -l)" -eq 1000 ] ||
            { echo "$node: eth_getLogs over 1,000 blocks did not give 1,000 logs" >&2; exit 1; }
        printf 'wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.body = [[%s]]\n' \
            "$(cat "$WORK/$node-$measure.json")" >"$WORK/$node-$measure.lua"
    done
    for round in $(seq "$ROUNDS"); do
        for node in anvil w3api; do
            measured "$node" load -s "$WORK/$node-$measure.lua" "${URLS[$node]}" >"$WORK/loaded"
            read -r rps _ <"$WORK/loaded"
            RATE[$node]+="$rps "
            DONE[$node]=$((DONE[$node] + $(awk -v r="$rps" -v d="${DURATION%s}" 'BEGIN { printf "%.0f", r * d }')))
        done
    done
    echo "$measure: Anvil ${RATE[anvil]}, w3api ${RATE[w3api]} requests/s" >&2
    record "$measure" "$(echo "${RATE[anvil]}" | tr ' ' '\n' | grep . | median)" \
        "$(echo "${RATE[w3api]}" | tr ' ' '\n' | grep . | median)" req/s
done

# The burst last: it leaves a block of BURST transactions as the newest.
declare -A BLOCK_MS
for node in anvil w3api; do
    measured "$node" node benches/anvil/sends.cjs burst "${URLS[$node]}" "$BURST" >"$WORK/burst"
    read -r send mine total <"$WORK/burst"
    echo "burst of $BURST on $node: sent in $send ms, mined in $mine ms" >&2
    BLOCK_MS[$node]=$total
    DONE[$node]=$BURST
done
per_second() { awk -v n="$BURST" -v t="$1" 'BEGIN { printf "%.0f", 1000 * n / t }'; }
record burst "$(per_second "${BLOCK_MS[anvil]}")" "$(per_second "${BLOCK_MS[w3api]}")" tx/s

cat <<REPORT
## benches/anvil.sh ($(date -u +%F), $W3API against Anvil $("$ANVIL_BIN" --version | head -n1 | awk '{ print $NF }'), wrk -t$THREADS -c$CONNECTIONS -d$DURATION, median of $ROUNDS rounds; sends: median of 5 rounds of $SERIAL, a block of $BURST)

| measure | Anvil | w3api | w3api / Anvil | floor | CPU per request or transaction, Anvil / w3api |
|---|---|---|---|---|---|
$(printf '%s\n' "${ROWS[@]}")
REPORT
for failure in "${FAILED[@]}"; do echo "under its floor: $failure" >&2; done
[ "${#FAILED[@]}" -eq 0 ]
