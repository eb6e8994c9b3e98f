#!/usr/bin/env bash
# Node mode against independent nodes: Hardhat 2 (Hardhat Network, chain id
# 31337), Ganache 7 (chain id 1337) and Anvil 1.7 (foundry's, on revm; chain
# id 31337), each on loopback with automine, contracts deployed from
# published build artifacts and driven by .ci/node-mode/deploy.cjs, and
# `w3api serve --upstream` compared with the node's own answers by
# .ci/node-mode/check.cjs, before and after chain reorganisations. The nodes
# differ where node mode must probe and fall back: Ganache takes no EIP-1898
# block objects, neither it nor Hardhat has eth_getBlockReceipts, and only
# Anvil traces calls (debug_traceBlockByNumber with callTracer), so only on
# Anvil are internal transactions read and required. W3API_NODES picks the
# nodes (default "hardhat ganache anvil"); Ganache and Anvil drive a shorter
# chain (GANACHE_STEPS, ANVIL_STEPS; Anvil's still has WETH withdrawals, the
# ether moved inside transactions that its check requires).
#
#   .ci/node-mode.sh [check]      the check (needs w3api node mode), on each node:
#       deploy and drive the chain; start w3api on it; compare; then
#       stream deliveries for its blocks (streams.cjs: each transfer's block
#       delivered unconfirmed and confirmed, signed, as the node has it);
#       reorganisations: snapshot, branch A (20 blocks), compare; revert,
#       branch B (25 blocks, longer), compare, nothing of A shows; snapshot,
#       branch C (20 blocks), compare; revert, branch D (8 blocks, shorter
#       than C), compare, nothing of A or C shows, and a WebSocket
#       subscriber that heard the four branches (subscriptions.cjs:
#       newHeads and every log) has the node's chain and eth_getLogs, the
#       dropped logs announced removed; then w3api restarted on
#       its data directory (the index read back from its journal), compared
#       again. Besides: a second server that polls every ten minutes shows a
#       transfer's receipt and its effects at once (read-your-writes.cjs), and
#       a third indexes through a proxy answering every other request with
#       HTTP 429 (throttle-proxy.cjs) and is compared too; and a dApp uses
#       the gateway as its only RPC URL (dapp.cjs: ethers deploys an ERC20,
#       calls, estimates, sends, reads receipts and events, a revert's error
#       as the node gives it, code, storage and filters); on Anvil, which
#       traces calls, internal.cjs compares each transaction's internal
#       transactions with the node's callTracer, and the ots_ methods with
#       the node's own. Before the nodes, differential.cjs traces the same
#       transactions on the devnet and on a fresh Anvil and compares them.
#   .ci/node-mode.sh sdks         the official Moralis SDKs (JS and Python,
#       the checks of .ci/clients, which .ci/clients.sh runs on the devnet)
#       call every Data API operation of w3api in node mode on a fresh
#       chain of each node in W3API_NODES (HARDHAT_STEPS long on both), each
#       answer compared with the raw REST answer (.ci/clients.sh runs this
#       mode after its devnet checks).
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
# W3API_INDEX=postgres runs the check with each chain's index in PostgreSQL
# tables (--index postgres) rather than in memory: each node's server on a
# database of its own, on the cluster of W3API_TEST_DATABASE_URL (or one
# .ci/postgres.sh starts); the restart is then a replica that replays
# nothing, and a second replica started beside the first answers at the
# head at once.
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
  check | sdks | self-test | bench-chain | bench) ;;
  *) echo "usage: $0 [check|sdks|self-test|bench-chain|bench]" >&2; exit 2 ;;
esac
mkdir -p "$work"
started=$(date +%s)

echo "--- install: npm (hardhat 2, ganache 7, anvil 1.7, ethers 6, contract artifacts, solc) into target/ci/node-mode"
. "$root/.ci/npm.sh"
npm_install "$src" "$work"
# Hardhat runs from the project its config is in: the config goes next to
# node_modules.
cp "$src/hardhat.config.cjs" "$work/"
export NODE_PATH=$work/node_modules
export HARDHAT_DISABLE_TELEMETRY_PROMPT=true

