#!/usr/bin/env bash
# Conformance of `w3api serve` to spec/, checked by independent tools against
# one server on loopback (run by .ci/run, which installs the tools):
#   1. schemathesis with spec/openapi.yaml: every phase, positive and
#      negative data, every check, a fixed seed (.ci/schemathesis.toml), and
#      hooks for what a schema cannot say (.ci/schemathesis_hooks.py);
#   2. the execution clients' suite (tests/fixtures/execution-apis) replayed
#      against the RPC gateway of its own chain, imported at start, each
#      result validated against spec/openrpc.json
#      (.ci/replay_execution_apis.py).
# Extra arguments go to schemathesis. Fails on any failure.
set -euo pipefail

cd "$(dirname "$0")/.."
work=target/ci/conformance
venv=target/ci/venv
fixtures=tests/fixtures
mkdir -p "$work"
# W3API_BIN: the w3api binary (default target/release/w3api, built here).
if [ -z "${W3API_BIN:-}" ]; then
  cargo build --release --quiet -p w3api-cli
  W3API_BIN=target/release/w3api
fi
W3API_BIN=$(cd "$(dirname "$W3API_BIN")" && pwd)/$(basename "$W3API_BIN")
export W3API_BIN
export W3API_API_KEY=conformance-key

. .ci/serve.sh
# Webhooks go to loopback only: positive cases create streams.
start_w3api "$work" --seed 0 --api-key "$W3API_API_KEY" --index-delay 1s --webhook-host 127.0.0.1 \
  --init "$fixtures/execution-apis/genesis.json" --import "$fixtures/execution-apis/chain.rlp"

# A receiver answering 200, for the streams positive cases create; its log
# of requests grows only as streams deliver, and stops with this script.
"$venv/bin/python" .ci/clients/webhook_receiver.py --secret "$W3API_API_KEY" >"$work/webhooks.out" &
receiver=$!
stop_on_exit "$receiver"
for _ in $(seq 100); do grep -q '^listening on ' "$work/webhooks.out" && break; sleep 0.1; done
W3API_WEBHOOK_URL=$(sed -n 's/^listening on //p' "$work/webhooks.out" | head -n 1)
[ -n "$W3API_WEBHOOK_URL" ] || { echo "the webhook receiver did not start" >&2; exit 1; }
export W3API_WEBHOOK_URL

echo "--- schemathesis: spec/openapi.yaml against $W3API_URL"
# Real devnet values for the dictionaries (libFuzzer format: a quoted value a line).
"$W3API_BIN" devnet --seed 0 wallets --count 5 | sed 's/.*/"&"/' >"$work/wallets.dict"
# A stream to reach, so that positive cases on a stream id find one.
curl -sf -X PUT "$W3API_URL/streams/evm" -H "X-API-Key: $W3API_API_KEY" -H 'Content-Type: application/json' \
  -d "{\"webhookUrl\":\"$W3API_WEBHOOK_URL\",\"description\":\"conformance\",\"tag\":\"conformance\",\"chainIds\":[\"0x1\"],\"includeNativeTxs\":true}" |
  "$venv/bin/python" -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["id"]))' >"$work/streams.dict"
PYTHONPATH=.ci "$venv/bin/schemathesis" --config-file .ci/schemathesis.toml run spec/openapi.yaml \
  --no-color --report junit --report-dir "$work/report" "$@"

echo "--- the execution clients' suite replayed against $W3API_URL/0xc72dd9d5e883e/..."
"$venv/bin/python" .ci/replay_execution_apis.py "$fixtures/execution-apis" \
  tests/tests/it/contract/execution_apis_open.txt spec/openrpc.json "$W3API_URL/0xc72dd9d5e883e/$W3API_API_KEY"
