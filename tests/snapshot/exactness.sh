#!/bin/bash
# A run saved at step N and continued from the file gives what the uninterrupted run
# gives (docs/snapshots.md, "Exactness"): the debug console and serial output before N
# followed by those after it, the final --stats counters, the exit status, and the
# binary trace (the saving run's records followed by the continued run's), byte for
# byte.
# Usage: exactness.sh X86LAB N[,N...] MACHINE_ARGS... -- COMMON_ARGS...
#   MACHINE_ARGS: what builds the machine (--bios FILE or --kernel FILE ...), given to
#   the uninterrupted and the saving run only; COMMON_ARGS: given to all three runs.
#   A trace is compared unless COMMON_ARGS has --no-trace-check (long runs); a
#   --max-instructions M there goes to the uninterrupted and the continued run.
set -u
x86lab=$1 steps=$2
shift 2
machine=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do machine+=("$1"); shift; done
[ $# -gt 0 ] && shift
common=() trace=1 limit=()
while [ $# -gt 0 ]; do
  case $1 in
    --no-trace-check) trace=0 ;;
    --max-instructions) limit=(--max-instructions "$2"); shift ;;
    *) common+=("$1") ;;
  esac
  shift
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0

run() {  # NAME ARGS...: output files $work/NAME.{con,ser,err,bin}, status in $work/NAME.status
  local name=$1
  shift
  local traced=()
  [ $trace = 1 ] && traced=(--trace "bin:$work/$name.bin")
  "$x86lab" run "$@" --debugcon "file:$work/$name.con" --serial "file:$work/$name.ser" --no-progress \
    "${traced[@]}" 2> "$work/$name.err"
  echo $? > "$work/$name.status"
}
stats() { grep -v '^x86lab:' "$1"; }
dump() { "$x86lab" trace dump "$1" | grep -v '^#'; }

run full "${machine[@]}" "${common[@]}" "${limit[@]}" --stats
for n in ${steps//,/ }; do
  run saved "${machine[@]}" "${common[@]}" --max-instructions "$n" --save-snapshot "$work/machine.snap"
  if [ ! -s "$work/machine.snap" ]; then
    echo "FAIL at $n: no snapshot written: $(cat "$work/saved.err")"
    failed=1
    continue
  fi
  run continued --load-snapshot "$work/machine.snap" "${common[@]}" "${limit[@]}" --stats
  problems=()
  cmp -s <(cat "$work/saved.con" "$work/continued.con") "$work/full.con" || problems+=("debug console")
  cmp -s <(cat "$work/saved.ser" "$work/continued.ser") "$work/full.ser" || problems+=("serial")
  cmp -s <(stats "$work/continued.err") <(stats "$work/full.err") || problems+=("counters")
  cmp -s "$work/continued.status" "$work/full.status" || problems+=("exit status")
  if [ $trace = 1 ]; then
    cmp -s <(dump "$work/saved.bin"; dump "$work/continued.bin") <(dump "$work/full.bin") || problems+=("trace")
  fi
  size=$(stat -c %s "$work/machine.snap")
  if [ ${#problems[@]} -gt 0 ]; then
    echo "FAIL at step $n (snapshot $size bytes): ${problems[*]} differ"
    diff <(stats "$work/continued.err") <(stats "$work/full.err") | head -20
    failed=1
  else
    echo "ok at step $n (snapshot $size bytes)"
  fi
done
exit $failed
