# Sourced by the CI and bench scripts: the one way they clean up on exit.
#
# on_exit COMMAND    adds COMMAND (a line of shell) to what runs when the
#                    script exits, however it exits; the last added runs
#                    first. Cleanups are added, never replaced, so a helper
#                    sourced by a script cannot undo the script's own.
# stop_on_exit PID   on exit, stops process PID (SIGTERM) and waits for it.
#
# Sourcing it again keeps what was added before.

if [ -z "${W3API_ON_EXIT_LOADED:-}" ]; then
  W3API_ON_EXIT_LOADED=1
  w3api_exit_commands=()

  w3api_run_exit_commands() {
    local i
    for ((i = ${#w3api_exit_commands[@]} - 1; i >= 0; i--)); do
      eval "${w3api_exit_commands[i]}" || true
    done
  }

  on_exit() {
    w3api_exit_commands+=("$1")
    trap w3api_run_exit_commands EXIT
  }

  stop_on_exit() {
    on_exit "kill $1 2>/dev/null; wait $1 2>/dev/null"
  }
fi
