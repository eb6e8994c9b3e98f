#!/usr/bin/env bash
# coherence.py over another node's chain: execution-apis' chain (Homestead
# to Osaka), imported by a `w3api serve` of its own (--init genesis.json
# --import chain.rlp), its Data API read by the chain's hex id.
#
# usage: coherence-imported.sh WORK_DIR PYTHON
# W3API_BIN and W3API_API_KEY: as .ci/clients.sh exports them.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
work=$1 python=$2
mkdir -p "$work"
. "$root/.ci/serve.sh"
fixtures=$root/tests/fixtures/execution-apis
start_w3api "$work" --api-key "$W3API_API_KEY" --init "$fixtures/genesis.json" --import "$fixtures/chain.rlp"
echo '{"imported": true}' >"$work/fixture.json"
W3API_CHAIN=0xc72dd9d5e883e W3API_CLIENTS_FIXTURE=$work/fixture.json "$python" "$root/.ci/clients/coherence.py"
