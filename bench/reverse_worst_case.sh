#!/usr/bin/env bash
# Worst-case reverse-stepi and the history's memory on the Linux boot (issue 26;
# benchmark, not a test). Boots the cached Debian guest (scripts/fetch-linux-guest.sh)
# under `x86lab run --gdb` at the default --history-mib, inside GNU time (peak RSS):
# - worst case: gdb goes to X = C + 1 with C = 357 * 2^24 = 5,989,466,112 (near 6 G
#   steps); that goto leaves a snapshot at S = X - 4096 (platform/debugger/reverse.cpp),
#   the newest, so the next periodic one is due at S + 2^24. Then forward in 16
#   `monitor goto`s, each shorter than the 2^20 steps after which a goto leaves a snapshot
#   near its target, to T = S + 2^24 - 1: S is then the nearest snapshot behind, and a
#   reverse-stepi replays 2^24 - 2 steps from it (timed with gdb's own `shell date`; the
#   script checks the newest snapshot in `monitor history snapshots`);
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
near=$((capture + 1 - 4096))            # S
target=$((near + (1 << 24) - 1))        # T
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
  for i in $(seq 16); do
    echo "monitor goto $((capture + 1 + (target - capture - 1) * i / 16))"
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
newest=$(sed -n 's/^history: steps 0 to \([0-9]*\) .*now at step '"$target"'$/\1/p' "$work/gdb.out" | head -1)
[ "$newest" = "$near" ] || echo "reverse_worst_case.sh: the newest snapshot at step $target is '$newest', not $near: not the worst case"
echo "forward to step $target: $(secs forward) s; worst-case reverse-stepi ($((target - 1 - near)) steps replayed from the snapshot at $near): $(secs reverse) s; on to 6550000000: $(secs rest) s"
cat "$timefile"
rm -f "$timefile"
