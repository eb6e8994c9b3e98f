# Sourced by .ci/clients.sh and .ci/node-mode.sh: the one way they install
# the third-party clients (viem, ethers, the Moralis SDKs, web3.py, py-trie),
# pinned in .ci/clients/package.json (+ lock) and .ci/clients/requirements.txt.
#
# install_clients  npm packages into target/ci/clients/node_modules, PyPI
# packages into the venv target/ci/venv; sets CLIENTS_DIR (the checks),
# CLIENTS_WORK (where the npm packages and the logs go) and CLIENTS_VENV.

# shellcheck source=.ci/npm.sh
. "$(dirname "${BASH_SOURCE[0]}")/npm.sh"

install_clients() {
  local root
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  CLIENTS_DIR=$root/.ci/clients
  CLIENTS_WORK=$root/target/ci/clients
  CLIENTS_VENV=$root/target/ci/venv
  mkdir -p "$CLIENTS_WORK"
  echo "--- install: npm (viem, ethers, moralis) into target/ci/clients"
  npm_install "$CLIENTS_DIR" "$CLIENTS_WORK"
  echo "--- install: PyPI (web3, moralis, trie) into target/ci/venv"
  [ -x "$CLIENTS_VENV/bin/python" ] || python3 -m venv "$CLIENTS_VENV"
  timeout 600 "$CLIENTS_VENV/bin/pip" install --quiet --disable-pip-version-check -r "$CLIENTS_DIR/requirements.txt"
}
