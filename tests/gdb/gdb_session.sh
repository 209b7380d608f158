#!/bin/bash
# The system gdb against x86lab's gdb stub (docs/gdb.md) on the Multiboot kernel with
# symbols (roms/guest/multiboot/gdb_kernel.c): breakpoints at symbols, continue, a
# hardware watchpoint with its old and new value, memory and register writes, stepi,
# finish, monitor commands, an event breakpoint created by a monitor command, and the
# machine's exit through the exit port as gdb's "exited with code". Every expected
# value follows from the kernel's source: counter 0, 1 at the first two bumps; the
# watchpoint sees 1 -> 2; counter set to 40 makes bump write 41 and add_twice(41, 5)
# return 51, so the kernel reports FAIL: exit port value 11h, status (11h << 1) | 1 = 35
# (octal 043 in gdb's message).
# usage: gdb_session.sh X86LAB KERNEL GDB COMMANDS
set -u
x86lab=$1 kernel=$2 gdb=$3 commands=$4
if [ ! -x "$gdb" ]; then echo "SKIP: no gdb"; exit 77; fi
source "$(dirname "$0")/start_stub.sh"
start_stub --kernel "$kernel" --wait-gdb --debugcon "file:$work/console"
run_gdb_batch "$commands"
expect 'eip            0x1000ef            0x1000ef <_start>'
expect 'Breakpoint 1, bump () at'
expect '$1 = 0'
expect '$2 = 1'
expect 'Hardware watchpoint 2: counter'
expect 'Old value = 1'
expect 'New value = 2'
expect '$3 = 40'
expect '<counter>:	0x28	0x00	0x00	0x00'
expect '$4 = 0x1234'
expect 'cs   0010 base=00000000 limit=FFFFFFFF type=B s=1 dpl=0 p=1 db=1 g=1'
expect 'gdtr base='
expect 'Breakpoint 3, add_twice (a=41, b=5) at'
expect '$5 = 41'
expect 'Value returned is $6 = 51'
expect 'break on io access port 00E9'
expect 'x86lab: event breakpoint 7 (io) write port 00E9h value 64h'
expect 'Program received signal SIGTRAP'
expect 'exited with code 043'
if [ "$status" != 35 ]; then echo "FAIL: x86lab exit status $status, expected 35"; failed=1; fi
grep -q '^done$' "$work/console" || { echo "FAIL: no 'done' on the debug console"; failed=1; }
if [ "$failed" != 0 ]; then
  echo "---- gdb output"; cat "$work/gdb.out"; echo "---- x86lab stderr"; cat "$work/stderr"
  exit 1
fi
echo "PASS"
