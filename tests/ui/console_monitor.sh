#!/usr/bin/env bash
# The serial console's keys on a terminal (ui/gdb/console_monitor.h): Ctrl-A h prints
# them, Ctrl-A c opens the monitor, whose read-only commands answer while the guest
# waits, Enter resumes the guest, and `quit` stops x86lab as Ctrl-A x does. The
# terminal is a pseudo-terminal from script(1); the guest echoes COM1 until 'q'.
# Usage: console_monitor.sh X86LAB ECHO_KERNEL SPIN_KERNEL
set -u
x86lab=$1
kernel=$2
spin_kernel=$3
out=$(mktemp)
trap 'rm -f "$out"' EXIT
failures=0
expect_text() {
  if ! grep -qF -- "$1" "$out"; then
    echo "FAIL: no '$1' in the console output:"
    cat -v "$out"
    failures=$((failures + 1))
  fi
}
serial=stdio
session() {  # session INPUT EXPECTED_STATUS [KERNEL [DELAY]]: the input comes after DELAY s
  { sleep "${4:-0}"; printf "$1"; } | timeout 30 script -qfec "$x86lab run --kernel ${3:-$kernel} --serial $serial --debugcon none " /dev/null >"$out" 2>&1
  local status=$?
  if [ "$status" != "$2" ]; then
    echo "FAIL: status $status, expected $2, for input '$1':"
    cat -v "$out"
    failures=$((failures + 1))
  fi
}

session 'hello\001h\001cinfo segments\rinfo\tgdt 2 1\r\033[Abogus\rphys 0xFFFFFFF0 32\rinfo idt 300\r\rworld q' 33
expect_text "echo_kernel: type q to quit"
expect_text "Ctrl-A c        the monitor"
expect_text "(x86lab) info segments"
expect_text "cs   0010 base=00000000 limit=FFFFFFFF type=B s=1 dpl=0 p=1 db=1 g=1"
expect_text "   2 0010 00CF9B000000FFFF code base=00000000 limit=FFFFFFFF type=B dpl=0 p=1 db=1 g=1 accessed"
expect_text "unknown command 'bogus' (help lists them)"
expect_text "(16 of the 32 bytes asked for: at most 4096, none past FFFFFFFFh)"
expect_text "entry 300 is beyond the table"
expect_text "world"
expect_text "echo_kernel: bye"

# info lapic / info ioapic: the power-up local APIC (SDM "Local APIC State After
# Power-Up or Reset": IA32_APIC_BASE FEE00900h, SVR FFh, LVT entries masked) and the I/O
# APIC whose ID direct boot sets to 1, as the MP and ACPI tables give it.
session 'hello\001cinfo lapic\rinfo ioapic\r\rworld q' 33
expect_text "(x86lab) info lapic"
expect_text "local APIC id=00 version=00040011 (version 11, max LVT entry 4)"
expect_text "IA32_APIC_BASE=FEE00900 base=FEE00000 enabled bsp"
expect_text "SVR=000000FF software-disabled spurious-vector=FF focus-checking=on"
expect_text "LVT timer   00010000 vector=00 masked one-shot"
expect_text "timer one-shot divide=2 (DCR=0) initial=00000000 current=00000000 stopped"
expect_text "I/O APIC id=1 (IOAPICID=01000000) IOAPICVER=00170011 (version 11, max entry 23)"
expect_text "pin 23 0000000000010000 vector=00 mode=fixed dest=physical:00 active-high edge remote-irr=0 masked"
expect_text "echo_kernel: bye"

# The QEMU-style commands (issue 39): info registers, x and xp with QEMU's /FMT (the
# kernel's first bytes are its Multiboot header: magic 1BADB002h, flags 3, Multiboot
# Specification "The layout of Multiboot header"), info tlb with paging off, and stats
# with a filter (only the I/O port lines: COM1's line status register 3FDh, no opcode lines).
session 'hello\001cinfo registers\rx/4xb 0x100000\rxp/2xw 0x100000\rinfo tlb\rstats io-port\r\rworld q' 33
expect_text "(x86lab) info registers"
expect_text "CS =0010 00000000 FFFFFFFF"
expect_text "00100000: 0x02 0xB0 0xAD 0x1B"
expect_text "00100000: 0x1BADB002 0x00000003"
expect_text "paging is off (CR0.PG=0)"
expect_text "io-port.3fd "
if grep -q "^opcode\." "$out"; then
  echo "FAIL: stats io-port printed other counters:"
  cat -v "$out"
  failures=$((failures + 1))
fi
expect_text "echo_kernel: bye"

session '\001cquit\r' 1
expect_text "stopped on request"

# A guest that never reads COM1 (a hung kernel; the keys come once it spins): the keys
# act all the same.
session '\001cinfo segments\r\r\001x' 1 "$spin_kernel" 1
expect_text "(x86lab) info segments"
expect_text "stopped on request"

# Ctrl-A keys inside the monitor: Ctrl-A Ctrl-A is dropped (no guest to send it to),
# Ctrl-A c resumes the guest, Ctrl-A x stops x86lab.
session '\001cinfo \001\001segments\r\001cworld q' 33
expect_text "cs   0010 base=00000000 limit=FFFFFFFF type=B s=1 dpl=0 p=1 db=1 g=1"
expect_text "echo_kernel: bye"
session '\001cinfo seg\001x' 1
expect_text "stopped on request"

# With --serial stdio into a file (the keys come from the terminal on standard input)
# the monitor and the key help go to that terminal, and the file holds the guest's
# bytes alone. (--serial file:PATH reads no keys: its input is --serial-input's.)
serial_file=$(mktemp)
serial="stdio >$serial_file"
session 'hello\001h\001cinfo segments\r\rworld q' 33
expect_text "Ctrl-A c        the monitor"
expect_text "(x86lab) info segments"
expect_text "cs   0010 base=00000000"
if grep -q "x86lab\|Ctrl-A" "$serial_file" || ! grep -q "echo_kernel: bye" "$serial_file"; then
  echo "FAIL: the serial file is not the guest's output alone:"
  cat -v "$serial_file"
  failures=$((failures + 1))
fi
rm -f "$serial_file"

[ "$failures" = 0 ] && echo PASS
exit $((failures > 0))
