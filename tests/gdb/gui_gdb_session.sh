#!/bin/bash
# The system gdb against the inspector: `x86lab gui --gdb --wait-gdb --script` offscreen
# (SDL_VIDEODRIVER=offscreen, no display) on the Multiboot kernel with symbols
# (roms/guest/multiboot/gdb_kernel.c). gdb breaks at bump twice (counter 0, then 1),
# sets counter to 40, breaks at add_twice and detaches; the machine stays where gdb left
# it, and the script, which waits for gdb's session to end, dumps the windows there
# (the inspector's EIP must be the address gdb gave its breakpoint at add_twice), runs
# the machine to its end and dumps again: counter 40 + 2 bumps = 42 makes add_twice
# return 52, not 13, so the kernel reports FAIL, exit port value 11h, exit status
# (11h << 1) | 1 = 35 -- gdb and the windows worked on the same machine.
# usage: gui_gdb_session.sh X86LAB KERNEL GDB COMMANDS
set -u
x86lab=$1 kernel=$2 gdb=$3 commands=$4
if [ ! -x "$gdb" ]; then echo "SKIP: no gdb"; exit 77; fi
export SDL_VIDEODRIVER=offscreen
command=gui
source "$(dirname "$0")/start_stub.sh"
printf 'dump %s\nrun\ndump %s\nquit\n' "$work/stopped.txt" "$work/ended.txt" > "$work/inspector.script"
start_stub --kernel "$kernel" --wait-gdb --script "$work/inspector.script" --size 1280x800
sed "s/@PORT@/$port/" "$commands" > "$work/session.gdb"
timeout 60 "$gdb" -nx -batch -x "$work/session.gdb" "$kernel" > "$work/gdb.out" 2>&1
wait_stub

failed=0
expect() {
  if grep -qF -- "$2" "$1"; then echo "ok: $2"; else echo "FAIL: missing '$2' in $(basename "$1")"; failed=1; fi
}
expect "$work/gdb.out" 'Breakpoint 1, bump () at'
expect "$work/gdb.out" '$1 = 0'
expect "$work/gdb.out" '<bump+'
expect "$work/gdb.out" '$2 = 1'
expect "$work/gdb.out" 'Breakpoint 2, add_twice (a=42, b=5) at'
expect "$work/gdb.out" '$3 = 42'
expect "$work/gdb.out" '[Inferior 1 (Remote target) detached]'
# gdb's address of its add_twice breakpoint is the EIP the inspector shows.
address=$(sed -n 's/^Breakpoint 2 at 0x\([0-9a-f]*\): .*/\1/p' "$work/gdb.out")
if [ -n "$address" ]; then
  eip=$(printf '%08X' "0x$address")
  [ -f "$work/stopped.txt" ] && expect "$work/stopped.txt" "CS:EIP 0010:$eip"
  [ -f "$work/stopped.txt" ] && expect "$work/stopped.txt" "at 0010:$eip"
else
  echo "FAIL: no address of breakpoint 2 in gdb's output"; failed=1
fi
[ -f "$work/ended.txt" ] && expect "$work/ended.txt" 'ended: exit port (exit status 35)'
[ -f "$work/stopped.txt" ] && [ -f "$work/ended.txt" ] || { echo "FAIL: the script's dumps are missing"; failed=1; }
if [ "$status" != 0 ]; then echo "FAIL: x86lab gui exit status $status, expected 0"; failed=1; fi
if [ "$failed" != 0 ]; then
  echo "---- gdb output"; cat "$work/gdb.out"; echo "---- x86lab stderr"; cat "$work/stderr"
  exit 1
fi
echo "PASS"
