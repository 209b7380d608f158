#!/bin/sh
# The inspector's script `step N` runs on the fast path (issue 27) and must leave what
# `x86lab run --max-instructions N` leaves: the same CS:EIP and every --stats line, and
# its Trace window must show the last events of that run's text trace
# (`--trace text:`, limited to the last instructions by --trace-filter window=...).
# Usage: fast_step_matches_run.sh X86LAB N MACHINE-OPTIONS... (--kernel K [--initrd I]...)
#        fast_step_matches_run.sh X86LAB N linux   (the guest of scripts/fetch-linux-guest.sh)
# Exit 77 (skipped) when a file named by the options is missing (the Linux guest).
set -eu
x86lab=$1 n=$2
shift 2
if [ "$*" = linux ]; then
  guests=${X86LAB_GUEST_CACHE:-$HOME/.cache/x86lab/guests}
  set -- --kernel "$guests/vmlinuz" --initrd "$guests/initrd.gz" --append "console=ttyS0 panic=-1"
fi
for arg in "$@"; do
  case $arg in /*) [ -e "$arg" ] || { echo "skipped: no $arg"; exit 77; } ;; esac
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'step %s\ndump %s\nquit\n' "$n" "$work/dump.txt" > "$work/script"
HOME=$work SDL_VIDEODRIVER=offscreen "$x86lab" gui "$@" --no-layout --serial none --debugcon none --stats \
  --script "$work/script" > /dev/null 2> "$work/gui.stats"
status=0
"$x86lab" run "$@" --serial none --debugcon none --max-instructions "$n" --stats > /dev/null 2> "$work/run.stats" || status=$?
[ "$status" = 1 ] || { echo "x86lab run ended with status $status before $n steps"; cat "$work/run.stats"; exit 1; }
grep -v '^x86lab' "$work/run.stats" > "$work/run.counters"
grep -v '^x86lab' "$work/gui.stats" > "$work/gui.counters" || true
if ! cmp -s "$work/run.counters" "$work/gui.counters"; then
  echo "--stats differ (run, gui):"
  diff "$work/run.counters" "$work/gui.counters" | head -20
  exit 1
fi
# "x86lab: instruction limit reached at 10:100502 after ..." and the CPU window's EIP.
run_eip=$(sed -n 's/.*limit reached at [0-9a-f]*:\([0-9a-f]*\) .*/\1/p' "$work/run.stats")
gui_eip=$(sed -n 's/^\(| \)\{0,1\}EIP \([0-9A-F]\{8\}\).*/\2/p' "$work/dump.txt" | tr 'A-F' 'a-f' | sed 's/^0*//')
[ -n "$run_eip" ] && [ "$run_eip" = "$gui_eip" ] || { echo "EIP: run $run_eip, gui $gui_eip"; exit 1; }
# The Trace window's lines (a LOCK badge before a locked access dropped). The dump has
# one line per event even where the window draws it on two.
sed -n '/^==== Trace ====/,/^==== /p' "$work/dump.txt" |
  sed -n 's/^\(LOCK \)\{0,1\}\(#[0-9].*\)/\2/p' > "$work/ring.txt"
lines=$(wc -l < "$work/ring.txt")
[ "$lines" -ge 1000 ] || { echo "the Trace window shows $lines events"; exit 1; }
instructions=$(awk '$1 == "instructions" {print $2}' "$work/run.counters")
from=$((instructions > 20000 ? instructions - 20000 : 0))
"$x86lab" run "$@" --serial none --debugcon none --max-instructions "$n" --trace "text:$work/trace.txt" \
  --trace-filter "window=$from-$((instructions + 1))" > /dev/null 2>&1 || true
tail -n "$lines" "$work/trace.txt" > "$work/tail.txt"
if ! cmp -s "$work/tail.txt" "$work/ring.txt"; then
  echo "the Trace window is not the text trace's last $lines lines:"
  diff "$work/tail.txt" "$work/ring.txt" | head -20
  exit 1
fi
echo "step $n: the same CS:EIP ($run_eip), --stats and last $lines trace events as x86lab run"