# Everything started here stops when the script exits, however it exits.
. "$root/.ci/on-exit.sh"
# The official SDKs' checks come from .ci/clients.
. "$root/.ci/clients-install.sh"

# start_node KIND NAME [ANVIL-OPTIONS...]: a node of KIND (hardhat, ganache
# or anvil) on 127.0.0.1, on a port the system picks; sets NODE_URL and
# NODE_PID. The node stops when the script exits, or after an hour at most.
start_node() {
  local kind=$1 name=$2 out=$work/$2.out pattern
  shift 2
  case "$kind" in
    hardhat)
      (cd "$work" && exec timeout 3600 node_modules/.bin/hardhat --config hardhat.config.cjs node --hostname 127.0.0.1 --port 0) \
        >"$out" 2>"$work/$name.err" &
      pattern='s|^Started HTTP and WebSocket JSON-RPC server at \(http://[^ ]*\)/$|\1|p' ;;
    ganache)
      timeout 3600 node "$src/ganache.cjs" >"$out" 2>"$work/$name.err" &
      pattern='s|^Listening on \(http://[^ ]*\)$|\1|p' ;;
    anvil)
      # The npm package's binary, run as it is (no install script fetched it),
      # with as many unlocked accounts as Hardhat has.
      timeout 3600 "$work/node_modules/.bin/anvil" --host 127.0.0.1 --port 0 --accounts 20 "$@" >"$out" 2>"$work/$name.err" &
      pattern='s|^Listening on \(127\.0\.0\.1:[0-9]*\)$|http://\1|p' ;;
    *) echo "unknown node kind $kind (hardhat, ganache or anvil)" >&2; return 1 ;;
  esac
  NODE_PID=$!
  stop_on_exit "$NODE_PID"
  NODE_URL=$(listening_url "$out" "$NODE_PID" "$pattern") || {
    echo "the $kind node did not start:" >&2
    cat "$work/$name.err" "$out" >&2
    return 1
  }
  echo "--- $name: $kind node at $NODE_URL ($(rpc web3_clientVersion), chain id $(($(rpc eth_chainId))))"
}

# listening_url OUT PID SED-SCRIPT: the URL that process PID prints to OUT
# once it listens (SED-SCRIPT picks it from a line); fails when the process
# ends first, after a minute, or when the URL is not on loopback.
listening_url() {
  local out=$1 pid=$2 pattern=$3 url=
  for _ in $(seq 1 600); do
    url=$(sed -e 's/\x1b\[[0-9;]*m//g' -n -e "$pattern" "$out")
    [ -n "$url" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  case "$url" in
    http://127.0.0.1:*) echo "$url" ;;
    "") return 1 ;;
    *) echo "$url is not on loopback" >&2; return 1 ;;
  esac
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

index=${W3API_INDEX:-memory}
case "$index" in
  memory) ;;
  postgres)
    pg_cluster=${W3API_TEST_DATABASE_URL:-}
    if [ -z "$pg_cluster" ]; then
      pg_cluster=$(bash "$root/.ci/postgres.sh" start)
      on_exit "bash '$root/.ci/postgres.sh' stop"
    fi ;;
  *) echo "W3API_INDEX is memory or postgres, not $index" >&2; exit 2 ;;
esac

# fresh_database NAME: a new database on the cluster; prints its URL.
fresh_database() {
  local name="w3api_node_${1//[^a-z0-9]/_}_$$"
  psql "$pg_cluster" -qAt -c "DROP DATABASE IF EXISTS $name" -c "CREATE DATABASE $name" >/dev/null
  echo "${pg_cluster%/*}/$name"
}

