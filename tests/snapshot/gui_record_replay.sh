#!/bin/bash
# Record and replay at machine level (docs/snapshots.md "Record and replay"): an
# inspector session (`x86lab gui --record LOG`, offscreen, a script) types a line into
# the VGA text screen of keyboard_kernel.elf, which echoes it and sends it to COM1;
# `x86lab run --replay LOG` with the same number of steps gives the same serial output
# and --stats; a snapshot saved in the replay after the keys and continued with
# --load-snapshot --replay gives the rest of that output and the same --stats; a bad log
# is one line and exit status 2.
# Usage: gui_record_replay.sh X86LAB KEYBOARD_KERNEL
set -u
x86lab=$1
kernel=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export SDL_VIDEODRIVER=offscreen
stats() { grep -E '^[a-z][a-z0-9._-]* [0-9]+$' "$1"; }  # the --stats lines

# 200000 steps to the prompt, the keys at step 200000, 300000 steps more: 500000 in all.
printf 'run 200000\nframes 2\nfocus VGA text screen\ntype echo Hi!\\n\nrun 300000\nframes 2\nquit\n' > "$work/session.script"
"$x86lab" gui --kernel "$kernel" --script "$work/session.script" --serial "file:$work/gui.out" --stats \
  --record "$work/session.log" > /dev/null 2> "$work/gui.err" || fail "gui: $(cat "$work/gui.err")"
grep -q 'line: echo Hi!' "$work/gui.out" || fail "the inspector's keys did not reach the guest: $(cat "$work/gui.out")"

run=(--kernel "$kernel" --max-instructions 500000 --stats)
"$x86lab" run "${run[@]}" --serial "file:$work/replay.out" --replay "$work/session.log" < /dev/null 2> "$work/replay.err"
cmp "$work/gui.out" "$work/replay.out" || fail "serial output: gui '$(cat "$work/gui.out")', replay '$(cat "$work/replay.out")'"
stats "$work/gui.err" > "$work/gui.stats"
stats "$work/replay.err" > "$work/replay.stats"
[ -s "$work/gui.stats" ] || fail "no --stats from the gui: $(cat "$work/gui.err")"
diff "$work/gui.stats" "$work/replay.stats" || fail "--stats differ between the gui session and its replay"

# Saved at step 300000 of the replay (after the keys), continued from the file.
"$x86lab" run --kernel "$kernel" --max-instructions 300000 --serial "file:$work/first.out" \
  --replay "$work/session.log" --save-snapshot "$work/at300k.snap" < /dev/null 2> /dev/null
"$x86lab" run --load-snapshot "$work/at300k.snap" --max-instructions 500000 --stats --serial "file:$work/rest.out" \
  --replay "$work/session.log" < /dev/null 2> "$work/rest.err"
cat "$work/first.out" "$work/rest.out" | cmp - "$work/replay.out" || fail "--load-snapshot --replay: serial output differs"
stats "$work/rest.err" | diff "$work/replay.stats" - || fail "--load-snapshot --replay: --stats differ"

# A log with another version: one line naming the file, exit 2.
cp "$work/session.log" "$work/version.log"
printf '\x01' | dd of="$work/version.log" bs=1 seek=8 conv=notrunc status=none
"$x86lab" run "${run[@]}" --serial none --replay "$work/version.log" > /dev/null 2> "$work/bad.err"
status=$?
[ "$status" = 2 ] || fail "bad log: exit status $status"
[ "$(wc -l < "$work/bad.err")" = 1 ] || fail "bad log: not one line: $(cat "$work/bad.err")"
grep -q "replay log '$work/version.log': replay log format version 1; this x86lab reads version 2" "$work/bad.err" ||
  fail "bad log: $(cat "$work/bad.err")"
echo "gui record, run replay: identical"
