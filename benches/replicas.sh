#!/usr/bin/env bash
# Read your writes across replicas: two `w3api serve` on one PostgreSQL
# database (a throwaway cluster, .ci/postgres.sh), an OpenZeppelin ERC20
# deployed through A, then COUNT transfers signed here and sent to A, each
# followed by B's wallet tokens until they show it (benches/execution/
# read-your-writes.cjs). The same run measures the same loop on A alone
# (written and read on one replica) and each loop's baseline (eth_chainId,
# then an empty wallet's tokens, on the replica read). Target: p99 < 50 ms
# across replicas.
#
#   benches/replicas.sh              # builds the dist profile first
#   W3API=target/release/w3api COUNT=100 benches/replicas.sh
#
# Every server binds 127.0.0.1 on a free port and stops when the script exits.
set -euo pipefail

cd "$(dirname "$0")/.."
COUNT=${COUNT:-300}
source benches/lib.sh

w3api_build
node_packages

DATABASE=$(.ci/postgres.sh start)
on_exit '.ci/postgres.sh stop'

start replica-a "$W3API" serve --listen 127.0.0.1:0 --api-key "$KEY" --database "$DATABASE"
A=$URL
start replica-b "$W3API" serve --listen 127.0.0.1:0 --api-key "$KEY" --database "$DATABASE"
B=$URL
wait_for_chain "$A/eth/$KEY"
wait_for_chain "$B/eth/$KEY"
read -r token _ < <(node benches/execution/deploy.cjs "$A/eth/$KEY")

read -r one_p50 one_p99 one_max one_base_p50 one_base_p99 < \
    <(node benches/execution/read-your-writes.cjs "$A" "$KEY" "$token" "$COUNT")
read -r two_p50 two_p99 two_max two_base_p50 two_base_p99 < \
    <(node benches/execution/read-your-writes.cjs "$A" "$KEY" "$token" "$COUNT" "$B")

cat <<TABLE
$(date -u +%F), \`benches/replicas.sh\`, $COUNT transfers each, $("$W3API" --version)

| written on A, read on | p50 | p99 | max | baseline p50 | baseline p99 |
|---|---|---|---|---|---|
| A (one replica) | $one_p50 ms | $one_p99 ms | $one_max ms | $one_base_p50 ms | $one_base_p99 ms |
| B (the other replica) | $two_p50 ms | **$two_p99 ms** (target < 50 ms) | $two_max ms | $two_base_p50 ms | $two_base_p99 ms |
TABLE
awk -v a="$two_p99" 'BEGIN { exit !(a < 50) }' || { echo "cross-replica read-your-writes p99 over 50 ms" >&2; exit 1; }
