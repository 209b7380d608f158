#!/usr/bin/env bash
# The inspector's speed on the Linux guest (issue 27 acceptance): the CPU time (user +
# system, GNU time) of `x86lab gui --script S` with S = `step N` then `quit`, offscreen
# (SDL_VIDEODRIVER=offscreen, software renderer), against `x86lab run --max-instructions
# N` on the same guest (the kernel, initrd and command line of bench/linux_boot.sh).
# Prints both CPU times per round, their medians and the ratio gui / run (target: at
# most 1.5). Rounds alternate the two so that a changing load affects both alike.
#
# usage: bench/gui_step.sh [--build DIR] [--steps N] [--runs R]
#   --build DIR   x86lab build folder (default build/release)
#   --steps N     steps to run (default 300000000)
#   --runs R      rounds (default 3)
set -euo pipefail
source "$(dirname "$0")/bench_common.sh"
build=$root/build/release steps=300000000 runs=3
parse_options gui_step.sh "build steps runs" "$@"
require_x86lab gui_step.sh "$build"
x86lab=$build/x86lab
cache=${X86LAB_GUEST_CACHE:-$HOME/.cache/x86lab/guests}
if [ ! -s "$cache/vmlinuz" ] || [ ! -s "$cache/initrd.gz" ]; then
  echo "gui_step.sh: not run: no guest in $cache (scripts/fetch-linux-guest.sh)"
  exit 0
fi
guest=(--kernel "$cache/vmlinuz" --initrd "$cache/initrd.gz" --append "console=ttyS0 panic=-1")
make_work_dir
printf 'step %s\nquit\n' "$steps" > "$work/script"
cpu() { awk '{printf "%.2f\n", $1 + $2}' "$1"; }
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
: > "$work/gui.times"
: > "$work/run.times"
for i in $(seq "$runs"); do
  HOME=$work SDL_VIDEODRIVER=offscreen /usr/bin/time -f '%U %S' -o "$work/time" "$x86lab" gui "${guest[@]}" \
    --no-layout --serial none --debugcon none --script "$work/script" </dev/null >/dev/null 2>"$work/gui.err" ||
    { echo "gui_step.sh: x86lab gui failed:" >&2; cat "$work/gui.err" >&2; exit 1; }
  gui=$(tail -n 1 "$work/time" | cpu /dev/stdin)
  /usr/bin/time -f '%U %S' -o "$work/time" "$x86lab" run "${guest[@]}" --serial none --debugcon none \
    --max-instructions "$steps" </dev/null >/dev/null 2>&1 || true  # status 1 at the limit
  run=$(tail -n 1 "$work/time" | cpu /dev/stdin)
  echo "round $i: gui step $steps ${gui} s CPU, run --max-instructions $steps ${run} s CPU"
  echo "$gui" >> "$work/gui.times"
  echo "$run" >> "$work/run.times"
done
gui=$(median < "$work/gui.times")
run=$(median < "$work/run.times")
echo "median CPU seconds: gui $gui, run $run, ratio gui/run $(awk -v g="$gui" -v r="$run" 'BEGIN {printf "%.2f", g / r}')"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
