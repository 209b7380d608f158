#!/usr/bin/env bash
# Runs test386.asm (built from ../shared by roms/guest/test386/) under x86lab from reset
# and passes when the last POST code on port 80h is FFh (every check passed) and, when a
# reference is given, the POST EEh text written to port E9h equals it byte for byte.
# The run must end at test386's final HLT (exit status 0). On a stop before FFh it
# names the last POST code and prints the last instructions, whose offsets the listing
# beside the image (IMAGE with .lst) maps to the failed check (docs/test386.md).
# Exits 77 (a ctest skip) when ../shared/tests/test386 is absent.
# usage: run_test386.sh X86LAB TEST386_DIR IMAGE [REFERENCE]
set -u
x86lab=$1 source=$2 image=$3 reference=${4:-}
if [ ! -d "$source/src" ]; then
  echo "test386 skipped: $source not found (the ../shared test data is absent)"
  exit 77
fi
if [ ! -f "$image" ]; then
  echo "$image not built (roms/guest/test386/ builds it when $source is there)"
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# test386 ends with CLI; HLT, which ends the run; the limit only stops a runaway loop.
run=("$x86lab" run --bios "$image" --debugcon "file:$work/out.txt" --max-instructions 400000000)
"${run[@]}" --post --stats 2>"$work/post.txt"
status=$?
last=$(grep '^POST ' "$work/post.txt" | tail -n 1)
steps=$(awk '$1 == "instructions" {print $2}' "$work/post.txt")
grep -v -E '^(POST |[a-z][a-z0-9_.-]* [0-9]+$)' "$work/post.txt"
echo "x86lab exit status $status after ${steps:-?} instructions, last POST code: ${last:-none}"
if [ "$last" != "POST ff" ] || [ "$status" -ne 0 ]; then
  echo "$image stopped before POST FFh; its last instructions (look the offsets up in ${image%.bin}.lst):"
  if [ -n "$steps" ] && [ "$steps" -gt 8 ]; then
    "${run[@]}" --trace "text:$work/last.txt" --trace-filter "insn,window=$((steps - 8))-$steps" 2>/dev/null
    cat "$work/last.txt"
  fi
  exit 1
fi
if [ -n "$reference" ]; then
  if ! cmp -s "$work/out.txt" "$reference"; then
    echo "the POST EEh text differs from $reference (first differing lines, < expected, > x86lab):"
    diff "$reference" "$work/out.txt" | head -n 20
    exit 1
  fi
  echo "POST EEh text identical to $(basename "$reference") ($(wc -c <"$reference") bytes)"
fi
