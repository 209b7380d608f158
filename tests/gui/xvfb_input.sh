#!/bin/sh
# The real window under Xvfb, driven by xdotool (a real X pointer and keyboard), then
# ended by one SIGTERM, which must close it cleanly (exit status 143 as for `x86lab run`,
# the layout file and --stats written). Exit 77 (skipped) when Xvfb or xdotool is not
# installed.
#   taps:   ten F11 taps 1 ms apart (a press and release between two frames, closer than
#           SDL's X11 driver tells from autorepeat; issue 27 lost 2 of 10) step exactly
#           ten instructions (--stats).
#   resize: dragging the Control window's lower-right grip by 100,100 pixels resizes it
#           from 400x150 (its tile at 1280x800) to 500x250 (the layout file).
#   vga:    with a guest that reads the PS/2 keyboard (keyboard_kernel.elf, --run), a
#           click into the VGA text screen and xdotool typing "echo typed" and Return
#           send the line to the guest, which prints "line: echo typed" on COM1.
# Usage: xvfb_input.sh X86LAB taps|resize|vga MACHINE-OPTIONS...
x86lab=$1
case=$2
shift 2
if [ "$1" != "--inside" ]; then
  for tool in xvfb-run Xvfb xdotool; do
    command -v $tool > /dev/null || { echo "SKIP: $tool is not installed (apt-get install xvfb xdotool)"; exit 77; }
  done
  exec env SDL_VIDEODRIVER=x11 xvfb-run -a -s "-screen 0 1280x800x24" "$0" "$x86lab" "$case" --inside "$@"
fi
shift

home=$(mktemp -d)
HOME=$home XDG_CONFIG_HOME=$home "$x86lab" gui "$@" --size 1280x800 --stats > "$home/out.txt" 2>&1 &
gui=$!
find_window() { xdotool search --onlyvisible --name 'x86lab inspector' 2> /dev/null | tail -1; }
window=
for i in $(seq 1 600); do
  kill -0 "$gui" 2> /dev/null || break
  window=$(find_window)
  [ -n "$window" ] && [ -n "$(xdotool getwindowname "$window" 2> /dev/null)" ] && break
  sleep 0.1
done
[ -n "$window" ] || { echo "no inspector window appeared"; cat "$home/out.txt"; kill "$gui" 2> /dev/null; exit 1; }
sleep 1
window=$(find_window)
xdotool windowfocus --sync "$window" 2> /dev/null
if [ "$case" = taps ]; then
  xdotool key --delay 1 F11 F11 F11 F11 F11 F11 F11 F11 F11 F11
elif [ "$case" = vga ]; then
  # The VGA text screen opens by itself once the guest writes there (top right, 584
  # pixels wide at 1280x800); a click inside gives it the keyboard.
  for i in $(seq 1 300); do
    grep -q "keyboard_kernel: ready" "$home/out.txt" && break
    sleep 0.1
  done
  sleep 2
  xdotool mousemove --window "$window" 1000 300
  sleep 0.2
  xdotool click 1
  sleep 0.5
  xdotool type --delay 40 'echo typed'
  xdotool key Return
  for i in $(seq 1 300); do
    grep -q "line: echo typed" "$home/out.txt" && break
    sleep 0.1
  done
else
  xdotool mousemove --window "$window" 395 160
  sleep 0.2
  xdotool mousedown 1
  sleep 0.2
  for step in 1 2 3 4 5; do
    xdotool mousemove_relative 20 20
    sleep 0.1
  done
  xdotool mouseup 1
fi
# Wait until the title (CS:EIP) has been still for a second: every event handled.
last=
[ "$case" = vga ] || for i in $(seq 1 100); do
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
ended=yes
if kill -0 "$gui" 2> /dev/null; then
  echo "one SIGTERM did not end the inspector"
  ended=no
  kill -KILL "$gui"
fi
wait "$gui"
status=$?
result=1
if [ "$case" = taps ]; then
  count=$(sed -n 's/^ *instructions *\([0-9]*\)$/\1/p' "$home/out.txt" | head -1)
  echo "exit status $status, instructions $count"
  [ "$ended" = yes ] && [ "$count" = 10 ] && [ "$status" = 143 ] && { echo "ten taps, ten steps"; result=0; }
elif [ "$case" = vga ]; then
  echo "exit status $status"
  grep "^line:" "$home/out.txt"
  [ "$ended" = yes ] && [ "$status" = 143 ] && grep -q "^line: echo typed$" "$home/out.txt" && { echo "typed into the guest"; result=0; }
else
  size=$(sed -n '/^\[Window\]\[Control\]/,/^$/s/^Size=//p' "$home/x86lab/gui-layout.ini")
  echo "exit status $status, Control window size $size"
  [ "$ended" = yes ] && [ "$size" = 500,250 ] && [ "$status" = 143 ] && { echo "resized with the mouse"; result=0; }
fi
[ $result = 0 ] || { echo "--- x86lab gui output:"; cat "$home/out.txt"; }
rm -rf "$home"
exit $result
