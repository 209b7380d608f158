# Sourced by the gdb tests and bench/bench_common.sh: start_stub ARGS... runs
# "x86lab ${command:-run} ARGS --gdb 127.0.0.1:0" in the background, prefixed by the
# words of the array stub_wrapper when set (e.g. GNU time), with stderr in $work/stderr,
# pid in $pid, cleaned up at exit, and sets $port from its "gdb stub listening" line,
# waiting at most 10 s. Needs $x86lab.
work=$(mktemp -d)
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

start_stub() {
  ${stub_wrapper[@]+"${stub_wrapper[@]}"} "$x86lab" "${command:-run}" "$@" --gdb 127.0.0.1:0 2> "$work/stderr" &
  pid=$!
  port=
  for _ in $(seq 200); do
    port=$(sed -n 's/^x86lab: gdb stub listening on .*:\([0-9][0-9]*\)$/\1/p' "$work/stderr")
    [ -n "$port" ] && return 0
    sleep 0.05
  done
  echo "FAIL: x86lab did not report its gdb port"
  cat "$work/stderr"
  exit 1
}

# Waits at most 5 s for x86lab to exit; sets $status (124 if it did not).
wait_stub() {
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  if kill -0 "$pid" 2>/dev/null; then status=124; return; fi
  wait "$pid"
  status=$?
  pid=
}

# Runs gdb (${gdb}) in batch mode on ${kernel} with the command file $1, whose @PORT@
# becomes the stub's port, into $work/gdb.out, then wait_stub. The stub must be started.
run_gdb_batch() {
  sed "s/@PORT@/$port/" "$1" > "$work/session.gdb"
  timeout 60 "$gdb" -nx -batch -x "$work/session.gdb" "$kernel" > "$work/gdb.out" 2>&1
  wait_stub
}

# expect TEXT: TEXT is a line part of $work/gdb.out, else $failed becomes 1.
failed=0
expect() {
  if grep -qF -- "$1" "$work/gdb.out"; then echo "ok: $1"; else echo "FAIL: missing '$1'"; failed=1; fi
}
