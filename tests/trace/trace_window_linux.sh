#!/usr/bin/env bash
# A trace window of the Linux boot regenerated from a recording equals, byte for byte,
# the same window traced straight in the recording run itself (--trace-filter window=,
# which runs untraced up to it; tests/trace/trace_window_test.cpp shows on short runs
# that such a window equals the cut of a full trace). The window lies after the kernel's
# decompression (about 2 G instructions), where its timer interrupts and page faults
# run, 600 M instructions after the recording's last snapshot. Skips (exit 77) when the guest files are not in the cache.
# usage: trace_window_linux.sh X86LAB WORKDIR (X86LAB_WINDOW_FROM/_TO move the window)
set -u
x86lab=$1 work=$2
cache=${X86LAB_GUEST_CACHE:-$HOME/.cache/x86lab/guests}
if [ ! -f "$cache/vmlinuz" ] || [ ! -f "$cache/initrd.gz" ]; then
  echo "skipped: no Linux guest in $cache (scripts/fetch-linux-guest.sh)"
  exit 77
fi
from=${X86LAB_WINDOW_FROM:-2600000000} to=${X86LAB_WINDOW_TO:-2600200000}
rm -rf "$work" && mkdir -p "$work" || exit 2
machine=(--kernel "$cache/vmlinuz" --initrd "$cache/initrd.gz" --append "console=ttyS0 panic=-1" --serial none
  --debugcon none --exit-on-halt --no-progress)
# One run keeps the recording and traces the window straight (it ends after the window).
"$x86lab" run "${machine[@]}" --recording "$work/rec" --recording-interval 1000000000 \
  --trace "bin:$work/straight.bin" --trace-filter "window=$from-$((to + 1))" --trace-stop window ||
  { echo "the recording run failed"; exit 1; }
ls "$work/rec"
"$x86lab" trace window --recording "$work/rec" --from "$from" --to "$to" --out "$work/window.bin" ||
  { echo "trace window failed"; exit 1; }
"$x86lab" trace stats "$work/window.bin" | grep -E '^(events|kind|vector)'
if cmp "$work/straight.bin" "$work/window.bin"; then
  echo "PASS: instructions $from to $to: $(stat -c %s "$work/window.bin") bytes, the same from the recording and the straight run"
  exit 0
fi
echo "FAIL: the windows differ; first differing event:"
"$x86lab" trace diff "$work/straight.bin" "$work/window.bin" | head -20
exit 1
