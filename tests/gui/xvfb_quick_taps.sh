#!/bin/sh
# Quick key taps on the real window (issue 27: 2 of 10 F11 taps were lost): under Xvfb,
# xdotool taps F11 ten times 1 ms apart (a press and release between two frames, and
# closer than SDL's X11 driver tells from autorepeat), then one SIGTERM ends the
# inspector cleanly and --stats must count exactly 10 instructions. Exit 77 (skipped)
# when Xvfb or xdotool is not installed.
# Usage: xvfb_quick_taps.sh X86LAB ROM
x86lab=$1
rom=$2
if [ "$3" != "--inside" ]; then
  for tool in xvfb-run Xvfb xdotool; do
    command -v $tool > /dev/null || { echo "SKIP: $tool is not installed (apt-get install xvfb xdotool)"; exit 77; }
  done
  exec env SDL_VIDEODRIVER=x11 xvfb-run -a -s "-screen 0 1280x800x24" "$0" "$x86lab" "$rom" --inside
fi

home=$(mktemp -d)
HOME=$home XDG_CONFIG_HOME=$home "$x86lab" gui --bios "$rom" --no-layout --size 1280x800 --stats > "$home/out.txt" 2>&1 &
gui=$!
find_window() { xdotool search --onlyvisible --name 'x86lab inspector' 2> /dev/null | tail -1; }
window=
for i in $(seq 1 600); do
  kill -0 "$gui" 2> /dev/null || break
  window=$(find_window)
  [ -n "$window" ] && [ -n "$(xdotool getwindowname "$window" 2> /dev/null)" ] && break
  sleep 0.1
done
result=1
if [ -z "$window" ]; then
  echo "no inspector window appeared"
else
  sleep 1
  window=$(find_window)
  xdotool windowfocus --sync "$window" 2> /dev/null
  xdotool key --delay 1 F11 F11 F11 F11 F11 F11 F11 F11 F11 F11
  # Wait until the title (CS:EIP) has been still for a second: every tap handled.
  last=
  for i in $(seq 1 100); do
    sleep 1
    now=$(xdotool getwindowname "$window" 2> /dev/null)
    [ "$now" = "$last" ] && break
    last=$now
  done
  kill -TERM "$gui"
  for i in $(seq 1 100); do
    kill -0 "$gui" 2> /dev/null || break
    sleep 0.1
  done
  if kill -0 "$gui" 2> /dev/null; then
    echo "one SIGTERM did not end the inspector"
    kill -KILL "$gui"
  fi
  wait "$gui"
  status=$?
  count=$(sed -n 's/^ *instructions *\([0-9]*\)$/\1/p' "$home/out.txt" | head -1)
  echo "exit status $status, instructions $count"
  [ "$count" = 10 ] && [ "$status" = 0 ] && { echo "ten taps, ten steps"; result=0; }
fi
[ $result = 0 ] || { echo "--- x86lab gui output:"; cat "$home/out.txt"; }
kill "$gui" 2> /dev/null
rm -rf "$home"
exit $result