# index_flags NAME: sets INDEX_FLAGS to where a server keeps its index:
# nothing to add in memory; --index postgres on a fresh database NAME with
# W3API_INDEX=postgres.
index_flags() {
  INDEX_FLAGS=()
  if [ "$index" = postgres ]; then
    INDEX_DATABASE=$(fresh_database "$1")
    INDEX_FLAGS=(--index postgres --database "$INDEX_DATABASE")
  fi
}

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

# start_server DIR ARGS...: w3api serve with ARGS, its output in DIR.
start_server() {
  local dir=$1
  shift
  if [ -z "${W3API_BIN:-}" ]; then
    cargo build --release --quiet -p w3api-cli
    W3API_BIN=target/release/w3api
  fi
  W3API_BIN=$(cd "$(dirname "$W3API_BIN")" && pwd)/$(basename "$W3API_BIN")
  export W3API_BIN
  # shellcheck source=.ci/serve.sh
  . "$root/.ci/serve.sh"
  start_w3api "$dir" "$@"
  echo "--- w3api serve at $W3API_URL ($W3API_BIN $*)"
}

key=node-mode-key

if [ "$mode" = bench-chain ] || [ "$mode" = bench ]; then
  start_node hardhat bench-node
  step bench-chain node "$src/bench-chain.cjs" --rpc "$NODE_URL" --out "$work/bench.json"
  # bench-chain.cjs counted the chain's transfers with eth_getLogs: one check.
  passed=$((passed + 1))
  if [ "$mode" = bench ]; then
    # Raw fetch, then indexing in memory, in memory with the journal in
    # PostgreSQL, and into PostgreSQL tables (these two when
    # W3API_BENCH_DATABASE names a database), alternating: benches/node-index.
    transfers=$(node -p 'require(process.argv[1]).transfers' "$work/bench.json")
    bench_args=(--node "$NODE_URL" --logs "$transfers")
    [ -n "${W3API_BENCH_DATABASE:-}" ] && bench_args+=(--database "$W3API_BENCH_DATABASE")
    step bench-index "${W3API_BENCH_BIN:-$root/target/release/w3api-bench-node-index}" "${bench_args[@]}"
    # And the server indexing the same chain answers as the node does.
    weth=$(deployed "$work/bench.json" wrapped)
    usd=$(deployed "$work/bench.json" stable)
    index_flags bench
    start_server "$work" --api-key "$key" --upstream "eth=$NODE_URL" --wrapped "eth=$weth" --stablecoin "eth=$usd" \
      "${INDEX_FLAGS[@]}"
    run bench-check node "$src/check.cjs" --rpc "$NODE_URL" --api "$W3API_URL" --key "$key" \
      --deployment "$work/bench.json" --wait 1800 --blocks latest,-1,-500,-1500 --limit 100
  fi
  finish
  exit $?
fi

# --------------------------------------------------------------- the check

# fresh_chain KIND NAME DIR STEPS: a fresh node of KIND, its contracts
# deployed and its chain driven by STEPS random actions (DIR/deployment.json;
# logs under NAME/); sets weth and usd to the wrapped token and stablecoin.
fresh_chain() {
  local kind=$1 name=$2 dir=$3 steps=$4
  start_node "$kind" "$name/node"
  step "$name/deploy" node "$src/deploy.cjs" --rpc "$NODE_URL" --out "$dir/deployment.json" --steps "$steps"
  weth=$(deployed "$dir/deployment.json" wrapped)
  usd=$(deployed "$dir/deployment.json" stable)
}

