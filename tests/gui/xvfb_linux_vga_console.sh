#!/bin/sh
# The Linux guest's VGA console takes typed commands in the inspector (issue 27's
# acceptance): under Xvfb, x86lab gui boots Debian's kernel with the busybox shell image
# (scripts/fetch-linux-guest.sh) and `--append "console=ttyS0 console=tty0"` (kernel
# messages on both, /dev/console and the shell on the VGA console), running at once;
# once the kernel has started /init, xdotool clicks into the VGA text screen and types
# "echo typed-ok > /dev/ttyS0" and Return, again every minute until the shell has run
# it: the line reaches COM1 (the --serial file) only if the shell read it from the
# keyboard. Long: the inspector runs the guest at a few million instructions a second
# and the shell is about 9 G instructions away. Exit 77 (skipped) without the guest,
# Xvfb or xdotool.
# Usage: xvfb_linux_vga_console.sh X86LAB  (X86LAB_LINUX_SHOT=PATH: a PNG of the screen
# once the command ran, with ImageMagick's import)
x86lab=$1
guests=${X86LAB_GUEST_CACHE:-$HOME/.cache/x86lab/guests}
if [ "$2" != "--inside" ]; then
  for tool in xvfb-run Xvfb xdotool; do
    command -v $tool > /dev/null || { echo "SKIP: $tool is not installed (apt-get install xvfb xdotool)"; exit 77; }
  done
  [ -s "$guests/vmlinuz" ] && [ -s "$guests/initrd-shell.gz" ] ||
    { echo "SKIP: no Linux guest in $guests (scripts/fetch-linux-guest.sh)"; exit 77; }
  exec env SDL_VIDEODRIVER=x11 xvfb-run -a -s "-screen 0 1280x800x24" "$0" "$x86lab" --inside
fi

work=$(mktemp -d)
HOME=$work XDG_CONFIG_HOME=$work "$x86lab" gui --kernel "$guests/vmlinuz" --initrd "$guests/initrd-shell.gz" \
  --append "console=ttyS0 console=tty0" --run --size 1280x800 --serial "file:$work/serial.txt" > "$work/gui.txt" 2>&1 &
gui=$!
started=$(date +%s)
elapsed() { echo $(( $(date +%s) - started )); }
until grep -q "Run /init" "$work/serial.txt" 2> /dev/null; do
  kill -0 "$gui" 2> /dev/null || { echo "the inspector ended before /init"; cat "$work/gui.txt"; exit 1; }
  sleep 5
done
echo "/init started after $(elapsed) s"
result=1
for attempt in $(seq 1 40); do
  window=$(xdotool search --onlyvisible --name 'x86lab inspector' 2> /dev/null | tail -1)
  # The VGA text screen opened by itself: its tile is the top right, 584 pixels wide.
  xdotool mousemove --window "$window" 1000 300
  sleep 0.3
  xdotool click 1
  sleep 0.5
  xdotool type --delay 60 'echo typed-ok > /dev/ttyS0'
  xdotool key Return
  echo "typed (attempt $attempt) after $(elapsed) s"
  for i in $(seq 1 30); do
    if grep -q "^typed-ok" "$work/serial.txt"; then
      echo "the shell ran the typed command after $(elapsed) s"
      result=0
      break 2
    fi
    kill -0 "$gui" 2> /dev/null || break 2
    sleep 2
  done
done
# X86LAB_LINUX_SHOT=PATH keeps a picture of the screen (the inspector with the shell).
[ $result = 0 ] && [ -n "$X86LAB_LINUX_SHOT" ] && sleep 5 && import -window root "$X86LAB_LINUX_SHOT"
kill -TERM "$gui" 2> /dev/null
wait "$gui"
[ $result = 0 ] && echo "typed into the Linux VGA console" || { tail -20 "$work/serial.txt"; cat "$work/gui.txt"; }
rm -rf "$work"
exit $result
