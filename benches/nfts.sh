#!/usr/bin/env bash
# Load of wallet NFT listings, whose indexing status is read from the store,
# on each kind of store: in memory (the default), in a data directory, and on
# PostgreSQL when W3API_TEST_DATABASE_URL names one. Outside the test suite.
#
#   benches/nfts.sh                        # 10 s per store
#   DURATION=30s benches/nfts.sh
#   W3API=/path/to/w3api benches/nfts.sh   # another build, for a comparison
#
# Every request picks one of WALLETS sample wallets and asks for its first
# 10 NFTs on eth, unfiltered: each answer holding NFTs asks the store when
# their collections started indexing. The baseline (benches/baseline) sends
# a copy of the answer of median size among SAMPLES such answers, measured
# before each store's run, and each ratio is to it. Every server binds
# 127.0.0.1 on a free port and is stopped on exit; any non-2xx answer fails
# the run.
set -euo pipefail

cd "$(dirname "$0")/.."
source benches/lib.sh

need_wrk
cargo build --profile dist --quiet -p w3api-cli -p w3api-load-baseline
W3API=${W3API:-target/dist/w3api}

"$W3API" devnet wallets --count "$WALLETS" >"$WORK/wallets.txt"
random_requests nfts <<LUA
wrk.headers["X-API-Key"] = "$KEY"
function request()
    local wallet = wallets[math.random(#wallets)]
    return wrk.format("GET", "/api/v2.2/" .. wallet .. "/nft?chain=eth&limit=10")
end
-- The first answer that is not a 200, in full, for the failure message.
function response(status, headers, body)
    if status ~= 200 and not shown then
        shown = true
        io.stderr:write(status .. " " .. body .. "\n")
    end
end
LUA

# The baseline's body: a copy of a listing of the median size.
start serve-samples "$W3API" serve --listen 127.0.0.1:0 --api-key "$KEY"
nfts_sample() {
    curl -sf -H "X-API-Key: $KEY" \
        "$URL/api/v2.2/$(sed -n "$((($1 * 7919) % WALLETS + 1))p" "$WORK/wallets.txt")/nft?chain=eth&limit=10"
}
median_answer nfts nfts_sample
kill "$SERVER_PID"
start_baseline nfts

# Loads a fresh server started with the given store flags and prints a
# row of the table, after the baseline. The server starts in this shell, so
# cleanup knows it.
measure() {
    start "$1" "$W3API" serve --listen 127.0.0.1:0 --api-key "$KEY" "${@:2}"
    until curl -sf -o /dev/null "$URL/health"; do sleep 0.01; done
    DURATION=2s load -s "$WORK/nfts.lua" "$URL" >/dev/null
    read -r base_rps _ < <(load "$BASELINE/body/nfts")
    read -r rps p99 < <(load -s "$WORK/nfts.lua" "$URL")
    kill "$SERVER_PID"
    printf "%-12s %12s %9s %20s %8s%%\n" "$1" "$rps" "$p99" "$base_rps" "$(percent "$rps" "$base_rps")"
}

echo "wallet NFT listings, wrk -t$THREADS -c$CONNECTIONS -d$DURATION, $(nproc) cores, $(date -u +%F);" \
    "baseline: axum sending the same $(bytes nfts) bytes (median of $SAMPLES answers)"
printf "%-12s %12s %9s %20s %9s\n" store "requests/s" "p99 ms" "baseline requests/s" "ratio"
measure memory
measure directory --data-dir "$WORK/data"
if [ -n "${W3API_TEST_DATABASE_URL:-}" ]; then
    measure postgres --database "$W3API_TEST_DATABASE_URL"
else
    echo "postgres: skipped (W3API_TEST_DATABASE_URL is not set; .ci/postgres.sh start prints one)"
fi