# prove KIND STEPS: the whole check on a fresh node of KIND, its chain
# driven by STEPS random actions; files and logs under $work/KIND/.
prove() {
  local kind=$1 steps=$2 dir=$work/$1 base snapshot main_database= latest
  rm -rf "$dir" && mkdir -p "$dir"
  fresh_chain "$kind" "$kind" "$dir" "$steps"

  if [ "$mode" = check ]; then
    # A data directory of its own: the index is journaled there as it goes,
    # through every reorganisation, and read back by a restart at the end.
    server_args=(--api-key "$key" --upstream "eth=$NODE_URL" --wrapped "eth=$weth" --stablecoin "eth=$usd"
      --webhook-host 127.0.0.1 --confirmations 2)
    index_flags "$kind"
    main_database=${INDEX_DATABASE:-}
    if [ "$index" = postgres ]; then
      server_args+=("${INDEX_FLAGS[@]}")
    else
      server_args+=(--data-dir "$dir/state")
    fi
    start_server "$dir" "${server_args[@]}"
  fi

  check "$kind/check-main" "$dir/deployment.json"

  # Stream deliveries of the upstream blocks: a receiver here gets each new
  # block with ERC20 transfers, unconfirmed then confirmed (2 blocks deep).
  if [ "$mode" = check ]; then
    run "$kind/streams" node "$src/streams.cjs" --rpc "$NODE_URL" --api "$W3API_URL" --key "$key" \
      --deployment "$dir/deployment.json" --dump "$dir/streams-deliveries.json"
  fi

  if [ "$mode" = check ]; then
    read_your_writes "$kind" "$dir"
    # A dApp with the gateway as its RPC URL: deploy, call, estimate, send, revert, filters.
    run "$kind/dapp" node "$src/dapp.cjs" --rpc "$NODE_URL" --api "$W3API_URL" --key "$key"
  fi
  # Internal transactions, and ots_ beside the node's own, where the node traces calls.
  if [ "$mode" = check ] && [ "$kind" = anvil ]; then
    run "$kind/internal" node "$src/internal.cjs" --rpc "$NODE_URL" --api "$W3API_URL" --key "$key"
  fi

  # A WebSocket subscriber hears the branches below as they come: every
  # header and every log, dropped ones again with removed: true.
  local recorder=
  if [ "$mode" = check ]; then
    node "$src/subscriptions.cjs" record --api "$W3API_URL" --key "$key" --out "$dir/subscriptions.jsonl" \
      >"$dir/subscriptions.out" 2>"$dir/subscriptions.err" &
    recorder=$!
    for _ in $(seq 100); do grep -q subscribed "$dir/subscriptions.out" 2>/dev/null && break; sleep 0.1; done
  fi

  # Reorganisations. evm_snapshot/evm_revert put the node back to a block;
  # the next branch mines other blocks at the same heights.
  base=$(head_block)
  snapshot=$(rpc evm_snapshot)
  step "$kind/branch-a" node "$src/deploy.cjs" --rpc "$NODE_URL" --deployment "$dir/deployment.json" \
    --branch A --blocks 20 --out "$dir/branch-a.json"
  check "$kind/check-branch-a" "$dir/branch-a.json" --blocks latest,-1,-5,-10,-19,-20,-21,-40

  echo "--- $kind: revert to block $base, then branch B, longer than A"
  revert_to "$snapshot" "$base"
  step "$kind/branch-b" node "$src/deploy.cjs" --rpc "$NODE_URL" --deployment "$dir/deployment.json" \
    --branch B --blocks 25 --out "$dir/branch-b.json"
  check "$kind/check-branch-b" "$dir/branch-b.json" --absent "$dir/branch-a.json" \
    --blocks latest,-1,-5,-10,-20,-24,-25,-26,-40

  base=$(head_block)
  snapshot=$(rpc evm_snapshot)
  step "$kind/branch-c" node "$src/deploy.cjs" --rpc "$NODE_URL" --deployment "$dir/branch-b.json" \
    --branch C --blocks 20 --out "$dir/branch-c.json"
  check "$kind/check-branch-c" "$dir/branch-c.json" --absent "$dir/branch-a.json" --blocks latest,-1,-10,-19,-20,-21

  echo "--- $kind: revert to block $base, then branch D, shorter than C"
  revert_to "$snapshot" "$base"
  step "$kind/branch-d" node "$src/deploy.cjs" --rpc "$NODE_URL" --deployment "$dir/branch-b.json" \
    --branch D --blocks 8 --out "$dir/branch-d.json"
  check "$kind/check-branch-d" "$dir/branch-d.json" --absent "$dir/branch-a.json,$dir/branch-c.json" \
    --blocks latest,-1,-4,-7,-8,-9,-20,-30

  if [ -n "$recorder" ]; then
    # Once w3api has the node's head (check-branch-d waited for it), the
    # subscriber has heard everything; then its record meets the node's chain.
    sleep 3
    kill "$recorder" && wait "$recorder" 2>/dev/null || true
    if [ -s "$dir/subscriptions.err" ]; then cat "$dir/subscriptions.err" >&2; fi
    run "$kind/subscriptions" node "$src/subscriptions.cjs" verify --rpc "$NODE_URL" --file "$dir/subscriptions.jsonl"
  fi

  if [ "$mode" = check ] && ! kill -0 "$W3API_PID" 2>/dev/null; then
    echo "w3api serve exited during the checks on $kind:" >&2
    tail -n 20 "$dir/serve.err" >&2
    broken+=("$kind/server") failed=$((failed + 1))
  fi

  if [ "$mode" = check ]; then
    latest=$dir/branch-d.json
    if [ "$index" = postgres ]; then
      second_replica "$kind" "$dir" "$main_database"
    fi
    echo "--- $kind: restart w3api on its store: the index comes back (from the journal, or the tables as they are), branch D's"
    kill "$W3API_PID" && wait "$W3API_PID" 2>/dev/null || true
    mkdir -p "$dir/restarted"
    start_server "$dir/restarted" "${server_args[@]}"
    check "$kind/check-restart" "$latest" --absent "$dir/branch-a.json,$dir/branch-c.json" \
      --blocks latest,-1,-8,-9,-30
    if [ "$index" = postgres ]; then
      # The tables are the index: nothing is replayed.
      if ! grep -q "index read from the store's journal" "$dir/restarted/serve.err"; then
        passed=$((passed + 1))
      else
        echo "FAIL the restarted server replayed a journal, with its index in tables" >&2
        broken+=("$kind/restart") failed=$((failed + 1))
      fi
    elif grep -q "index read from the store's journal" "$dir/restarted/serve.err"; then
      passed=$((passed + 1))
    else
      echo "FAIL the restarted server did not read its index from the journal" >&2
      broken+=("$kind/restart") failed=$((failed + 1))
    fi
    kill "$W3API_PID" && wait "$W3API_PID" 2>/dev/null || true
    # How node mode reads a node that limits its rate does not depend on
    # where it keeps its index: the memory pass proves it.
    if [ "$index" = memory ]; then
      throttled "$kind" "$dir"
    fi
  fi
  kill "$NODE_PID" && wait "$NODE_PID" 2>/dev/null || true
}

