#!/bin/sh
# One SIGTERM (or SIGINT) ends the inspector while the guest runs (issue 27: it could
# stay running at 90 % of a core): offscreen, a script runs a guest that never stops
# (keyboard_kernel.elf polls the keyboard for ever); one signal must end x86lab gui
# with status 128 + N and its "interrupted" line, and --stats still printed.
# With "rebuilt", the script first restarts the machine (Ctrl+R) and loads a snapshot,
# each of which replaces the session's debugger (issue 39: the handler kept the first
# debugger's address and the signal ended the inspector with SIGSEGV, status 139).
# Usage: signal_ends_gui.sh X86LAB KERNEL TERM|INT [rebuilt]
x86lab=$1
kernel=$2
signal=$3
work=$(mktemp -d)
if [ "$4" = rebuilt ]; then
  printf 'step 1000\nkey Ctrl+R\nframes 3\nstep 1000\nsnapshot save %s\nsnapshot load %s\nframes 3\nrun\nquit\n' \
    "$work/s.snap" "$work/s.snap" > "$work/forever.script"
  # Without the thread cache, and with freed memory overwritten, glibc gives the new
  # debugger a new address and the old one's bytes are garbage, as in a larger session.
  export GLIBC_TUNABLES=glibc.malloc.tcache_count=0:glibc.malloc.perturb=85
else
  printf 'run\nquit\n' > "$work/forever.script"
fi
SDL_VIDEODRIVER=offscreen "$x86lab" gui --kernel "$kernel" --script "$work/forever.script" --stats > "$work/out.txt" 2>&1 &
gui=$!
for i in $(seq 1 100); do
  grep -q "keyboard_kernel: ready" "$work/out.txt" && break
  sleep 0.1
done
sleep 0.5
kill -"$signal" "$gui"
for i in $(seq 1 100); do
  kill -0 "$gui" 2> /dev/null || break
  sleep 0.1
done
if kill -0 "$gui" 2> /dev/null; then
  echo "one SIG$signal did not end the inspector"
  kill -KILL "$gui"
fi
wait "$gui"
status=$?
echo "exit status $status"
cat "$work/out.txt" | grep -E "interrupted|^ *instructions"
expected=143
[ "$signal" = INT ] && expected=130
result=1
[ "$status" = $expected ] && grep -q "x86lab: interrupted by a signal" "$work/out.txt" &&
  grep -q "^ *instructions" "$work/out.txt" && { echo "ended cleanly"; result=0; }
rm -rf "$work"
exit $result
