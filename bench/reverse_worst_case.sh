#!/usr/bin/env bash
# Worst-case reverse-stepi and the history's memory on the Linux boot (issue 26;
# benchmark, not a test). Boots the cached Debian guest (scripts/fetch-linux-guest.sh)
# under `x86lab run --gdb` at the default --history-mib, inside GNU time (peak RSS):
# - worst case: gdb goes to C + 1 with C = 357 * 2^24 = 5,989,466,112 (a periodic capture
#   point near 6 G steps), then forward in 16 `monitor goto`s of 2^20 - 1 steps each
#   (shorter than the 2^20 after which a goto leaves a snapshot near its target,
#   platform/debugger/reverse.cpp), to C + 2^24 - 15; the periodic snapshot at C is then
#   the nearest one behind, and a reverse-stepi replays 2^24 - 16 steps (timed with gdb's
#   own `shell date`);
# - memory: on to step 6,550,000,000 (the boot halts at about 6.56 G), the history's own
#   count (`monitor history snapshots`) and the process's peak RSS.
# usage: bench/reverse_worst_case.sh X86LAB
set -euo pipefail
x86lab=$1
cache=${X86LAB_GUEST_CACHE:-$HOME/.cache/x86lab/guests}
source "$(dirname "$0")/bench_common.sh"
timefile=$(mktemp)  # GNU time's line (peak RSS) of the x86lab process
linux_gdb_stub reverse_worst_case.sh /usr/bin/time -f 'peak-rss-kib:%M cpu-s:%U' -o "$timefile" "$x86lab"
capture=$((357 << 24))
{
  cat <<GDB
set pagination off
set confirm off
set architecture i386
set remotetimeout 3600
target remote 127.0.0.1:$port
shell date +start-forward:%s.%N
monitor goto $((capture + 1))
GDB
  at=$((capture + 1))
  for _ in $(seq 16); do
    at=$((at + (1 << 20) - 1))
    echo "monitor goto $at"
  done
  cat <<GDB
shell date +end-forward:%s.%N
monitor history snapshots
maintenance flush register-cache
info registers eip
shell date +start-reverse:%s.%N
reverse-stepi
shell date +end-reverse:%s.%N
info registers eip
monitor history snapshots
shell date +start-rest:%s.%N
monitor goto 6550000000
shell date +end-rest:%s.%N
monitor history snapshots
kill
GDB
} >"$work/session.gdb"
gdb -nx -batch -x "$work/session.gdb" >"$work/gdb.out" 2>&1 || true
wait "$pid" || true
pid=
t() { awk -F: -v k="$1" '$1 == k {print $2}' "$work/gdb.out"; }
secs() { awk -v a="$(t "start-$1")" -v b="$(t "end-$1")" 'BEGIN {printf "%.2f", b - a}'; }
grep -E '^(at step|history:|eip)' "$work/gdb.out" || cat "$work/gdb.out"
echo "forward to step $at: $(secs forward) s; worst-case reverse-stepi ($(((1 << 24) - 16)) steps replayed): $(secs reverse) s; on to 6550000000: $(secs rest) s"
cat "$timefile"
rm -f "$timefile"
