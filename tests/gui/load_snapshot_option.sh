#!/bin/sh
# `x86lab gui --load-snapshot FILE` opens the machine saved in FILE (issue 39: refused
# though `gui --help` lists it), offscreen: a snapshot written by `x86lab run` after
# 20000 steps of the timer kernel, opened by the inspector and stepped 100, has the CPU
# window, step count and --stats of the inspector's own `step 20100` from reset; a
# Restart (Ctrl+R) goes back to the snapshot, so Restart then `step 100` is the same
# again. With --kernel as well, one line naming the option and exit status 2.
# Usage: load_snapshot_option.sh X86LAB KERNEL (timer_kernel.elf)
set -eu
x86lab=$1 kernel=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
common="--no-layout --serial none --debugcon none --stats"
# gui NAME MACHINE-OPTIONS SCRIPT-LINES...: leaves NAME.cpu (the CPU window and the
# Control window's "step N") and NAME.stats.
gui() {
  name=$1 machine=$2
  shift 2
  { for line in "$@"; do printf '%s\n' "$line"; done; printf 'dump %s\nquit\n' "$work/$name.dump"; } > "$work/$name.script"
  HOME=$work SDL_VIDEODRIVER=offscreen "$x86lab" gui $machine $common --script "$work/$name.script" > /dev/null 2> "$work/$name.err" ||
    { echo "gui $name failed:"; cat "$work/$name.err"; exit 1; }
  grep -v '^x86lab' "$work/$name.err" > "$work/$name.stats" || true
  { sed -n '/^==== CPU ====/,/^==== /p' "$work/$name.dump" | grep -v '^===='; grep -o 'step [0-9]* of' "$work/$name.dump" | sed 's/ of$//'; } > "$work/$name.cpu"
  [ -s "$work/$name.cpu" ] || { echo "gui $name: no CPU window in the dump"; exit 1; }
}
same() {
  for part in cpu stats; do
    cmp -s "$work/$1.$part" "$work/$2.$part" || { echo "$1 and $2 differ ($part):"; diff "$work/$1.$part" "$work/$2.$part" | head -20; exit 1; }
  done
  echo "same: $1 and $2"
}
"$x86lab" run --kernel "$kernel" --serial none --debugcon none --max-instructions 20000 \
  --save-snapshot "$work/at20000.snap" > /dev/null 2>&1 || true
[ -s "$work/at20000.snap" ] || { echo "x86lab run wrote no snapshot"; exit 1; }
gui target "--kernel $kernel" 'step 20100'
gui loaded "--load-snapshot $work/at20000.snap" 'step 100'
same target loaded
gui restarted "--load-snapshot $work/at20000.snap" 'step 500' 'key Ctrl+R' 'frames 2' 'step 100'
same target restarted
status=0
SDL_VIDEODRIVER=offscreen "$x86lab" gui --load-snapshot "$work/at20000.snap" --kernel "$kernel" --frames 1 2> "$work/both.err" || status=$?
[ "$status" = 2 ] && grep -q -- "--kernel cannot be given" "$work/both.err" ||
  { echo "--load-snapshot with --kernel: status $status"; cat "$work/both.err"; exit 1; }
echo "gui --load-snapshot: as expected"
