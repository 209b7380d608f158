#!/bin/bash
# The gdb stub survives a hostile client (rsp_abuse_client.cpp): x86lab runs a ROM
# that spins at the reset vector with --gdb on a free port; the client must pass all
# its checks, x86lab must still be serving between them and end with status 1 after
# the client's kill. Every wait is bounded.
# usage: malformed_packets.sh X86LAB CLIENT
set -u
x86lab=$1 client=$2
source "$(dirname "$0")/start_stub.sh"

# 64 KiB ROM: JMP $ (EB FE) at FFFFFFF0h, the reset vector.
head -c 65536 /dev/zero > "$work/spin.rom"
printf '\xeb\xfe' | dd of="$work/spin.rom" bs=1 seek=65520 conv=notrunc status=none

start_stub --bios "$work/spin.rom"

timeout 60 "$client" "$port" || { echo "FAIL: the client failed (status $?)"; cat "$work/stderr"; exit 1; }

wait_stub
if [ "$status" != 1 ]; then echo "FAIL: x86lab exit status $status, expected 1"; cat "$work/stderr"; exit 1; fi
grep -q "killed by gdb" "$work/stderr" || { echo "FAIL: no 'killed by gdb' line"; cat "$work/stderr"; exit 1; }
# The run's end names the request, not only the serial console's Ctrl-A x.
grep -q "stopped on request (Ctrl-A x on the serial console, or gdb's kill)" "$work/stderr" ||
  { echo "FAIL: the run's end does not say it was stopped on request"; cat "$work/stderr"; exit 1; }
echo "PASS"
