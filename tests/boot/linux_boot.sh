#!/usr/bin/env bash
# The Linux acceptance boot (issue 7): Debian 12's i386 kernel with the busybox
# initramfs of scripts/fetch-linux-guest.sh, on the serial console, must reach /init,
# print uname -a and /proc/cpuinfo, run tls_test with the checksum qemu-i386 gives,
# and stop with `halt -f` (exit status 0 through --exit-on-halt), with no kernel
# BUG/WARNING/Oops/panic/"unchecked MSR"/"unknown CPUID" lines.
# Skips (exit 77) when the guest files are not in the cache.
# usage: linux_boot.sh X86LAB [LOG]
set -u
. "$(dirname "$0")/linux_guest.sh"
linux_guest_start "$1" "${2:-}" initrd.gz
# Checksum printed by the same tls_test under qemu-i386 (the independent reference).
expected_tls='tls_test: threads=4 main_counter=7 checksum=8d69b2f4'

limit=${X86LAB_LINUX_TIMEOUT:-1500}  # seconds of wall time
"$x86lab" run --kernel "$cache/vmlinuz" --initrd "$cache/initrd.gz" \
  --append "console=ttyS0 panic=-1" --serial stdio --exit-on-halt </dev/null >"$log" 2>&1 &
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
if grep -nE 'BUG|WARNING|Oops|panic|unchecked MSR|unknown CPUID' "$log" | grep -v 'panic=-1'; then
  echo "the kernel log has BUG/WARNING/Oops/panic/MSR/CPUID lines (above)"
  fail=1
fi
if [ "$status" -ne 0 ]; then echo "x86lab exit status $status (expected 0)"; fail=1; fi
exit $fail