# second_replica KIND DIR DATABASE: beside the server that indexes, a second
# one on the same DATABASE (its index in tables) answers at the node's head
# within a second of listening, replays nothing, and holds little memory;
# then the first is killed (kill -9) and the second takes over its writing.
# With W3API_TEST_REPLICA_URL (a hot standby of the cluster), it reads the
# tables from the standby (--database-read).
second_replica() {
  local kind=$1 dir=$2 database=$3 main_pid=$W3API_PID main_url=$W3API_URL head started answered rss reads=()
  mkdir -p "$dir/replica"
  head=$(head_block)
  if [ -n "${W3API_TEST_REPLICA_URL:-}" ]; then
    reads=(--database-read "${W3API_TEST_REPLICA_URL%/*}/${database##*/}")
  fi
  start_server "$dir/replica" "${server_args[@]}" "${reads[@]}"
  started=$(date +%s%N)
  answered=$(node -e '
    const [url, key, head] = process.argv.slice(1);
    (async () => {
      for (;;) {
        const r = await fetch(`${url}/eth/${key}`, { method: "POST", headers: { "content-type": "application/json" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] }) });
        const { result } = await r.json();
        if (result && Number(result) >= Number(head)) { console.log(Date.now()); return; }
        await new Promise((f) => setTimeout(f, 20));
      }
    })();' "$W3API_URL" "$key" "$head")
  rss=$(awk '/VmRSS/ {print $2}' "/proc/$W3API_PID/status")
  local waited=$(((answered * 1000000 - started) / 1000000))
  echo "--- $kind: a second replica${reads[*]:+ reading a standby} answered at block $head $waited ms after listening; RSS $((rss / 1024)) MB"
  check "$kind/check-replica" "$dir/branch-d.json" --absent "$dir/branch-a.json,$dir/branch-c.json" --blocks latest,-1,-9
  if [ "$waited" -le 1000 ] && [ "$rss" -le $((300 * 1024)) ] \
    && ! grep -q "index read from the store's journal" "$dir/replica/serve.err"; then
    passed=$((passed + 1))
  else
    echo "FAIL the second replica: answered after $waited ms (1000 at most), RSS $rss kB (300 MB at most), or replayed a journal" >&2
    broken+=("$kind/replica") failed=$((failed + 1))
  fi

  # The replica that indexes is killed (kill -9) while the node mines on;
  # the second takes the chain's lease once it runs out (15 s) and indexes
  # the new blocks, none twice and none lost.
  echo "--- $kind: kill -9 the indexing replica; the second takes over"
  kill -9 "$main_pid" && wait "$main_pid" 2>/dev/null || true
  step "$kind/branch-e" node "$src/deploy.cjs" --rpc "$NODE_URL" --deployment "$dir/branch-d.json" \
    --branch E --blocks 6 --out "$dir/branch-e.json"
  check "$kind/check-takeover" "$dir/branch-e.json" \
    --absent "$dir/branch-a.json,$dir/branch-c.json" --blocks latest,-1,-5,-6,-7,-20
  local kept
  kept=$(psql "$database" -qAt -c "SELECT COUNT(*) || ' ' || MIN(number) || ' ' || MAX(number) FROM index_headers")
  if [ "$kept" = "$(($(head_block) + 1)) 0 $(head_block)" ]; then
    passed=$((passed + 1))
  else
    echo "FAIL after the takeover the tables hold blocks (count min max) $kept, not each of 0..$(head_block) once" >&2
    broken+=("$kind/takeover") failed=$((failed + 1))
  fi
  kill "$W3API_PID" && wait "$W3API_PID" 2>/dev/null || true
  W3API_PID=$main_pid W3API_URL=$main_url
  latest=$dir/branch-e.json
}

