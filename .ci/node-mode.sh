#!/usr/bin/env bash
# Node mode against an independent node: a Hardhat 2 node (Hardhat Network,
# chain id 31337, automine) on loopback, contracts deployed from published
# build artifacts and driven by .ci/node-mode/deploy.cjs, and
# `w3api serve --upstream` compared with the node's own answers by
# .ci/node-mode/check.cjs, before and after chain reorganisations.
#
#   .ci/node-mode.sh [check]      the check (needs w3api node mode):
#       deploy and drive the chain; start w3api on it; compare; then
#       stream deliveries for its blocks (streams.cjs: each transfer's block
#       delivered unconfirmed and confirmed, signed, as the node has it);
#       reorganisations: snapshot, branch A (20 blocks), compare; revert,
#       branch B (25 blocks, longer), compare, nothing of A shows; snapshot,
#       branch C (20 blocks), compare; revert, branch D (8 blocks, shorter
#       than C), compare, nothing of A or C shows; then w3api restarted on
#       its data directory (the index read back from its journal), compared
#       again.
#   .ci/node-mode.sh self-test    the same chain and reorganisations, without
#       w3api: check.cjs --self-test computes the expected answers from the
#       node at each step and checks that they hang together.
#   .ci/node-mode.sh bench-chain  a fresh node, and bench-chain.cjs builds a
#       chain of 2,000+ blocks and 100,000+ ERC20 transfers on it.
#   .ci/node-mode.sh bench        bench-chain, then benches/node-index times
#       the raw fetch of the chain and its indexing (in memory, and into the
#       PostgreSQL W3API_BENCH_DATABASE names, if any), and w3api serve
#       indexing it is compared with the node at a few blocks
#       (benches/node-index.sh runs this on a dist build).
#
# W3API_BIN: the w3api binary (default target/release/w3api, built here).
# npm packages (pinned in .ci/node-mode/package.json + lock) install under
# target/ci/node-mode/; logs and the deployment files go there too.
# Exits non-zero when any check fails; the last line is `N passed, N failed`.
set -euo pipefail

cd "$(dirname "$0")/.."
root=$PWD
work=$root/target/ci/node-mode
src=$root/.ci/node-mode
mode=${1:-check}
case "$mode" in
  check | self-test | bench-chain | bench) ;;
  *) echo "usage: $0 [check|self-test|bench-chain|bench]" >&2; exit 2 ;;
esac
mkdir -p "$work"
started=$(date +%s)

echo "--- install: npm (hardhat 2, ethers 6, contract artifacts, solc) into target/ci/node-mode"
. "$root/.ci/npm.sh"
npm_install "$src" "$work"
# Hardhat runs from the project its config is in: the config goes next to
# node_modules.
cp "$src/hardhat.config.cjs" "$work/"
export NODE_PATH=$work/node_modules
export HARDHAT_DISABLE_TELEMETRY_PROMPT=true

# Everything started here stops when the script exits, however it exits.
. "$root/.ci/on-exit.sh"

# start_node NAME: a Hardhat node on 127.0.0.1, on a port the system picks;
# sets NODE_URL. The node stops by itself after an hour at most.
start_node() {
  local name=$1 out=$work/$1.out
  (cd "$work" && exec timeout 3600 node_modules/.bin/hardhat --config hardhat.config.cjs node --hostname 127.0.0.1 --port 0) \
    >"$out" 2>"$work/$name.err" &
  local pid=$!
  stop_on_exit "$pid"
  NODE_URL=
  for _ in $(seq 1 600); do
    NODE_URL=$(sed -e 's/\x1b\[[0-9;]*m//g' -n -e 's|^Started HTTP and WebSocket JSON-RPC server at \(http://[^ ]*\)/$|\1|p' "$out")
    [ -n "$NODE_URL" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if [ -z "$NODE_URL" ]; then
    echo "the Hardhat node did not start:" >&2
    cat "$work/$name.err" "$out" >&2
    return 1
  fi
  case "$NODE_URL" in
    http://127.0.0.1:*) ;;
    *) echo "the node listens on $NODE_URL, not loopback" >&2; return 1 ;;
  esac
  echo "--- $name: Hardhat node at $NODE_URL ($(rpc web3_clientVersion), chain id $(($(rpc eth_chainId))))"
}

