#!/usr/bin/env bash
# What the always-on statistics cost (issue 8: at most 10 % with no trace sink): builds
# x86lab a second time with -DX86LAB_STATISTICS=OFF (trace/counters.h: per-opcode
# counts, code bytes and code lines, accesses by kind, the TLB statistics model, I/O by
# port compiled out) and runs the bench ROMs in both builds. Reports
#   - host instructions (callgrind Ir, deterministic) for a short run of each ROM, and
#   - the median CPU time (user + system) of RUNS full-size runs, the two builds
#     alternating (a shared machine's load then weighs on both alike),
# with the cost of the statistics as (with - without) / without.
#
# usage: bench/counters_cost.sh [--build DIR] [--runs N] [--rounds N]
#   --build DIR   the normal x86lab build folder (default build/release); the build
#                 without statistics goes to DIR-nostats
#   --runs N      timed runs per build and ROM (default 5)
#   --rounds N    compute ROM rounds for the timed runs (default 5000000; faults uses N/10)
set -euo pipefail
source "$(dirname "$0")/bench_common.sh"
build=$root/build/release runs=5 rounds=5000000
parse_options counters_cost.sh "build runs rounds" "$@"
require_x86lab counters_cost.sh "$build"
command -v valgrind >/dev/null || { echo "counters_cost.sh: valgrind is missing (scripts/install-deps.sh --bench installs it)" >&2; exit 2; }
nostats=$build-nostats
cmake -S "$root" -B "$nostats" -G Ninja -DCMAKE_BUILD_TYPE=Release -DX86LAB_STATISTICS=OFF -DBUILD_TESTING=OFF >/dev/null
ninja -C "$nostats" -j"$(nproc)" x86lab >/dev/null
make_work_dir

rom() {  # name iterations -> $work/name-iterations.bin
  nasm -f bin -I"$root/roms/include/" -I"$root/bench/roms/" -DITERATIONS="$2" -o "$work/$1-$2.bin" "$root/bench/roms/$1.asm"
}
ir() {  # binary rom -> callgrind's total Ir (the ROMs leave through the exit port: odd status)
  { valgrind --tool=callgrind --callgrind-out-file="$work/cg" "$1" run --bios "$2" --debugcon none 2>&1 || true; } |
    awk '/Collected/ {print $4}'
}
cpu_second() {  # binary rom -> CPU seconds of one run, appended to $work/<tag>
  /usr/bin/time -f '%U %S' -o "$work/t" "$1" run --bios "$2" --debugcon none >/dev/null 2>&1 || true
  tail -n 1 "$work/t" | awk '{printf "%.3f\n", $1 + $2}' >>"$work/$3"
}
cpu_seconds() {  # rom -> "median-with median-without" over $runs alternating runs
  : >"$work/with" && : >"$work/without"
  for _ in $(seq "$runs"); do
    cpu_second "$build/x86lab" "$1" with
    cpu_second "$nostats/x86lab" "$1" without
  done
  echo "$(median <"$work/with") $(median <"$work/without")"
}
cost() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.1f %%", (a - b) * 100 / b}'; }

echo "| workload | measure | with statistics | without | cost of the statistics |"
echo "|---|---|---|---|---|"
for spec in "compute 200000 $rounds" "faults 50000 $((rounds / 10))"; do
  read -r name short long <<<"$spec"
  rom "$name" "$short"
  rom "$name" "$long"
  # A one-round run measures start-up (RAM and page-map set-up), subtracted from Ir.
  rom "$name" 1
  base_with=$(ir "$build/x86lab" "$work/$name-1.bin") base_without=$(ir "$nostats/x86lab" "$work/$name-1.bin")
  with=$(ir "$build/x86lab" "$work/$name-$short.bin") without=$(ir "$nostats/x86lab" "$work/$name-$short.bin")
  with=$((with - base_with)) without=$((without - base_without))
  echo "| $name ($short rounds) | host instructions (callgrind Ir, start-up excluded) | $with | $without | $(cost "$with" "$without") |"
  read -r t_with t_without <<<"$(cpu_seconds "$work/$name-$long.bin")"
  echo "| $name ($long rounds) | median CPU s of $runs | $t_with | $t_without | $(cost "$t_with" "$t_without") |"
done