# sdks NAME DIR: the official Moralis SDKs (.ci/clients/moralis-js.cjs and
# moralis_py_checks.py, as .ci/clients.sh runs them on the devnet) against
# the server in node mode. The values they call with are discovered from
# the server (discover.py) among the deployment's wallets, on eth only.
sdks() {
  local name=$1 dir=$2 fixture=$2/sdk-fixture.json wallets candidates solana
  install_clients
  wallets=$(node -p 'require(process.argv[1]).wallets.filter((w) => w.kind === "account").slice(0, 3).map((w) => w.address).join(",")' "$dir/deployment.json")
  candidates=$(node -p 'require(process.argv[1]).wallets.map((w) => w.address).join(",")' "$dir/deployment.json")
  solana=$("$W3API_BIN" devnet --seed 0 solana-key | grep -oE '[1-9A-HJ-NP-Za-km-z]{32,44}' | head -n 1)
  # Of the nodes here only Anvil traces calls: there the SDKs must decode internal transactions.
  local expect_internal=0
  [ "$name" = sdks-anvil ] && expect_internal=1
  if ! W3API_API_KEY=$key W3API_CHAINS=eth W3API_WALLETS=$wallets W3API_NFT_CANDIDATES=$candidates \
    W3API_SOLANA_ADDRESS=$solana W3API_EXPECT_INTERNAL=$expect_internal \
    timeout 300 "$CLIENTS_VENV/bin/python" "$CLIENTS_DIR/discover.py" "$fixture"; then
    echo "FAIL discovering the SDK checks' values ($name)" >&2
    broken+=("$name/discover") failed=$((failed + 1))
    return
  fi
  local sdk_env=(env W3API_API_KEY="$key" W3API_CLIENTS_FIXTURE="$fixture" NODE_PATH="$CLIENTS_WORK/node_modules"
    PYTHONPYCACHEPREFIX="$CLIENTS_WORK/pycache")
  run "$name/moralis-js" "${sdk_env[@]}" node "$CLIENTS_DIR/moralis-js.cjs"
  run "$name/moralis-py" "${sdk_env[@]}" "$CLIENTS_VENV/bin/python" "$CLIENTS_DIR/moralis_py_checks.py"
}

