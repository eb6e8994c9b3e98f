# Sourced by the CI scripts that run many checks and report one total.
#
# run NAME COMMAND...  runs one check (at most $RUN_TIMEOUT seconds, 600 by
# default) with its output in $work/NAME.log, adds its last
# `NAME: N passed, N failed` line to $passed and $failed, and carries on
# when it fails: a check that fails or prints no such line is put in
# $broken (and counts one failure when it printed none), and the server's
# log lines of the request ids its output quotes are shown.

passed=0 failed=0 broken=()

run() {
  local name=$1 log=$work/$1.log status=0 line
  shift
  echo "--- $name"
  timeout "${RUN_TIMEOUT:-600}" "$@" 2>&1 | tee "$log" || status=$?
  line=$(grep -E '^[^ ]+: [0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1 || true)
  if [ -n "$line" ]; then
    passed=$((passed + $(sed -E 's/.*: ([0-9]+) passed.*/\1/' <<<"$line")))
    failed=$((failed + $(sed -E 's/.* ([0-9]+) failed$/\1/' <<<"$line")))
  fi
  if [ "$status" -ne 0 ] || [ -z "$line" ]; then
    broken+=("$name")
    [ -n "$line" ] || failed=$((failed + 1))
    logged_causes "$log"
  fi
}

# logged_causes LOG: what the server logged for each request id that a
# failed check quotes from an error body (the cause never reaches the body).
logged_causes() {
  [ -n "${W3API_LOG:-}" ] && [ -f "$W3API_LOG" ] || return 0
  local id
  for id in $(grep -oE 'request id [A-Za-z0-9_-]+' "$1" | awk '{print $3}' | sort -u | head -n 5); do
    echo "--- the server's log of request $id:"
    grep -F -- "$id" "$W3API_LOG" | head -n 5 || true
  done
}
