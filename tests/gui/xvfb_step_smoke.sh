#!/bin/sh
# Smoke test of the real window: under Xvfb, xdotool clicks the Control window's Step
# button and the window title (which ends in CS:EIP) must change. Exit 77 (skipped) when
# Xvfb or xdotool is not installed.
# Usage: xvfb_step_smoke.sh X86LAB ROM
x86lab=$1
rom=$2
if [ "$3" != "--inside" ]; then
  for tool in xvfb-run Xvfb xdotool; do
    command -v $tool > /dev/null || { echo "SKIP: $tool is not installed (apt-get install xvfb xdotool)"; exit 77; }
  done
  exec env SDL_VIDEODRIVER=x11 xvfb-run -a -s "-screen 0 1600x1000x24" "$0" "$x86lab" "$rom" --inside
fi

home=$(mktemp -d)
HOME=$home XDG_CONFIG_HOME=$home "$x86lab" gui --bios "$rom" --no-layout > "$home/out.txt" 2>&1 &
gui=$!
window=
# Generous waits: on a loaded CI machine the first frames can take seconds. The window
# is looked up again before each use (the first window id SDL shows may be replaced).
find_window() { xdotool search --onlyvisible --name 'x86lab inspector' 2> /dev/null | tail -1; }
title_of() { xdotool getwindowname "$1" 2> /dev/null; }
before=
for i in $(seq 1 600); do
  kill -0 "$gui" 2> /dev/null || break
  window=$(find_window)
  if [ -n "$window" ]; then
    before=$(title_of "$window")
    [ -n "$before" ] && break
  fi
  sleep 0.1
done
result=1
if [ -z "$before" ]; then
  echo "no inspector window appeared"
else
  sleep 1
  window=$(find_window)
  before=$(title_of "$window")
  after=$before
  # Click Step; a click that lands before the layout is drawn is repeated (each click
  # that lands steps one instruction, and any step changes the title).
  for attempt in 1 2 3 4 5; do
    window=$(find_window)
    [ -n "$window" ] || break
    xdotool windowfocus --sync "$window" 2> /dev/null
    xdotool mousemove --window "$window" 98 55
    sleep 0.2
    xdotool click 1
    for i in $(seq 1 50); do
      sleep 0.1
      after=$(title_of "$window")
      [ -n "$after" ] && [ "$after" != "$before" ] && break
    done
    [ -n "$after" ] && [ "$after" != "$before" ] && break
  done
  echo "before: $before"
  echo "after:  $after"
  if [ -n "$after" ] && [ "$after" != "$before" ]; then echo "EIP changed"; result=0; else echo "EIP did not change"; fi
fi
[ $result = 0 ] || { echo "--- x86lab gui output:"; cat "$home/out.txt"; }
kill "$gui" 2> /dev/null
wait "$gui" 2> /dev/null
rm -rf "$home"
exit $result
