#!/usr/bin/env bash
# WebSocket subscribers while blocks come every 100 ms: a `w3api serve`, an
# OpenZeppelin ERC20 deployed on it, then benches/execution/subscribers.cjs
# three times on fresh servers: one subscriber (the baseline), SUBSCRIBERS
# subscribers (newHeads and the token's logs each), and SUBSCRIBERS plus
# one socket that never reads. Each prints the delivery p50/p99/max of
# headers and logs from the moment the block was made, and the server's
# memory before and after (VmRSS, VmHWM).
#
#   benches/subscribers.sh              # builds the dist profile first
#   W3API=target/release/w3api SUBSCRIBERS=1000 BLOCKS=100 benches/subscribers.sh
#
# Every server binds 127.0.0.1 on a free port and stops when the script exits.
set -euo pipefail

cd "$(dirname "$0")/.."
SUBSCRIBERS=${SUBSCRIBERS:-1000}
BLOCKS=${BLOCKS:-100}
source benches/lib.sh

w3api_build
node_packages

# run NAME SUBSCRIBERS STALLED: prints "JSON rss_before hwm_before rss_after hwm_after".
run() {
    start "$1" "$W3API" serve --listen 127.0.0.1:0 --api-key "$KEY"
    wait_for_chain "$URL/eth/$KEY"
    local token holder before after out
    read -r token holder < <(node benches/execution/deploy.cjs "$URL/eth/$KEY")
    before=$(memory "$SERVER_PID")
    out=$(SUBSCRIBERS=$2 STALLED=$3 BLOCKS=$BLOCKS timeout 600 node benches/execution/subscribers.cjs \
        "ws://${URL#http://}/eth/$KEY" "$URL/eth/$KEY" "$token" "$holder")
    after=$(memory "$SERVER_PID")
    kill "$SERVER_PID"
    echo "$out"
    echo "$before $after"
}

row() {
    node -e '
      const [json, memory, name] = process.argv.slice(1);
      const [rb, hb, ra, ha] = memory.split(" ");
      const r = JSON.parse(json);
      const s = r.stalled ? (typeof r.stalled === "string" ? "still open" : `closed ${r.stalled.code}: ${r.stalled.reason}`) : "-";
      console.log(`| ${name} | ${r.heads.count}/${r.expected} | ${r.heads.p50} / **${r.heads.p99}** / ${r.heads.max} ms | ${r.logs.p50} / **${r.logs.p99}** / ${r.logs.max} ms | ${rb} → ${ra} MiB (peak ${ha}) | ${s} |`);
    ' "$(head -n1 <<<"$1")" "$(tail -n1 <<<"$1")" "$2"
}

# In this shell, not in $(...): a subshell's exit would run the cleanup.
run one 1 0 >"$WORK/one.out"
run many "$SUBSCRIBERS" 0 >"$WORK/many.out"
run stalled "$SUBSCRIBERS" 1 >"$WORK/stalled.out"
one=$(cat "$WORK/one.out") many=$(cat "$WORK/many.out") stalled=$(cat "$WORK/stalled.out")

cat <<TABLE
$(date -u +%F), \`benches/subscribers.sh\`, $BLOCKS blocks 100 ms apart, $("$W3API" --version)

| subscribers | headers delivered | headers p50 / p99 / max | logs p50 / p99 / max | server VmRSS (VmHWM) | the socket that never reads |
|---|---|---|---|---|---|
$(row "$one" "1 (baseline)")
$(row "$many" "$SUBSCRIBERS")
$(row "$stalled" "$SUBSCRIBERS + 1 that never reads")
TABLE
