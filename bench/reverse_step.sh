#!/usr/bin/env bash
# Reverse-stepi on the Linux boot (issue 26 acceptance; benchmark, not a test): boots
# the cached Debian guest (scripts/fetch-linux-guest.sh) under `x86lab run --gdb`, has
# gdb go forward to step STEPS with `monitor goto` (recording the snapshot history on
# the way), then times one reverse-stepi and one more (wall seconds between gdb's own
# `shell date` calls), and prints the history's size.
# usage: bench/reverse_step.sh X86LAB [STEPS]   (default 6000000000)
set -euo pipefail
x86lab=$1 steps=${2:-6000000000}
cache=${X86LAB_GUEST_CACHE:-$HOME/.cache/x86lab/guests}
source "$(dirname "$0")/bench_common.sh"
linux_gdb_stub reverse_step.sh "$x86lab"
cat >"$work/session.gdb" <<GDB
set pagination off
set confirm off
set architecture i386
set remotetimeout 3600
target remote 127.0.0.1:$port
shell date +start-forward:%s.%N
monitor goto $steps
shell date +end-forward:%s.%N
monitor history snapshots
maintenance flush register-cache
info registers eip
shell date +start-reverse:%s.%N
reverse-stepi
shell date +end-reverse:%s.%N
info registers eip
shell date +start-reverse2:%s.%N
reverse-stepi
shell date +end-reverse2:%s.%N
monitor history snapshots
kill
GDB
gdb -nx -batch -x "$work/session.gdb" >"$work/gdb.out" 2>&1 || true
t() { awk -F: -v k="$1" '$1 == k {print $2}' "$work/gdb.out"; }
secs() { awk -v a="$(t "start-$1")" -v b="$(t "end-$1")" 'BEGIN {printf "%.2f", b - a}'; }
grep -E '^(at step|history:|eip)' "$work/gdb.out" || cat "$work/gdb.out"
echo "forward to step $steps: $(secs forward) s; reverse-stepi: $(secs reverse) s; the next reverse-stepi: $(secs reverse2) s"
