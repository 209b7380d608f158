#!/bin/bash
# The system gdb's reverse execution against x86lab's gdb stub (docs/gdb.md "Reverse
# execution") on the Multiboot kernel roms/guest/multiboot/reverse_kernel.c: three
# stepi and a reverse-stepi leave every register as after the second stepi;
# reverse-continue from the third call of bump() stops at the second (counter 1, as
# the source says: 0, 1, 2 before the three increments); reverse-finish goes back to
# the call in kernel_main; a watchpoint on GDT entry 3 going backwards from print()
# stops at the load of DS that set the entry's Accessed bit (00CF9300_0000FFFFh =
# 58426948388454399 before it, 00CF9200_0000FFFFh = 58425848876826623), then at the
# store that wrote its high dword (the label gdt_write_high; 0000FFFFh = 65535 before
# it), then at the low dword's (gdt_write_low; 0 before it); x86lab's own stops,
# a load of selector 18h and a write into GDT entry 3, stop backwards at load_ds_insn
# and gdt_write_high; with nothing left, gdb says it reached the start of the history
# at _start; forward again, the kernel leaves with exit port value 10h (status 33,
# octal 041).
# usage: reverse_session.sh X86LAB KERNEL GDB COMMANDS
set -u
x86lab=$1 kernel=$2 gdb=$3 commands=$4
if [ ! -x "$gdb" ]; then echo "SKIP: no gdb"; exit 77; fi
source "$(dirname "$0")/start_stub.sh"
start_stub --kernel "$kernel" --wait-gdb --debugcon "file:$work/console"
run_gdb_batch "$commands"
# The lines between ==NAME== and the next ==...== marker.
block() { awk -v name="==$1==" '$0 == name {on = 1; next} /^==.*==$/ {on = 0} on' "$work/gdb.out"; }
eip_of() { block "$1" | awk '$1 == "eip" {print $2}'; }

second=$(block second-stepi) back=$(block after-reverse-stepi)
if [ -z "$second" ] || [ "$second" != "$back" ]; then
  echo "FAIL: registers after reverse-stepi differ from those after the second stepi"
  diff <(echo "$second") <(echo "$back")
  failed=1
else
  echo "ok: registers after reverse-stepi equal those after the second stepi ($(echo "$second" | wc -l) lines)"
fi
third=$(eip_of third-stepi)
if [ -z "$third" ] || [ "$third" = "$(echo "$second" | awk '$1 == "eip" {print $2}')" ]; then
  echo "FAIL: the third stepi did not move eip ($third)"; failed=1
fi
expect 'Breakpoint 1, bump () at'
block at-bump-3 | grep -qx '\$1 = 2' || { echo "FAIL: counter at the third bump is not 2"; failed=1; }
block reverse-continue-bump | grep -qx '\$2 = 1' || { echo "FAIL: counter after reverse-continue is not 1"; failed=1; }
block reverse-finish | grep -q 'call .*<bump>' || { echo "FAIL: reverse-finish did not stop at the call of bump"; failed=1; }
expect 'Hardware watchpoint 3: *(long long *)&gdt[3]'
at() {  # at BLOCK LABEL: the stop before marker BLOCK is at LABEL (the block compares $pc with it)
  block "$1" | grep -q '^\$[0-9]* = 1$' || { echo "FAIL: the stop before ==$1== is not at $2"; failed=1; }
}
# Backwards from print(): the load of DS set the Accessed bit of entry 3 (SDM Vol. 3
# "Segment Descriptors": type 2 -> 3), then the high and the low dword's stores.
expect 'Old value = 58426948388454399'
expect 'New value = 58425848876826623'
at reverse-watch-1 load_ds_insn
expect 'Old value = 58425848876826623'
expect 'New value = 65535'
at reverse-watch-2 gdt_write_high
expect 'Old value = 65535'
expect 'New value = 0'
at reverse-watch-3 gdt_write_low
at forward-selector 'load_ds_insn + 2 (after mov ds, ax: 8E D8)'
at reverse-selector load_ds_insn
at reverse-descriptor-write gdt_write_high
expect 'history: steps 0 to '
expect 'No more reverse-execution history.'
block history-begin | grep -q '<_start>' || { echo "FAIL: the start of the history is not at _start"; failed=1; }
expect 'exited with code 041'
if [ "$status" != 33 ]; then echo "FAIL: x86lab exit status $status, expected 33"; failed=1; fi
if [ "$failed" != 0 ]; then
  echo "---- gdb output"; cat "$work/gdb.out"; echo "---- x86lab stderr"; cat "$work/stderr"
  exit 1
fi
echo "PASS"
