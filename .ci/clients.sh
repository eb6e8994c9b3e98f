#!/usr/bin/env bash
# Third-party clients against `w3api serve`, unchanged, on loopback:
#   - viem, ethers v6 (new JsonRpcProvider(url)) and web3.py call every
#     JSON-RPC method of the gateway at $URL/eth/$KEY;
#   - the official Moralis SDKs (npm `moralis`, PyPI `moralis`) call every
#     REST operation, following cursors through every page;
#   - coherence (coherence.py, plain HTTP): the Data API against the chain
#     it reads: wallet-token balances and supplies, NFT owners, amounts and
#     URIs by eth_call at the same block; eth_getTokenPrice and usd_price
#     recomputed from pair reserves; eth_getProof verified by py-trie
#     against the blocks' state roots; then the same over another node's
#     chain, imported by a server of its own (execution-apis' chain:
#     --init genesis.json --import chain.rlp);
#   - stream deliveries end to end (streams_checks.py, with a Python webhook
#     receiver that checks every x-signature with its own keccak) and the
#     Moralis JS SDK's streams module (management calls, verifySignature and
#     parsedLogs on real deliveries), each on a server of its own that makes
#     a block every second;
#   - a page at http://localhost:3000 in Debian's chromium (playwright-core)
#     calls REST and RPC across origins, through CORS preflights, and the
#     deliveries page (/dashboard) shows a stream, its deliveries with the
#     signature the receiver got, and replays one (dashboard.cjs);
#   - a user's own contracts: OpenZeppelin's ERC20 and ERC721 (npm build
#     artifacts) deployed from the standard dev accounts with viem, ethers
#     and web3.py, read, minted and transferred, then listed by the Moralis
#     SDKs' wallet answers; bad transactions and reverts come back as the
#     errors viem, ethers and web3.py make of geth's (own-contracts.cjs,
#     own_contracts.py);
#   - the gateway over a WebSocket: viem's webSocket transport (watchBlocks,
#     watchBlockNumber, watchContractEvent, watchPendingTransactions),
#     ethers' WebSocketProvider (on('block'), contract.on('Transfer')) and
#     web3.py's WebSocketProvider (newHeads), each compared with the raw
#     answers (subscriptions.cjs, web3py_subscriptions.py), and the
#     book's viem and ethers examples as written (book-subscriptions.cjs);
#   - viem's test client (modes anvil and hardhat) drives the chain-control
#     methods, last, as it changes the chain (and puts it back);
#   - then both Moralis SDKs' checks again, against w3api in node mode on a
#     Hardhat chain and a Ganache chain of their own (.ci/node-mode.sh sdks);
# and every decoded result is compared with the raw answer to the same call
# (plain HTTP). Versions are pinned in .ci/clients/package.json (+ lock) and
# .ci/clients/requirements.txt; npm packages install under
# target/ci/clients/, Python packages into target/ci/venv.
#
# W3API_BIN: the w3api binary (default target/release/w3api, built here).
# Exits non-zero when any check fails; the last line is `N passed, N failed`.
set -euo pipefail

cd "$(dirname "$0")/.."
root=$PWD
started=$(date +%s)
. "$root/.ci/clients-install.sh"
install_clients
work=$CLIENTS_WORK venv=$CLIENTS_VENV clients=$CLIENTS_DIR

if [ -z "${W3API_BIN:-}" ]; then
  cargo build --release --quiet -p w3api-cli
  W3API_BIN=target/release/w3api
fi
W3API_BIN=$(cd "$(dirname "$W3API_BIN")" && pwd)/$(basename "$W3API_BIN")
export W3API_BIN
export W3API_API_KEY=clients-key

# --index-delay: how long a collection first named in token_addresses reports
# SYNCING (the NFT filter check waits for SYNCED).
. "$root/.ci/serve.sh"
start_w3api "$work" --seed 0 --api-key "$W3API_API_KEY" --index-delay 500ms
server=$W3API_PID
echo "--- w3api serve at $W3API_URL ($W3API_BIN)"

W3API_WALLETS=$("$W3API_BIN" devnet --seed 0 wallets --count 3 | paste -sd, -)
# Wallets to find one holding NFTs on eth and base among (discover.py).
W3API_NFT_CANDIDATES=$("$W3API_BIN" devnet --seed 0 wallets --count 40 | paste -sd, -)
W3API_SOLANA_ADDRESS=$("$W3API_BIN" devnet --seed 0 solana-key | grep -oE '[1-9A-HJ-NP-Za-km-z]{32,44}' | head -n 1)
export W3API_WALLETS W3API_NFT_CANDIDATES W3API_SOLANA_ADDRESS
export W3API_CLIENTS_FIXTURE=$work/fixture.json
# The devnet traces every transaction: a chain without internal calls is a failure.
W3API_EXPECT_INTERNAL=1 timeout 300 "$venv/bin/python" "$clients/discover.py" "$W3API_CLIENTS_FIXTURE"

