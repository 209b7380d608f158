#!/usr/bin/env bash
# The Linux acceptance boot (issue 7): Debian 12's i386 kernel with the busybox
# initramfs of scripts/fetch-linux-guest.sh, on the serial console, must reach /init,
# print uname -a and /proc/cpuinfo, run tls_test with the checksum qemu-i386 gives,
# and stop with `halt -f` (exit status 0 through --exit-on-halt), with no kernel
# BUG/WARNING/Oops/panic/"unchecked MSR"/"unknown CPUID" lines.
# MODE apic (the default, issue 34): the kernel finds the local APIC and the I/O APIC
# through the direct-boot tables, its timer interrupt arrives through the local APIC
# (LOC in /proc/interrupts grows, which /init checks) and the serial port's through the
# I/O APIC. MODE noapic: booted with `noapic nolapic`, everything goes through the 8259
# pair (XT-PIC in /proc/interrupts) and LOC stays 0.
# Skips (exit 77) when the guest files are not in the cache.
# usage: linux_boot.sh X86LAB [LOG] [apic|noapic]
set -u
. "$(dirname "$0")/linux_guest.sh"
linux_guest_start "$1" "${2:-}" initrd.gz
mode=${3:-apic}
case $mode in
  apic) append="console=ttyS0 panic=-1" ;;
  noapic) append="console=ttyS0 panic=-1 noapic nolapic" ;;
  *) echo "linux_boot.sh: MODE must be apic or noapic, not '$mode'" >&2; exit 2 ;;
esac
# Checksum printed by the same tls_test under qemu-i386 (the independent reference).
expected_tls='tls_test: threads=4 main_counter=7 checksum=8d69b2f4'

limit=${X86LAB_LINUX_TIMEOUT:-1500}  # seconds of wall time
"$x86lab" run --kernel "$cache/vmlinuz" --initrd "$cache/initrd.gz" \
  --append "$append" --serial stdio --exit-on-halt </dev/null >"$log" 2>&1 &
pid=$!
# Watchdog: a kernel that gave up (panic, no FPU) idles in HLT forever; stop it early.
waited=0
while kill -0 "$pid" 2>/dev/null; do
  sleep 5
  waited=$((waited + 5))
  if [ "$waited" -ge "$limit" ] || grep -qE 'Kernel panic|Giving up, no FPU' "$log"; then
    kill "$pid" 2>/dev/null
    echo "stopped x86lab after ${waited}s"
    break
  fi
done
wait "$pid"
status=$?
tail -n 40 "$log"
fail=0
check() { grep -qF -- "$1" "$log" || { echo "missing: $1"; fail=1; }; }
check "x86lab-guest: init started"
check "Linux (none) 6.1."
check "flags"
check "$expected_tls"
check "x86lab-guest: halting"
# /proc/interrupts: "  4:   96   IO-APIC   4-edge   ttyS0" or "  4:   96   XT-PIC   ttyS0"
irq_line() { grep -E "^ *$1: +[0-9]+ +" "$log" | grep -F "$2" | head -1; }
if [ "$mode" = apic ]; then
  check "x86lab-guest: local APIC timer interrupts grow"
  grep -qE 'IOAPIC\[0\]: apic_id 1, version 17, address 0xfec00000, GSI 0-23' "$log" ||
    { echo "missing: the kernel's IOAPIC[0] line (the I/O APIC found through the tables)"; fail=1; }
  line=$(irq_line 4 ttyS0)
  case "$line" in
    *IO-APIC*) ;;
    *) echo "ttyS0's interrupt does not come through the I/O APIC: '$line'"; fail=1 ;;
  esac
else
  check "x86lab-guest: local APIC timer interrupts do not grow (0 -> 0)"
  for irq in "0 timer" "4 ttyS0"; do
    line=$(irq_line $irq)
    case "$line" in
      *XT-PIC*) ;;
      *) echo "IRQ ${irq% *} does not come through the 8259: '$line'"; fail=1 ;;
    esac
  done
fi
if grep -nE 'BUG|WARNING|Oops|panic|unchecked MSR|unknown CPUID' "$log" | grep -v 'panic=-1'; then
  echo "the kernel log has BUG/WARNING/Oops/panic/MSR/CPUID lines (above)"
  fail=1
fi
if [ "$status" -ne 0 ]; then echo "x86lab exit status $status (expected 0)"; fail=1; fi
exit $fail
