#!/usr/bin/env bash
# Load test of `w3api serve` on this machine, against a minimal axum server
# measured in the same run. Outside the test suite; figures go in
# benches/README.md.
#
#   benches/load.sh                 # 10 s per measurement
#   DURATION=30s benches/load.sh    # longer runs
#   WALLETS=1000 benches/load.sh    # more wallets in the cold runs
#   ROUNDS=9 benches/load.sh        # more cold wallet-token rounds (median checked)
#   SAMPLES=101 benches/load.sh     # more answers to choose the cold runs' baseline body from
#   W3API=/path/to/w3api benches/load.sh  # another build of w3api against the same baseline
#   PROFILE=release benches/load.sh # the release build (and baseline) instead of dist
#   SERVE_ARGS="--block-time 1s" benches/load.sh  # the cached runs' server with these options too
#
# Two kinds of runs. Cached: one URL (or one RPC body) asked again and again,
# so every answer after the first comes from the server's answer cache.
# Cold: every request picks a wallet among WALLETS and a block among all the
# chain's (wrk Lua scripts), so almost every request misses the cache and is
# computed and encoded afresh, as most of a real client's are. Each cold run
# has a server of its own, started fresh, whose answer-cache hits and misses
# (logged when it stops) and memory (VmRSS after the load, VmHWM the peak)
# are reported.
#
# The baseline (benches/baseline) sends bytes it already holds: for each
# measurement, a copy of an answer the server gave to the same kind of
# request (for the cold runs, the answer of median size among SAMPLES random
# ones), so that both sides move as many bytes through loopback and the
# ratio measures the server's own work. The fixed 10-byte answer stays as a
# second line. The same-size baseline is measured again before and after
# each cold wallet-tokens run, and each ratio is to the mean of those two;
# cold wallet tokens run ROUNDS times and the median ratio is the one
# checked.
#
# Every server binds 127.0.0.1 on a free port and is stopped on exit.
#
# Each measurement has a goal and a floor, both against the same-size
# baseline. The report says which goals are met; the script exits non-zero
# when a floor is broken (a regression from where the server stands now):
#   - start to first accepted connection (default scale): < 1 s;
#   - wallet tokens (a wallet with >= 20 tokens), cached: goal >= 80%,
#     floor 55%, p99 < 10 ms at 32 connections;
#   - wallet tokens over varied wallets and blocks (cold): goal >= 75%,
#     floor 30%;
#   - eth_getBlockByNumber with full transactions of a 150-transaction block,
#     cached: goal >= 80%, floor 20% and 5,000 requests/s;
#   - a wallet's ERC20 transfers over varied wallets and blocks (cold):
#     goal >= 50%, floor 25%, p99 < 10 ms;
#   - a wallet's history over varied wallets and blocks (cold): goal >= 50%,
#     floor 9%, p99 < 10 ms (a page of decoded transactions is some 50 KB of
#     JSON built afresh; the floor guards against regressions from there).
set -euo pipefail

cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-5}
source benches/lib.sh

need_wrk

cargo build --profile "$PROFILE" --quiet -p w3api-load-baseline
w3api_build

now_ms() { date +%s%3N; }

# Stops a server started by `start` with SIGTERM (a graceful stop, which
# logs the answer cache's counts) and prints "hits misses kept" from its log.
# Callers read it through a process substitution, a subshell that cannot
# `wait` for the server, so it waits for the log line instead.
stop() {
    kill "$2" 2>/dev/null || true
    local log="$WORK/$1.log.err"
    for _ in $(seq 1 500); do
        grep -q "answer cache" "$log" && break
        sleep 0.02
    done
    sed 's/\x1b\[[0-9;]*m//g' "$log" | awk '/answer cache/ {
        for (i = 1; i <= NF; i++) { split($i, kv, "="); counts[kv[1]] = kv[2] }
        printf "%d %d %d\n", counts["hits"], counts["misses"], counts["kept"]; found = 1 }
        END { if (!found) { print "no answer-cache line in the server log" > "/dev/stderr"; exit 1 } }'
}


