#!/usr/bin/env bash
# Conformance of `w3api serve` to spec/, checked by independent tools against
# one server on loopback (run by .ci/run, which installs the tools):
#   1. schemathesis with spec/openapi.yaml: every phase, positive and
#      negative data, every check, a fixed seed (.ci/schemathesis.toml), and
#      hooks for what a schema cannot say (.ci/schemathesis_hooks.py);
#   2. the Ethereum execution-API fixtures replayed against the RPC gateway,
#      each result validated against spec/openrpc.json
#      (.ci/replay_execution_apis.py).
# Extra arguments go to schemathesis. Fails on any failure.
set -euo pipefail

cd "$(dirname "$0")/.."
work=target/ci/conformance
venv=target/ci/venv
fixtures=${W3API_SHARED_FIXTURES:-../shared/fixtures}
if [ ! -d "$fixtures/execution-apis" ]; then
  echo "no execution-API fixtures at $fixtures/execution-apis; set W3API_SHARED_FIXTURES" >&2
  exit 1
fi
mkdir -p "$work"
cargo build --release --quiet -p w3api-cli
export W3API_BIN="$PWD/target/release/w3api"
export W3API_API_KEY=conformance-key

. .ci/serve.sh
start_w3api "$work" --seed 0 --api-key "$W3API_API_KEY" --index-delay 1s

echo "--- schemathesis: spec/openapi.yaml against $W3API_URL"
# Real devnet values for the dictionaries (libFuzzer format: a quoted value a line).
"$W3API_BIN" devnet --seed 0 wallets --count 5 | sed 's/.*/"&"/' >"$work/wallets.dict"
sed -n 's/^stream \([0-9a-f-]*\) .*/"\1"/p' "$work/serve.out" >"$work/streams.dict"
PYTHONPATH=.ci "$venv/bin/schemathesis" --config-file .ci/schemathesis.toml run spec/openapi.yaml \
  --no-color --report junit --report-dir "$work/report" "$@"

echo "--- execution-API fixtures replayed against $W3API_URL/eth/..."
"$venv/bin/python" .ci/replay_execution_apis.py "$fixtures/execution-apis" spec/openrpc.json \
  "$W3API_URL/eth/$W3API_API_KEY"
