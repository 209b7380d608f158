#!/bin/bash
# The system gdb's reverse-next and reverse-step against x86lab's gdb stub (docs/gdb.md
# "Reverse execution") on roms/guest/multiboot/reverse_kernel.c, under `x86lab run --gdb`
# or, offscreen, under the inspector (`x86lab gui --gdb`, MODE gui): stopped at line 59
# (print("done\n")), reverse-next steps back over the call on line 58 (load_ds(0x18)) to
# that line, and again over set_entry() to line 57; next twice comes back to line 59;
# reverse-step from there enters load_ds (selector 18h = 24) at its last line; two
# stepi and two reverse-stepi leave every register as before them.
# usage: reverse_next_step.sh X86LAB KERNEL GDB COMMANDS run|gui
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
  start_stub --kernel "$kernel" --wait-gdb --debugcon "file:$work/console"
fi
run_gdb_batch "$commands"
block() { awk -v name="==$1==" '$0 == name {on = 1; next} /^==.*==$/ {on = 0} on' "$work/gdb.out"; }
failed=0
check() {  # BLOCK TEXT: the frame shown after ==BLOCK== has TEXT
  if block "$1" | grep -qF -- "$2"; then echo "ok: $1: $2"; else echo "FAIL: $1 lacks '$2':"; block "$1"; failed=1; fi
}
check at-print 'print("done\n");'
check reverse-next-1 'kernel_main () at'
check reverse-next-1 'load_ds(0x18);'
check reverse-next-2 'set_entry(&gdt[3]'
check next-2 'print("done\n");'
check reverse-step 'load_ds (selector=24) at'
before=$(block before-stepi) back=$(block after-reverse-stepi)
if [ -z "$before" ] || [ "$before" != "$back" ]; then
  echo "FAIL: registers after two stepi and two reverse-stepi differ from those before"
  diff <(echo "$before") <(echo "$back")
  failed=1
else
  echo "ok: two stepi and two reverse-stepi leave the registers as they were ($(echo "$before" | wc -l) lines)"
fi
block after-stepi | grep -q '^eip' || { echo "FAIL: no eip after the stepi"; failed=1; }
[ "$(block after-stepi | awk '{print $2}')" != "$(echo "$before" | awk '$1 == "eip" {print $2}')" ] ||
  { echo "FAIL: stepi did not move eip"; failed=1; }
if [ "$failed" != 0 ]; then
  echo "---- gdb output ----"; cat "$work/gdb.out"; echo "---- x86lab stderr ----"; cat "$work/stderr"
  exit 1
fi
echo "reverse-next and reverse-step: all as expected ($mode)"
