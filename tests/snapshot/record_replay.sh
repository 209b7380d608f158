#!/bin/bash
# Record and replay (docs/snapshots.md, "Record and replay"): the echo kernel reads
# COM1; a run with --record takes its input from a FIFO (bytes arriving at wall-clock
# moments) or a file, and `--replay LOG` with no input at all must give the same serial
# output, the same end-of-run line and the same --stats. Bad logs are refused with one
# line naming the file, exit 2.
# Usage: record_replay.sh X86LAB ECHO_KERNEL
set -u
x86lab=$1
kernel=$2
work=$(mktemp -d)
writer=
trap '[ -n "$writer" ] && kill "$writer" 2>/dev/null; rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
run=(--kernel "$kernel" --max-instructions 400000000 --stats)  # the guest ends at 'q'

# Recorded from a FIFO: the writer sends two lines with a pause between them.
mkfifo "$work/fifo"
( printf 'hello replay\n'; sleep 0.2; printf 'second line\nq' ) > "$work/fifo" &
writer=$!
"$x86lab" run "${run[@]}" --serial-input "$work/fifo" --serial "file:$work/recorded.out" \
  --record "$work/fifo.log" 2> "$work/recorded.err"
recorded_status=$?
kill "$writer" 2>/dev/null; wait "$writer" 2>/dev/null; writer=  # (gone already when x86lab read it all)
grep -q 'second line' "$work/recorded.out" || fail "the recorded run did not echo its input"
"$x86lab" run "${run[@]}" --serial "file:$work/replayed.out" --replay "$work/fifo.log" \
  < /dev/null 2> "$work/replayed.err"
replayed_status=$?
[ "$recorded_status" = "$replayed_status" ] || fail "exit status $recorded_status recorded, $replayed_status replayed"
cmp "$work/recorded.out" "$work/replayed.out" || fail "FIFO: serial output differs"
diff "$work/recorded.err" "$work/replayed.err" || fail "FIFO: --stats or the end line differ"
# Without the log the same run sees no input: its output must differ (the test can fail).
"$x86lab" run --kernel "$kernel" --max-instructions 20000000 --serial "file:$work/none.out" --serial-input /dev/null 2> /dev/null
cmp -s "$work/recorded.out" "$work/none.out" && fail "a run without input gives the recorded output"

# Recorded from a file, with --rtc-start host.
printf 'one\ntwo\nq' > "$work/input.txt"
"$x86lab" run "${run[@]}" --serial-input "$work/input.txt" --serial "file:$work/file.out" \
  --rtc-start host --record "$work/file.log" 2> "$work/file.err"
"$x86lab" run "${run[@]}" --serial "file:$work/file_replayed.out" --replay "$work/file.log" \
  2> "$work/file_replayed.err"
cmp "$work/file.out" "$work/file_replayed.out" || fail "file: serial output differs"
diff "$work/file.err" "$work/file_replayed.err" || fail "file: --stats or the end line differ"
# Host inputs given with --replay are ignored, and stderr says so.
"$x86lab" run "${run[@]}" --serial "file:$work/ignored.out" --replay "$work/file.log" \
  --serial-input /dev/null --rtc-start 0 2> "$work/ignored.err"
cmp "$work/file.out" "$work/ignored.out" || fail "--replay with host inputs: serial output differs"
grep -q "ignored: --serial-input --rtc-start" "$work/ignored.err" || fail "no note on the ignored inputs"

# Bad logs: one line naming the file and the problem, exit 2.
refuse() {  # LOG EXPECTED-TEXT
  "$x86lab" run "${run[@]}" --serial none --replay "$1" > /dev/null 2> "$work/bad.err"
  local status=$?
  [ "$status" = 2 ] || fail "$1: exit status $status, not 2"
  [ "$(wc -l < "$work/bad.err")" = 1 ] || fail "$1: not one line: $(cat "$work/bad.err")"
  grep -q "replay log '$1'.*$2" "$work/bad.err" || fail "$1: $(cat "$work/bad.err")"
}
size=$(stat -c %s "$work/file.log")
head -c $((size - 5)) "$work/file.log" > "$work/truncated.log"
refuse "$work/truncated.log" "CRC-32 does not match"
cp "$work/file.log" "$work/flipped.log"
printf '\x55' | dd of="$work/flipped.log" bs=1 seek=30 conv=notrunc status=none
refuse "$work/flipped.log" "CRC-32 does not match"
refuse "$work/input.txt" "not an x86lab replay log"
cp "$work/file.log" "$work/version.log"
printf '\x03' | dd of="$work/version.log" bs=1 seek=8 conv=notrunc status=none
refuse "$work/version.log" "format version 3; this x86lab reads version 2"
head -c 10 "$work/file.log" > "$work/short.log"
refuse "$work/short.log" "truncated"
echo "record and replay: identical output and --stats; bad logs refused"
