# Sourced by the CI scripts: the one way they start `w3api serve`.
#
# start_w3api DIR ARGS...  starts "$W3API_BIN" serve on 127.0.0.1, port 0,
# with ARGS; its stdout and stderr go to DIR/serve.out and DIR/serve.err. It
# sets W3API_URL and W3API_LOG (exported) and W3API_PID, and stops the server when the
# calling script exits (through .ci/on-exit.sh, so the caller's own cleanups
# stay). Fails when the server does not start on loopback.

# shellcheck source=.ci/on-exit.sh
. "$(dirname "${BASH_SOURCE[0]}")/on-exit.sh"

start_w3api() {
  local dir=$1
  shift
  "$W3API_BIN" serve --listen 127.0.0.1:0 "$@" >"$dir/serve.out" 2>"$dir/serve.err" &
  W3API_PID=$!
  # Where a failed check finds the causes the server logged (.ci/tally.sh).
  W3API_LOG=$dir/serve.err
  export W3API_LOG
  stop_on_exit "$W3API_PID"
  W3API_URL=
  for _ in $(seq 1 3000); do
    W3API_URL=$(sed -n 's/^listening on //p' "$dir/serve.out")
    [ -n "$W3API_URL" ] && break
    kill -0 "$W3API_PID" 2>/dev/null || break
    sleep 0.01
  done
  if [ -z "$W3API_URL" ]; then
    echo "w3api serve did not start:" >&2
    cat "$dir/serve.err" >&2
    return 1
  fi
  case "$W3API_URL" in
    http://127.0.0.1:*) ;;
    *) echo "w3api serve listens on $W3API_URL, not loopback" >&2; return 1 ;;
  esac
  export W3API_URL
}
