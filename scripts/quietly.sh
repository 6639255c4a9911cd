# Sourced by the set-up scripts. quietly WHAT LOG COMMAND...: runs COMMAND with its output in
# LOG, saying what it does before (with how long it usually takes, in WHAT) and how long it took
# after; on failure the log's end and its path, and the script stops.
quietly() {
  local what=$1 log=$2 start=$SECONDS
  shift 2
  echo "== $what (output in $log) ..."
  if ! "$@" >"$log" 2>&1; then
    tail -n 30 "$log"
    echo "$(basename "$0"): $what failed after $((SECONDS - start)) s; the whole output: $log" >&2
    exit 1
  fi
  echo "   done in $((SECONDS - start)) s"
}
