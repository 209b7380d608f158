#!/usr/bin/env bash
# `x86lab run --wait-gdb` ends on the first SIGTERM or SIGINT while it waits for gdb to
# connect, as it does while the machine runs: exit status 128 + signal, the usual
# "interrupted by a signal" line, and its output files closed whole (README, exit
# status). Before, the wait ignored the first signal and only the second ended it.
# Usage: signal_while_waiting.sh X86LAB ROM
set -u
x86lab=$1
rom=$2
. "$(dirname "$0")/start_stub.sh"
failures=0
for signal in TERM INT; do
  start_stub --bios "$rom" --wait-gdb --stats-json "$work/stats-$signal.json"
  kill -s "$signal" "$pid"
  wait_stub
  expected=$((128 + $(kill -l "$signal")))
  if [ "$status" != "$expected" ]; then
    echo "FAIL: SIG$signal while waiting for gdb: status $status, expected $expected"
    cat "$work/stderr"
    failures=$((failures + 1))
    [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
    pid=
    continue
  fi
  if ! grep -q '^x86lab: interrupted by a signal (Ctrl-C or SIGTERM)' "$work/stderr"; then
    echo "FAIL: SIG$signal: no 'interrupted by a signal' line"
    cat "$work/stderr"
    failures=$((failures + 1))
  fi
  if ! grep -q '"instructions": *0' "$work/stats-$signal.json"; then
    echo "FAIL: SIG$signal: --stats-json not written whole with 0 instructions"
    cat "$work/stats-$signal.json"
    failures=$((failures + 1))
  fi
  echo "SIG$signal while waiting for gdb: status $status"
done
[ "$failures" = 0 ] && echo PASS
exit $((failures > 0))
