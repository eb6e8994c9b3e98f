# Sourced by the CI scripts: the one way they install pinned npm packages.
#
# npm_install FROM INTO  installs FROM's package.json + package-lock.json
# into INTO/node_modules (npm ci), unless INTO already holds that lock.
# --ignore-scripts: no package the scripts use needs an install script
# (optional native builds fall back to JavaScript; Hardhat's EDR ships its
# binary in per-platform packages).

npm_install() {
  local from=$1 into=$2
  if [ ! -d "$into/node_modules" ] || ! cmp -s "$from/package-lock.json" "$into/package-lock.json"; then
    mkdir -p "$into"
    cp "$from/package.json" "$from/package-lock.json" "$into/"
    timeout 600 npm ci --prefix "$into" --ignore-scripts --no-audit --no-fund --loglevel=error
  fi
}
