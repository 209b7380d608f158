#!/bin/bash
# gdb's `monitor break-on phys ADDR LEN w` and `monitor break-on watch ...` stop the
# machine, under `x86lab run --gdb` and, offscreen, `x86lab gui --gdb` (MODE gui), on
# roms/guest/multiboot/gdb_kernel.c: bump() writes counter 1, 2, 3; the physical watch
# stops after the first two writes (counter 1, then 2), the linear one after the third
# (3), and with the watches cleared the kernel ends with PASS (exit port 10h, gdb's
# "exited with code 041"). Issue 39: monitor watchpoints were reported to gdb as its own
# access watchpoints, which gdb does not have, so it resumed silently and never stopped.
# usage: monitor_watch.sh X86LAB KERNEL GDB COMMANDS run|gui
set -u
x86lab=$1 kernel=$2 gdb=$3 commands=$4 mode=$5
if [ ! -x "$gdb" ]; then echo "SKIP: no gdb"; exit 77; fi
if [ "$mode" = gui ]; then
  export SDL_VIDEODRIVER=offscreen
  command=gui
fi
source "$(dirname "$0")/start_stub.sh"
if [ "$mode" = gui ]; then
  printf 'quit\n' > "$work/inspector.script"  # after gdb's session
  start_stub --kernel "$kernel" --wait-gdb --script "$work/inspector.script" --size 1280x800
else
  start_stub --kernel "$kernel" --wait-gdb
fi
run_gdb_batch "$commands"
block() { awk -v name="==$1==" '$0 == name {on = 1; next} /^==.*==$/ {on = 0} on' "$work/gdb.out"; }
check() {  # BLOCK TEXT: the block after ==BLOCK== has TEXT
  if block "$1" | grep -qF -- "$2"; then echo "ok: $1: $2"; else echo "FAIL: $1 lacks '$2'"; failed=1; fi
}
check phys-1 '$1 = 1'
check phys-2 '$2 = 2'
check linear-3 '$3 = 3'
expect 'x86lab: event breakpoint 1 (watch) write'
expect 'x86lab: event breakpoint 2 (watch) write'
expect 'exited with code 041'
if [ "$failed" != 0 ]; then
  echo "---- gdb output ----"; cat "$work/gdb.out"; echo "---- x86lab stderr ----"; cat "$work/stderr"
  exit 1
fi
echo "monitor watchpoints: all as expected ($mode)"
