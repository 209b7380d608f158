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
# Generous waits: on a loaded CI machine the first frames can take seconds.
for i in $(seq 1 300); do
  window=$(xdotool search --name 'x86lab inspector' 2> /dev/null | head -1)
  [ -n "$window" ] && break
  sleep 0.1
done
result=1
if [ -z "$window" ]; then
  echo "no inspector window appeared"; cat "$home/out.txt"
else
  sleep 1
  before=$(xdotool getwindowname "$window")
  after=$before
  # Click Step; a click that lands before the layout is drawn is repeated (each click
  # that lands steps one instruction, and any step changes the title).
  for attempt in 1 2 3 4 5; do
    xdotool windowfocus --sync "$window" 2> /dev/null
    xdotool mousemove --window "$window" 98 55
    sleep 0.2
    xdotool click 1
    for i in $(seq 1 50); do
      sleep 0.1
      after=$(xdotool getwindowname "$window")
      [ "$after" != "$before" ] && break
    done
    [ "$after" != "$before" ] && break
  done
  echo "before: $before"
  echo "after:  $after"
  if [ "$after" != "$before" ]; then echo "EIP changed"; result=0; else echo "EIP did not change"; fi
fi
kill "$gui" 2> /dev/null
wait "$gui" 2> /dev/null
rm -rf "$home"
exit $result
