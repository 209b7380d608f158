#!/bin/sh
# Going back in the inspector (issue 26; docs/gui.md "Going back"), offscreen:
# - `step 3`, `back 1` leaves the registers, EIP, steps and every --stats line of `step 2`
#   (and the same far from the start: step 30001, back 1 against step 30000);
# - `goto 25000` after `step 40000` equals `step 25000`;
# - a snapshot saved by the inspector at step 20000 and continued by
#   `x86lab run --load-snapshot` ends with the --stats of the uninterrupted run, and one
#   loaded by the inspector and stepped 100 equals `step 20100`.
# - a click on the Timeline's mode-change mark (pm_segment_loads.bin, at 1280x800) goes
#   to the MOV CR0, EAX that sets CR0.PE (F000:00C4 in the ROM's code).
# Usage: reverse_and_snapshot.sh X86LAB KERNEL ROM (timer_kernel.elf: interrupts, HLT,
#        ~49,000 steps; pm_segment_loads.bin)
set -eu
x86lab=$1 kernel=$2 rom=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
opts="--kernel $kernel --no-layout --serial none --debugcon none --stats"
# gui NAME SCRIPT-LINES...: runs the script, then dumps; leaves NAME.cpu (the CPU window's
# text and the Control window's "step N" line) and NAME.stats.
gui() {
  name=$1
  shift
  { printf 'open Timeline\n'; for line in "$@"; do printf '%s\n' "$line"; done; printf 'dump %s\nquit\n' "$work/$name.dump"; } > "$work/$name.script"
  HOME=$work SDL_VIDEODRIVER=offscreen "$x86lab" gui $opts --script "$work/$name.script" > /dev/null 2> "$work/$name.err" ||
    { echo "gui $name failed:"; cat "$work/$name.err"; exit 1; }
  grep -v '^x86lab' "$work/$name.err" > "$work/$name.stats" || true
  { sed -n '/^==== CPU ====/,/^==== /p' "$work/$name.dump" | grep -v '^===='; grep -o 'step [0-9]* of' "$work/$name.dump" | sed 's/ of$//'; } > "$work/$name.cpu"
  [ -s "$work/$name.cpu" ] || { echo "gui $name: no CPU window in the dump"; exit 1; }
}
same() {
  for part in cpu stats; do
    cmp -s "$work/$1.$part" "$work/$2.$part" || { echo "$1 and $2 differ ($part):"; diff "$work/$1.$part" "$work/$2.$part" | head -20; exit 1; }
  done
}
gui two 'step 2'
gui three_back 'step 3' 'back 1'
same two three_back
grep -q 'step 2 of 3 ' "$work/three_back.dump" || { echo "after step 3, back 1 the Control window does not say step 2 of 3"; exit 1; }
gui far 'step 30000'
gui far_back 'step 30001' 'back 1'
same far far_back
gui goto_target 'step 25000'
gui goto 'step 40000' 'goto 25000'
same goto_target goto

gui saved 'step 20000' "snapshot save $work/at20000.snap"
[ -s "$work/at20000.snap" ] || { echo "no snapshot file written"; exit 1; }
s1=0
"$x86lab" run --kernel "$kernel" --serial none --debugcon none --stats > /dev/null 2> "$work/whole.err" || s1=$?
s2=0
"$x86lab" run --load-snapshot "$work/at20000.snap" --serial none --debugcon none --stats > /dev/null 2> "$work/continued.err" || s2=$?
[ "$s1" = "$s2" ] || { echo "exit status: uninterrupted $s1, continued $s2"; exit 1; }
grep -v '^x86lab' "$work/whole.err" > "$work/whole.stats"
grep -v '^x86lab' "$work/continued.err" > "$work/continued.stats"
grep -q '^instructions' "$work/whole.stats" || { echo "no --stats from x86lab run"; exit 1; }
cmp -s "$work/whole.stats" "$work/continued.stats" || { echo "--stats differ (uninterrupted, continued):"; diff "$work/whole.stats" "$work/continued.stats" | head; exit 1; }
gui loaded_target 'step 20100'
gui loaded "snapshot load $work/at20000.snap" 'step 100'
same loaded_target loaded
# The Timeline window tiles at 0,497 (400 wide) at 1280x800; its bar is at y 555-573
# from x 8 to 392, and the mode change (near step 20 of 429) is within 3 pixels of x 24.
printf 'open Timeline\nbreak vector 13\nrun\nclick 24 562\nframes 2\ndump %s\nquit\n' "$work/click.dump" > "$work/click.script"
HOME=$work SDL_VIDEODRIVER=offscreen "$x86lab" gui --bios "$rom" --size 1280x800 --no-layout --serial none --debugcon none \
  --script "$work/click.script" > /dev/null
grep -q 'CS:EIP F000:000000C4 ' "$work/click.dump" ||
  { echo "a click on the mode-change mark did not go to MOV CR0, EAX:"; grep 'CS:EIP' "$work/click.dump"; exit 1; }
echo "back, goto and GUI snapshots match the forward runs"