# rpc METHOD [PARAMS-JSON]: one JSON-RPC call to the node; prints the result.
rpc() {
  timeout 60 node -e '
    const { Rpc } = require(process.argv[1]);
    new Rpc(process.argv[2]).call(process.argv[3], JSON.parse(process.argv[4] || "[]"))
      .then((r) => console.log(typeof r === "string" ? r : JSON.stringify(r)))
      .catch((e) => { console.error(e.message); process.exit(1); });' "$src/lib.cjs" "$NODE_URL" "$@"
}

head_block() { echo $(($(rpc eth_blockNumber))); }

# deployment FILE ROLE: the address of the first contract of ROLE in FILE.
deployed() {
  node -e 'const d = require(process.argv[1]); console.log(d.contracts.find((c) => c.role === process.argv[2]).address)' "$1" "$2"
}

RUN_TIMEOUT=900
. "$root/.ci/tally.sh"

# step NAME COMMAND...: a step that must work for the rest to mean anything.
step() {
  local name=$1
  shift
  echo "--- $name"
  if ! timeout 900 "$@" 2>&1 | tee "$work/$name.log"; then
    echo "$name failed: see ${work#"$root"/}/$name.log" >&2
    exit 1
  fi
}

finish() {
  echo "--- node-mode ($mode): $(($(date +%s) - started)) s; logs in ${work#"$root"/}/"
  [ ${#broken[@]} -eq 0 ] || echo "failing: ${broken[*]}"
  echo "node-mode: $passed passed, $failed failed"
  [ ${#broken[@]} -eq 0 ]
}

start_server() {
  if [ -z "${W3API_BIN:-}" ]; then
    cargo build --release --quiet -p w3api-cli
    W3API_BIN=target/release/w3api
  fi
  W3API_BIN=$(cd "$(dirname "$W3API_BIN")" && pwd)/$(basename "$W3API_BIN")
  export W3API_BIN
  # shellcheck source=.ci/serve.sh
  . "$root/.ci/serve.sh"
  start_w3api "$work" "$@"
  echo "--- w3api serve at $W3API_URL ($W3API_BIN $*)"
}

key=node-mode-key

if [ "$mode" = bench-chain ] || [ "$mode" = bench ]; then
  start_node bench-node
  step bench-chain node "$src/bench-chain.cjs" --rpc "$NODE_URL" --out "$work/bench.json"
  # bench-chain.cjs counted the chain's transfers with eth_getLogs: one check.
  passed=$((passed + 1))
  if [ "$mode" = bench ]; then
    # Raw fetch, then indexing in memory and into PostgreSQL (when
    # W3API_BENCH_DATABASE names one), alternating: benches/node-index.
    transfers=$(node -p 'require(process.argv[1]).transfers' "$work/bench.json")
    bench_args=(--node "$NODE_URL" --logs "$transfers")
    [ -n "${W3API_BENCH_DATABASE:-}" ] && bench_args+=(--database "$W3API_BENCH_DATABASE")
    step bench-index "${W3API_BENCH_BIN:-$root/target/release/w3api-bench-node-index}" "${bench_args[@]}"
    # And the server indexing the same chain answers as the node does.
    weth=$(deployed "$work/bench.json" wrapped)
    usd=$(deployed "$work/bench.json" stable)
    start_server --api-key "$key" --upstream "eth=$NODE_URL" --wrapped "eth=$weth" --stablecoin "eth=$usd"
    run bench-check node "$src/check.cjs" --rpc "$NODE_URL" --api "$W3API_URL" --key "$key" \
      --deployment "$work/bench.json" --wait 1800 --blocks latest,-1,-500,-1500 --limit 100
  fi
  finish
  exit $?
fi

# --------------------------------------------------------------- the check

start_node node
step deploy node "$src/deploy.cjs" --rpc "$NODE_URL" --out "$work/deployment.json"
weth=$(deployed "$work/deployment.json" wrapped)
usd=$(deployed "$work/deployment.json" stable)

if [ "$mode" = check ]; then
  # A data directory of its own: the index is journaled there as it goes,
  # through every reorganisation, and read back by a restart at the end.
  rm -rf "$work/state"
  server_args=(--api-key "$key" --upstream "eth=$NODE_URL" --wrapped "eth=$weth" --stablecoin "eth=$usd"
    --webhook-host 127.0.0.1 --confirmations 2 --data-dir "$work/state")
  start_server "${server_args[@]}"
  # check NAME DEPLOYMENT [ARGS...]: w3api against the node.
  check() {
    local name=$1 deployment=$2
    shift 2
    run "$name" node "$src/check.cjs" --rpc "$NODE_URL" --api "$W3API_URL" --key "$key" --deployment "$deployment" "$@"
  }
else
  check() {
    local name=$1 deployment=$2
    shift 2
    run "$name" node "$src/check.cjs" --rpc "$NODE_URL" --deployment "$deployment" --self-test "$@"
  }
fi

check check-main "$work/deployment.json"

# Stream deliveries of the upstream blocks: a receiver here gets each new
# block with ERC20 transfers, unconfirmed then confirmed (2 blocks deep).
if [ "$mode" = check ]; then
  run streams node "$src/streams.cjs" --rpc "$NODE_URL" --api "$W3API_URL" --key "$key" \
    --deployment "$work/deployment.json" --dump "$work/streams-deliveries.json"
fi

# Reorganisations. evm_snapshot/evm_revert put the node back to a block;
# the next branch mines other blocks at the same heights.
base=$(head_block)
snapshot=$(rpc evm_snapshot)
# Puts the node back to a snapshot taken at block $2, and checks it did.
revert_to() {
  [ "$(rpc evm_revert "[\"$1\"]")" = true ] || { echo "evm_revert refused" >&2; exit 1; }
  [ "$(head_block)" -eq "$2" ] || { echo "after evm_revert the head is $(head_block), not $2" >&2; exit 1; }
}

step branch-a node "$src/deploy.cjs" --rpc "$NODE_URL" --deployment "$work/deployment.json" \
  --branch A --blocks 20 --out "$work/branch-a.json"
check check-branch-a "$work/branch-a.json" --blocks latest,-1,-5,-10,-19,-20,-21,-40

echo "--- revert to block $base, then branch B, longer than A"
revert_to "$snapshot" "$base"
step branch-b node "$src/deploy.cjs" --rpc "$NODE_URL" --deployment "$work/deployment.json" \
  --branch B --blocks 25 --out "$work/branch-b.json"
check check-branch-b "$work/branch-b.json" --absent "$work/branch-a.json" \
  --blocks latest,-1,-5,-10,-20,-24,-25,-26,-40

base=$(head_block)
snapshot=$(rpc evm_snapshot)
step branch-c node "$src/deploy.cjs" --rpc "$NODE_URL" --deployment "$work/branch-b.json" \
  --branch C --blocks 20 --out "$work/branch-c.json"
check check-branch-c "$work/branch-c.json" --absent "$work/branch-a.json" --blocks latest,-1,-10,-19,-20,-21

echo "--- revert to block $base, then branch D, shorter than C"
revert_to "$snapshot" "$base"
step branch-d node "$src/deploy.cjs" --rpc "$NODE_URL" --deployment "$work/branch-b.json" \
  --branch D --blocks 8 --out "$work/branch-d.json"
check check-branch-d "$work/branch-d.json" --absent "$work/branch-a.json,$work/branch-c.json" \
  --blocks latest,-1,-4,-7,-8,-9,-20,-30

if [ "$mode" = check ] && ! kill -0 "$W3API_PID" 2>/dev/null; then
  echo "w3api serve exited during the checks:" >&2
  tail -n 20 "$work/serve.err" >&2
  broken+=("server") failed=$((failed + 1))
fi

if [ "$mode" = check ]; then
  echo "--- restart w3api on its data directory: the index comes back from the journal, branch D's"
  kill "$W3API_PID" && wait "$W3API_PID" 2>/dev/null || true
  start_server "${server_args[@]}"
  check check-restart "$work/branch-d.json" --absent "$work/branch-a.json,$work/branch-c.json" \
    --blocks latest,-1,-8,-9,-30
  if grep -q "index read from the store's journal" "$work/serve.err"; then
    passed=$((passed + 1))
  else
    echo "FAIL the restarted server did not read its index from the journal" >&2
    broken+=("restart") failed=$((failed + 1))
  fi
fi
finish