# 1. Start to first accepted connection, default scale.
started=$(now_ms)
# shellcheck disable=SC2086 # SERVE_ARGS is a list of words.
start serve env RUST_LOG="${RUST_LOG:-info}" "$W3API" serve --listen 127.0.0.1:0 --api-key "$KEY" ${SERVE_ARGS:-}
until curl -sf -o /dev/null "$URL/health"; do sleep 0.005; done
startup_ms=$(($(now_ms) - started))
SERVER=$URL
SERVER_PID_CACHED=$SERVER_PID

WALLET=$("$W3API" devnet wallets --count 1)
read -r BLOCK BLOCK_TXS < <("$W3API" devnet blocks --chain eth --count 1)
TOKENS_URL="$SERVER/api/v2.2/wallets/$WALLET/tokens?chain=eth"
"$W3API" devnet wallets --count "$WALLETS" >"$WORK/wallets.txt"
LATEST=$(($(curl -sf -H 'Content-Type: application/json' \
    -d '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}' "$SERVER/eth/$KEY" |
    sed -n 's/.*"result":"\(0x[0-9a-f]*\)".*/\1/p')))

# The answers the baseline sends: each a copy of one the server gave.
tokens_answer() { curl -sf -H "X-API-Key: $KEY" "$SERVER/api/v2.2/wallets/$1/tokens?chain=eth${2:+&to_block=$2}"; }
block_answer() {
    curl -sf -H 'Content-Type: application/json' \
        -d "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"eth_getBlockByNumber\",\"params\":[\"$1\",true]}" "$SERVER/eth/$KEY"
}
tokens_answer "$WALLET" >"$WORK/tokens.json"
block_answer "$BLOCK" >"$WORK/block.json"
token_count=$(grep -o '"token_address"' "$WORK/tokens.json" | wc -l)
[ "$token_count" -gt 0 ] || { echo "wallet tokens request failed: $TOKENS_URL" >&2; exit 1; }

# wallet_sample BEFORE AFTER N: the answer to GET BEFORE{wallet}AFTER{block}
# for sample N's wallet and block, as the cold runs ask.
wallet_sample() {
    local wallet block
    wallet=$(sed -n "$((($3 * 7919) % WALLETS + 1))p" "$WORK/wallets.txt")
    block=$((($3 * 104729) % (LATEST + 1)))
    curl -sf -H "X-API-Key: $KEY" "$SERVER$1$wallet$2$block"
}
cold_block_sample() { block_answer "$(printf '0x%x' $((($1 * 104729) % (LATEST + 1))))"; }
median_answer cold-tokens wallet_sample /api/v2.2/wallets/ "/tokens?chain=eth&to_block="
median_answer cold-block cold_block_sample
median_answer cold-transfers wallet_sample /api/v2.2/ "/erc20/transfers?chain=eth&to_block="
median_answer cold-history wallet_sample /api/v2.2/wallets/ "/history?chain=eth&to_block="

start_baseline tokens block cold-tokens cold-block cold-transfers cold-history

cat >"$WORK/block.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["$BLOCK",true]}'
LUA

# Warm both servers and the answer caches before measuring.
DURATION=2s load "$BASELINE/" >/dev/null
DURATION=2s load -H "X-API-Key: $KEY" "$TOKENS_URL" >/dev/null