export NODE_PATH=$work/node_modules
# Python's bytecode caches go under target/, not into .ci/clients/.
export PYTHONPYCACHEPREFIX=$work/pycache
. "$root/.ci/tally.sh"
run viem node "$clients/viem.cjs"
run ethers node "$clients/ethers.cjs"
run web3py "$venv/bin/python" "$clients/web3py_checks.py"
run moralis-js node "$clients/moralis-js.cjs"
run moralis-py "$venv/bin/python" "$clients/moralis_py_checks.py"
run coherence "$venv/bin/python" "$clients/coherence.py"
# The Data API over an imported chain, on a server of its own.
run coherence-imported "$clients/coherence-imported.sh" "$work/imported" "$venv/bin/python"
# A user's own contracts (OpenZeppelin's, from npm), deployed from the dev
# accounts, then seen by the Moralis SDKs: they add blocks, after the
# checks above that read the chain as generated.
run own-contracts node "$clients/own-contracts.cjs"
run own-contracts-py "$venv/bin/python" "$clients/own_contracts.py"
# The gateway over a WebSocket (viem's webSocket transport, ethers'
# WebSocketProvider, web3.py's WebSocketProvider): they mine blocks, and
# turn automine off for a while.
run subscriptions node "$clients/subscriptions.cjs"
run web3py-ws "$venv/bin/python" "$clients/web3py_subscriptions.py"
run book-subscriptions node "$clients/book-subscriptions.cjs"
# Streams: each starts a `w3api serve --block-time 1s` of its own (deliveries
# need new blocks; the shared server makes none) and webhook receivers on
# loopback.
run streams "$venv/bin/python" "$clients/streams_checks.py"
run moralis-streams node "$clients/moralis-streams.cjs"
chromium=${CHROMIUM:-/usr/bin/chromium}
if [ -x "$chromium" ]; then
  CHROMIUM=$chromium run browser node "$clients/browser.cjs"
  CHROMIUM=$chromium run dashboard node "$clients/dashboard.cjs"
elif [ -n "${CI:-}" ]; then
  echo "no chromium at $chromium: .ci/run installs Debian's chromium" >&2
  broken+=("browser" "dashboard") failed=$((failed + 2))
else
  echo "--- browser, dashboard: skipped, no chromium at $chromium (apt-get install chromium, or set CHROMIUM)"
fi

# Last on the shared server: it changes the chain (and reverts it).
run viem-testclient node "$clients/viem-testclient.cjs"

# The same SDK checks in node mode: a Hardhat node, then a Ganache node, of
# their own (npm, pinned in .ci/node-mode/), each driven and indexed by a
# w3api of its own.
RUN_TIMEOUT=1200 run node-mode-sdks bash "$root/.ci/node-mode.sh" sdks
# Again with the index in PostgreSQL tables, on the cluster the suites use.
if [ -n "${W3API_TEST_DATABASE_URL:-}" ]; then
  RUN_TIMEOUT=1200 run node-mode-sdks-postgres env W3API_INDEX=postgres bash "$root/.ci/node-mode.sh" sdks
elif [ -n "${W3API_REQUIRE_POSTGRES:-}" ]; then
  echo "FAIL node-mode-sdks-postgres: W3API_REQUIRE_POSTGRES is set but W3API_TEST_DATABASE_URL is not" >&2
  broken+=("node-mode-sdks-postgres") failed=$((failed + 1))
else
  echo "--- node-mode-sdks-postgres: skipped, W3API_TEST_DATABASE_URL is not set (.ci/postgres.sh start prints one)"
fi

if ! kill -0 "$server" 2>/dev/null; then
  echo "w3api serve exited during the checks:" >&2
  tail -n 20 "$work/serve.err" >&2
  broken+=("server") failed=$((failed + 1))
fi
echo "--- clients: $(( $(date +%s) - started )) s; logs in ${work#"$root"/}/*.log"
[ ${#broken[@]} -eq 0 ] || echo "failing: ${broken[*]}"
echo "clients: $passed passed, $failed failed"
[ ${#broken[@]} -eq 0 ]