# read_your_writes KIND DIR: a second w3api that polls the node only every
# ten minutes; a receipt its gateway shows must come with its effects in the
# next wallet answer, which only catching up on demand can give.
read_your_writes() {
  local kind=$1 dir=$2 main_pid=$W3API_PID main_url=$W3API_URL
  mkdir -p "$dir/read-your-writes"
  index_flags "${kind}_read_your_writes"
  start_server "$dir/read-your-writes" --api-key "$key" --upstream "eth=$NODE_URL" --wrapped "eth=$weth" \
    --stablecoin "eth=$usd" --poll-interval 600s "${INDEX_FLAGS[@]}"
  run "$kind/read-your-writes" node "$src/read-your-writes.cjs" --rpc "$NODE_URL" --api "$W3API_URL" --key "$key" \
    --deployment "$dir/deployment.json"
  kill "$W3API_PID" && wait "$W3API_PID" 2>/dev/null || true
  W3API_PID=$main_pid W3API_URL=$main_url
}

# throttled KIND DIR: a fresh w3api (state in memory) indexes the node
# through a proxy that answers every other request with HTTP 429; it must
# reach the node's head and answer as the node does, and say once in its
# log that the node limits its rate.
throttled() {
  local kind=$1 dir=$2 proxy_pid proxy_url
  echo "--- $kind: w3api through a proxy answering every other request with HTTP 429"
  mkdir -p "$dir/throttled"
  node "$src/throttle-proxy.cjs" --rpc "$NODE_URL" >"$dir/throttled/proxy.out" 2>"$dir/throttled/proxy.err" &
  proxy_pid=$!
  stop_on_exit "$proxy_pid"
  proxy_url=$(listening_url "$dir/throttled/proxy.out" "$proxy_pid" 's|^Listening on \(http://[^ ]*\)$|\1|p') || {
    echo "the throttling proxy did not start:" >&2
    cat "$dir/throttled/proxy.err" >&2
    broken+=("$kind/throttled") failed=$((failed + 1))
    return
  }
  index_flags "${kind}_throttled"
  start_server "$dir/throttled" --api-key "$key" --upstream "eth=$proxy_url" --wrapped "eth=$weth" --stablecoin "eth=$usd" \
    "${INDEX_FLAGS[@]}"
  # Each of w3api's calls to the node may be refused several times in a row
  # and paused up to 2 s each time: a wallet answer may take longer than the
  # 30 s the checks allow otherwise.
  W3API_CHECK_TIMEOUT_MS=180000 check "$kind/check-throttled" "$latest" \
    --absent "$dir/branch-a.json,$dir/branch-c.json" --blocks latest
  kill "$proxy_pid" && wait "$proxy_pid" 2>/dev/null || true
  echo "$(tail -n 1 "$dir/throttled/proxy.out")"
  if [ "$(grep -c "limits its request rate" "$dir/throttled/serve.err")" -eq 1 ] \
    && grep -q "refused$" <(tail -n 1 "$dir/throttled/proxy.out") \
    && ! grep -q " 0 refused$" "$dir/throttled/proxy.out"; then
    passed=$((passed + 1))
  else
    echo "FAIL the log should say once that the node limits its rate, and the proxy should have refused requests" >&2
    broken+=("$kind/throttled") failed=$((failed + 1))
  fi
  kill "$W3API_PID" && wait "$W3API_PID" 2>/dev/null || true
}