read -r base_rps base_p99 < <(load "$BASELINE/")
read -r base_tokens_rps base_tokens_p99 < <(load "$BASELINE/body/tokens")
read -r tokens_rps tokens_p99 < <(load -H "X-API-Key: $KEY" "$TOKENS_URL")
read -r base_block_rps base_block_p99 < <(load -s "$WORK/block.lua" "$BASELINE/body/block")
read -r block_rps block_p99 < <(load -s "$WORK/block.lua" "$SERVER/eth/$KEY")
ratio=$(percent "$tokens_rps" "$base_tokens_rps")
ratio10=$(percent "$tokens_rps" "$base_rps")
block_ratio=$(percent "$block_rps" "$base_block_rps")
read -r cached_rss cached_hwm < <(memory "$SERVER_PID_CACHED")
stop serve "$SERVER_PID_CACHED" >/dev/null

# 2. Cold runs: varied wallets and blocks, each kind on a fresh server.
# wallet_requests NAME BEFORE AFTER: a run's requests, GET BEFORE{wallet}AFTER{block}
# for a random wallet and block.
wallet_requests() {
    random_requests "$1" <<LUA
wrk.headers["X-API-Key"] = "$KEY"
function request()
    local wallet = wallets[math.random(#wallets)]
    local block = math.random(0, latest)
    return wrk.format("GET", "$2" .. wallet .. "$3" .. block)
end
LUA
}
wallet_requests tokens /api/v2.2/wallets/ "/tokens?chain=eth&to_block="
wallet_requests transfers /api/v2.2/ "/erc20/transfers?chain=eth&to_block="
wallet_requests history /api/v2.2/wallets/ "/history?chain=eth&to_block="

random_requests blocks <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
function request()
    local body = string.format(
        '{"jsonrpc":"2.0","id":%d,"method":"eth_getBlockByNumber","params":["0x%x",true]}',
        math.random(1, 1000000), math.random(0, latest))
    return wrk.format(nil, nil, nil, body)
end
LUA

# cold_round KIND PROBE: one round of the cold run KIND (its requests in
# $WORK/KIND.lua, its baseline body cold-KIND): a fresh server, ready once
# PROBE answers, and the cold run between two same-size baseline runs; the
# ratio is to their mean, so that the machine's drift over the round (other
# tenants of its host) weighs on both sides alike.
# Prints "ratio rps p99 rss hwm hits misses kept baseline ratio-to-10-bytes".
cold_round() {
    local kind=$1 probe=$2
    start "serve-cold-$kind" "$W3API" serve --listen 127.0.0.1:0 --api-key "$KEY"
    until curl -sf -o /dev/null -H "X-API-Key: $KEY" "$URL$probe"; do
        sleep 0.01
    done
    DURATION=2s load "$BASELINE/body/cold-$kind" >/dev/null
    local before after base_rps small_rps rps p99 rss hwm hits misses kept
    read -r small_rps _ < <(load "$BASELINE/")
    read -r before _ < <(load "$BASELINE/body/cold-$kind")
    read -r rps p99 < <(load -s "$WORK/$kind.lua" "$URL")
    read -r rss hwm < <(memory "$SERVER_PID")
    read -r hits misses kept < <(stop "serve-cold-$kind" "$SERVER_PID")
    read -r after _ < <(load "$BASELINE/body/cold-$kind")
    base_rps=$(((before + after) / 2))
    echo "$(percent "$rps" "$base_rps") $rps $p99 $rss $hwm $hits $misses $kept $base_rps $(percent "$rps" "$small_rps")"
}

# The machine's other load moves single runs by a quarter; the median of
# ROUNDS rounds is the figure checked.
for _ in $(seq 1 "$ROUNDS"); do
    cold_round tokens "/api/v2.2/wallets/$WALLET/tokens?chain=eth&to_block=1"
done >"$WORK/cold-rounds.txt"
read -r cold_ratio cold_tokens_rps cold_tokens_p99 cold_tokens_rss cold_tokens_hwm \
    cold_tokens_hits cold_tokens_misses cold_tokens_kept base2_rps cold_ratio10 \
    < <(sort -n "$WORK/cold-rounds.txt" | sed -n "$(((ROUNDS + 1) / 2))p")
cold_ratios=$(cut -d' ' -f1 "$WORK/cold-rounds.txt" | paste -sd' ')

# The chain has few enough blocks for the cache to hold them all within
# seconds; without it, every answer is built and encoded.
start serve-cold-blocks "$W3API" serve --listen 127.0.0.1:0 --api-key "$KEY" --answer-cache-size 0
until curl -sf -o /dev/null -H 'Content-Type: application/json' \
    -d '{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["0x1",true]}' "$URL/eth/$KEY"; do
    sleep 0.01
done
read -r base_cold_block_rps _ < <(load -s "$WORK/block.lua" "$BASELINE/body/cold-block")
read -r cold_blocks_rps cold_blocks_p99 < <(load -s "$WORK/blocks.lua" "$URL/eth/$KEY")
read -r cold_blocks_rss cold_blocks_hwm < <(memory "$SERVER_PID")
stop serve-cold-blocks "$SERVER_PID" >/dev/null

# Wallet token transfers: one round. Rounds run in the script's own shell
# (a subshell would run the script's exit cleanup when it ends).
cold_round transfers "/api/v2.2/$WALLET/erc20/transfers?chain=eth&to_block=1" >"$WORK/transfers-round.txt"
read -r transfers_ratio cold_transfers_rps cold_transfers_p99 cold_transfers_rss cold_transfers_hwm \
    transfers_hits transfers_misses _ base_transfers_rps _ <"$WORK/transfers-round.txt"

# Wallet history: one round.
cold_round history "/api/v2.2/wallets/$WALLET/history?chain=eth&to_block=1" >"$WORK/history-round.txt"
read -r history_ratio cold_history_rps cold_history_p99 cold_history_rss cold_history_hwm \
    history_hits history_misses _ base_history_rps _ <"$WORK/history-round.txt"

hit_rate() { percent "$1" $(($1 + $2)); }
at_least() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }
# Whether a ratio meets its goal.
goal() { if at_least "$1" "$2"; then echo "goal >= $2%: met"; else echo "goal >= $2%: not yet"; fi; }
cat <<REPORT
w3api load test: wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency, $(nproc) cores, RUST_LOG=${RUST_LOG:-info}, $(date -u +%F)
  startup to first accepted connection      ${startup_ms} ms            (floor < 1000 ms)
  baseline: axum, fixed 10-byte body        ${base_rps} req/s   p99 ${base_p99} ms
cached (one URL or body, answered from the answer cache):
  baseline: axum, the same $(bytes tokens) bytes       ${base_tokens_rps} req/s   p99 ${base_tokens_p99} ms
  GET /api/v2.2/wallets/{address}/tokens ($token_count tokens, $(bytes tokens) bytes)  ${tokens_rps} req/s   p99 ${tokens_p99} ms   ${ratio}% of the same-size baseline ($(goal "$ratio" 80), floor 55%, p99 < 10 ms); ${ratio10}% of the 10-byte one
  baseline: axum, the same $(bytes block) bytes      ${base_block_rps} req/s   p99 ${base_block_p99} ms
  eth_getBlockByNumber($BLOCK, full; $BLOCK_TXS txs, $(bytes block) bytes)  ${block_rps} req/s   p99 ${block_p99} ms   ${block_ratio}% of the same-size baseline ($(goal "$block_ratio" 80), floor 20% and 5000 req/s)
  server memory after these runs: VmRSS ${cached_rss} MiB, VmHWM ${cached_hwm} MiB
cold ($WALLETS wallets x blocks 0..$LATEST, a fresh server per run):
  wallet tokens, $ROUNDS rounds of (baseline, cold run, baseline), each on a fresh server: ${cold_ratios}% of the same-size baseline
  median round:
  baseline: axum, the same $(bytes cold-tokens) bytes (median of $SAMPLES answers)  ${base2_rps} req/s (mean of the runs before and after)
  GET /api/v2.2/wallets/{address}/tokens?to_block=N  ${cold_tokens_rps} req/s   p99 ${cold_tokens_p99} ms   ${cold_ratio}% of the same-size baseline ($(goal "$cold_ratio" 75), floor 30%); ${cold_ratio10}% of the 10-byte one
      answer cache: $(hit_rate "$cold_tokens_hits" "$cold_tokens_misses")% hits ($cold_tokens_hits of $((cold_tokens_hits + cold_tokens_misses))), $cold_tokens_kept answers kept; VmRSS ${cold_tokens_rss} MiB, VmHWM ${cold_tokens_hwm} MiB
  baseline: axum, the same $(bytes cold-block) bytes (median of $SAMPLES answers)  ${base_cold_block_rps} req/s
  eth_getBlockByNumber(random block, full), --answer-cache-size 0  ${cold_blocks_rps} req/s   p99 ${cold_blocks_p99} ms   $(percent "$cold_blocks_rps" "$base_cold_block_rps")% of the same-size baseline
      VmRSS ${cold_blocks_rss} MiB, VmHWM ${cold_blocks_hwm} MiB
  baseline: axum, the same $(bytes cold-transfers) bytes (median of $SAMPLES answers)  ${base_transfers_rps} req/s (mean of the runs before and after)
  GET /api/v2.2/{address}/erc20/transfers?to_block=N  ${cold_transfers_rps} req/s   p99 ${cold_transfers_p99} ms   ${transfers_ratio}% of the same-size baseline ($(goal "$transfers_ratio" 50), floor 25%, p99 < 10 ms)
      answer cache: $(hit_rate "$transfers_hits" "$transfers_misses")% hits; VmRSS ${cold_transfers_rss} MiB, VmHWM ${cold_transfers_hwm} MiB
  baseline: axum, the same $(bytes cold-history) bytes (median of $SAMPLES answers)  ${base_history_rps} req/s (mean of the runs before and after)
  GET /api/v2.2/wallets/{address}/history?to_block=N  ${cold_history_rps} req/s   p99 ${cold_history_p99} ms   ${history_ratio}% of the same-size baseline ($(goal "$history_ratio" 50), floor 9%, p99 < 10 ms)
      answer cache: $(hit_rate "$history_hits" "$history_misses")% hits; VmRSS ${cold_history_rss} MiB, VmHWM ${cold_history_hwm} MiB
REPORT

failed=0
miss() { echo "BELOW THE FLOOR: $*" >&2; failed=1; }
[ "$startup_ms" -lt 1000 ] || miss "startup ${startup_ms} ms"
[ "$token_count" -ge 20 ] || miss "wallet holds only $token_count tokens"
[ "$BLOCK_TXS" -ge 150 ] || miss "busiest block has only $BLOCK_TXS transactions"
at_least "$ratio" 55 || miss "cached wallet tokens at ${ratio}% of the same-size baseline"
awk -v p="$tokens_p99" 'BEGIN { exit !(p < 10) }' || miss "wallet tokens p99 ${tokens_p99} ms"
at_least "$cold_ratio" 30 || miss "cold wallet tokens at ${cold_ratio}% of the same-size baseline"
at_least "$block_ratio" 20 || miss "cached full block at ${block_ratio}% of the same-size baseline"
at_least "$block_rps" 5000 || miss "full block ${block_rps} req/s"
at_least "$transfers_ratio" 25 || miss "cold wallet token transfers at ${transfers_ratio}% of the same-size baseline"
awk -v p="$cold_transfers_p99" 'BEGIN { exit !(p < 10) }' || miss "cold wallet token transfers p99 ${cold_transfers_p99} ms"
at_least "$history_ratio" 9 || miss "cold wallet history at ${history_ratio}% of the same-size baseline"
awk -v p="$cold_history_p99" 'BEGIN { exit !(p < 10) }' || miss "cold wallet history p99 ${cold_history_p99} ms"
exit "$failed"
