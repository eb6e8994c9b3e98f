#!/usr/bin/env bash
# Node mode's indexing speed: a local Hardhat node's chain of 2,000+ blocks
# and 100,000+ ERC20 transfers (.ci/node-mode/bench-chain.cjs) indexed from
# genesis in memory and into PostgreSQL (.ci/postgres.sh's throwaway
# cluster), each against the raw fetch of the same blocks and logs (the same
# JSON-RPC batches, answers left undecoded) timed around it in the same run;
# then `w3api serve --upstream` on that chain is compared with the node at a
# few blocks. Outside the test suite; figures go in benches/README.md.
#
#   benches/node-index.sh
set -euo pipefail

cd "$(dirname "$0")/.."
. .ci/on-exit.sh
cargo build --profile dist --quiet -p w3api-cli -p w3api-bench-node-index
on_exit '.ci/postgres.sh stop >/dev/null 2>&1'
W3API_BENCH_DATABASE=$(.ci/postgres.sh start | tail -1) \
  W3API_BIN=target/dist/w3api W3API_BENCH_BIN=target/dist/w3api-bench-node-index \
  .ci/node-mode.sh bench