# check NAME DEPLOYMENT [ARGS...]: w3api against the node (or, in
# self-test, the node's answers against themselves).
check() {
  local name=$1 deployment=$2
  shift 2
  if [ "$mode" = check ]; then
    run "$name" node "$src/check.cjs" --rpc "$NODE_URL" --api "$W3API_URL" --key "$key" --deployment "$deployment" "$@"
  else
    run "$name" node "$src/check.cjs" --rpc "$NODE_URL" --deployment "$deployment" --self-test "$@"
  fi
}

# Puts the node back to a snapshot taken at block $2, and checks it did.
revert_to() {
  [ "$(rpc evm_revert "[\"$1\"]")" = true ] || { echo "evm_revert refused" >&2; exit 1; }
  [ "$(head_block)" -eq "$2" ] || { echo "after evm_revert the head is $(head_block), not $2" >&2; exit 1; }
}

if [ "$mode" = sdks ]; then
  # Each node's chain is driven as long as Hardhat's in the check: the SDK
  # checks' multi-page cases need that many items.
  for kind in ${W3API_NODES:-hardhat ganache anvil}; do
    dir=$work/sdks-$kind
    rm -rf "$dir" && mkdir -p "$dir"
    fresh_chain "$kind" "sdks-$kind" "$dir" "${HARDHAT_STEPS:-260}"
    index_flags "sdks_$kind"
    start_server "$dir" --api-key "$key" --upstream "eth=$NODE_URL" --wrapped "eth=$weth" --stablecoin "eth=$usd" \
      "${INDEX_FLAGS[@]}"
    # The SDK checks start once the server has indexed the node's head (the
    # check waits for it, then compares the newest block with the node).
    run "sdks-$kind/check" node "$src/check.cjs" --rpc "$NODE_URL" --api "$W3API_URL" --key "$key" \
      --deployment "$dir/deployment.json" --blocks latest --limit 100
    sdks "sdks-$kind" "$dir"
    kill "$W3API_PID" "$NODE_PID" && wait "$W3API_PID" "$NODE_PID" 2>/dev/null || true
  done
  finish
  exit $?
fi

# differential: the devnet beside a fresh Anvil at the devnet's fork (with
# the struct logs it only records when told), the same transactions sent to
# both and their traces compared (differential.cjs).
differential() {
  local dir=$work/differential
  rm -rf "$dir" && mkdir -p "$dir"
  start_node anvil differential/node --hardfork prague --steps-tracing
  start_server "$dir" --api-key "$key"
  run differential node "$src/differential.cjs" --anvil "$NODE_URL" --devnet "$W3API_URL/eth/$key"
  kill "$W3API_PID" "$NODE_PID" && wait "$W3API_PID" "$NODE_PID" 2>/dev/null || true
}

nodes=${W3API_NODES:-hardhat ganache anvil}
# The devnet's traces have nothing to do with where node mode keeps its index.
if [[ " $nodes " == *" anvil "* ]] && [ "$index" = memory ]; then
  differential
fi

for kind in $nodes; do
  case "$kind" in
    hardhat) prove hardhat "${HARDHAT_STEPS:-260}" ;;
    ganache) prove ganache "${GANACHE_STEPS:-120}" ;;
    anvil) prove anvil "${ANVIL_STEPS:-120}" ;;
    *) echo "W3API_NODES: unknown node $kind (hardhat, ganache or anvil)" >&2; exit 2 ;;
  esac
done
finish
