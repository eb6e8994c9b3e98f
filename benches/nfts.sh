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
# their collections started indexing. Every server binds 127.0.0.1 on a
# free port and is stopped on exit; any non-2xx answer fails the run.
set -euo pipefail

cd "$(dirname "$0")/.."
source benches/lib.sh

need_wrk
if [ -z "${W3API:-}" ]; then
    cargo build --release --quiet -p w3api-cli
    W3API=target/release/w3api
fi

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

# Loads a fresh server started with the given store flags and prints a
# row of the table. The server starts in this shell, so cleanup knows it.
measure() {
    start "$1" "$W3API" serve --listen 127.0.0.1:0 --api-key "$KEY" "${@:2}"
    until curl -sf -o /dev/null "$URL/health"; do sleep 0.01; done
    DURATION=2s load -s "$WORK/nfts.lua" "$URL" >/dev/null
    read -r rps p99 < <(load -s "$WORK/nfts.lua" "$URL")
    kill "$SERVER_PID"
    printf "%-12s %12s %9s\n" "$1" "$rps" "$p99"
}

printf "%-12s %12s %9s\n" store "requests/s" "p99 ms"
measure memory
measure directory --data-dir "$WORK/data"
if [ -n "${W3API_TEST_DATABASE_URL:-}" ]; then
    measure postgres --database "$W3API_TEST_DATABASE_URL"
else
    echo "postgres: skipped (W3API_TEST_DATABASE_URL is not set; .ci/postgres.sh start prints one)"
fi
