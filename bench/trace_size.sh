#!/usr/bin/env bash
# Binary traces of the Linux boot (issue 38): for windows of W instructions starting at
# fixed points of the boot (snapshots taken there once), the untraced and the traced run
# side by side in one run (CPU seconds), the trace's bytes per instruction with and
# without `reg` events, `trace stats` over it (CPU seconds, peak RSS) and `trace dump
# --from` of the window's middle instruction (CPU seconds).
#
# usage: bench/trace_size.sh [--build DIR] [--window N] [--points "A B C"]
#   --build DIR   the build (default build/release)
#   --window N    instructions per window (default 5000000)
#   --points      where the windows start, in instructions of the boot (default
#                 "1000000000 3000000000 5000000000")
# Needs the Linux guest of scripts/fetch-linux-guest.sh; says so and exits 0 without it.
set -uo pipefail
source "$(dirname "$0")/bench_common.sh"
build=$root/build/release window=5000000 points="1000000000 3000000000 5000000000"
parse_options trace_size.sh "build window points" "$@"
require_x86lab trace_size.sh "$build"
x86lab=$build/x86lab
cache=${X86LAB_GUEST_CACHE:-$HOME/.cache/x86lab/guests}
if [ ! -s "$cache/vmlinuz" ] || [ ! -s "$cache/initrd.gz" ]; then
  echo "trace_size.sh: not run: no guest in $cache (scripts/fetch-linux-guest.sh)"
  exit 0
fi
make_work_dir
cpu_seconds() { awk '{print $1 + $2}' "$1"; }
printf '%-12s %10s %10s %8s %12s %12s %10s %10s %10s\n' start untraced-s traced-s ratio B/insn B/insn+reg stats-s stats-KB dump-s
for point in $points; do
  snap=$work/snap-$point.x86s
  "$x86lab" run --kernel "$cache/vmlinuz" --initrd "$cache/initrd.gz" --append "console=ttyS0 panic=-1" \
    --max-instructions "$point" --save-snapshot "$snap" </dev/null >/dev/null 2>&1 || { echo "trace_size.sh: no snapshot at $point" >&2; exit 1; }
  end=$((point + window))
  /usr/bin/time -f '%U %S' -o "$work/plain.time" "$x86lab" run --load-snapshot "$snap" --max-instructions "$end" </dev/null >/dev/null 2>&1
  /usr/bin/time -f '%U %S' -o "$work/traced.time" "$x86lab" run --load-snapshot "$snap" --max-instructions "$end" \
    --trace "bin:$work/t.bin" --trace-filter insn,mem,seg,exc,io,cr </dev/null >/dev/null 2>&1
  "$x86lab" run --load-snapshot "$snap" --max-instructions "$end" --trace "bin:$work/r.bin" </dev/null >/dev/null 2>&1
  /usr/bin/time -f '%U %S %M' -o "$work/stats.time" "$x86lab" trace stats "$work/t.bin" >/dev/null
  /usr/bin/time -f '%U %S' -o "$work/dump.time" "$x86lab" trace dump "$work/t.bin" --from $((point + window / 2)) --to $((point + window / 2)) >/dev/null
  plain=$(cpu_seconds "$work/plain.time") traced=$(cpu_seconds "$work/traced.time")
  printf '%-12s %10.2f %10.2f %8.3f %12.2f %12.2f %10.2f %10s %10.2f\n' "$point" "$plain" "$traced" \
    "$(echo "$plain / $traced" | bc -l)" "$(echo "$(stat -c %s "$work/t.bin") / $window" | bc -l)" \
    "$(echo "$(stat -c %s "$work/r.bin") / $window" | bc -l)" "$(cpu_seconds "$work/stats.time")" \
    "$(awk '{print $3}' "$work/stats.time")" "$(cpu_seconds "$work/dump.time")"
  rm -f "$snap" "$work"/*.bin
done
echo "ratio: untraced CPU seconds / traced (the traced run's share of untraced speed); B/insn: trace bytes per instruction, full detail without and with reg events"
