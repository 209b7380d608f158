#!/usr/bin/env bash
# Host instructions per guest instruction (compute ROM) and per round (faults ROM) of
# one x86lab binary, by callgrind (deterministic): the method of bench/results.md,
# "Host instructions per guest instruction". A one-round run of each ROM measures the
# start-up (RAM and page-map set-up), which is subtracted.
#
# usage: bench/host_instructions.sh [--x86lab BINARY] [--compute ROUNDS] [--faults ROUNDS]
#   defaults: build/release/x86lab, compute 200000 rounds, faults 50000 rounds
set -euo pipefail
source "$(dirname "$0")/bench_common.sh"
x86lab=$root/build/release/x86lab compute=200000 faults=50000
parse_options host_instructions.sh "x86lab compute faults" "$@"
[ -x "$x86lab" ] || { echo "host_instructions.sh: --x86lab '$x86lab' is not an executable" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "host_instructions.sh: valgrind is missing (scripts/install-deps.sh --bench installs it)" >&2; exit 2; }
make_work_dir

rom() {  # name rounds -> $work/name-rounds.bin
  nasm -f bin -I"$root/roms/include/" -I"$root/bench/roms/" -DITERATIONS="$2" -o "$work/$1-$2.bin" "$root/bench/roms/$1.asm"
}
ir() {  # rom -> callgrind's total Ir (the ROMs leave through the exit port: odd status)
  { valgrind --tool=callgrind --callgrind-out-file="$work/cg" "$x86lab" run --bios "$1" --debugcon none 2>&1 || true; } |
    awk '/Collected/ {print $4}'
}
instructions() {  # rom -> guest instructions (--stats)
  { "$x86lab" run --bios "$1" --debugcon none --stats 2>&1 >/dev/null || true; } | awk '$1 == "instructions" {print $2}'
}
for spec in "compute $compute" "faults $faults"; do
  read -r name rounds <<<"$spec"
  rom "$name" "$rounds"
  rom "$name" 1
  start=$(ir "$work/$name-1.bin") total=$(ir "$work/$name-$rounds.bin")
  guest=$(($(instructions "$work/$name-$rounds.bin") - $(instructions "$work/$name-1.bin")))
  awk -v n="$name" -v r="$rounds" -v s="$start" -v t="$total" -v g="$guest" 'BEGIN {
    printf "%s (%d rounds): %d Ir, start-up %d Ir, %d guest instructions: %.2f Ir per guest instruction, %.1f per round\n",
      n, r, t, s, g, (t - s) / g, (t - s) / (r - 1) }'
done
