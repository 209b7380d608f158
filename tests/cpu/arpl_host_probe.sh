#!/usr/bin/env bash
# The host CPU as the witness for ARPL on a read-only data segment (tests/cpu/arpl_test.cpp
# asserts the same on x86lab): roms/guest/host_probes/arpl_read_only runs ARPL in a
# 32-bit process with its destination in a read-only LDT segment. Passes when ARPL
# that has nothing to write takes no fault while ARPL that must write and a plain MOV
# both fault (SIGSEGV, the kernel's signal for #GP). Exits 77 (a ctest skip) where the
# probe cannot run: not built (not an x86 Linux host), no 32-bit execution, or
# modify_ldt refused.
# usage: arpl_host_probe.sh PROBE
set -u
probe=$1
if [ ! -x "$probe" ]; then echo "$probe not built (x86 Linux hosts only): skipped"; exit 77; fi
run() { "$probe" "$@" 2>/dev/null; echo $?; }
equal=$(run) raise=$(run a) plain=$(run a b)
echo "host: $(grep -m1 '^model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2-)"
echo "ARPL with nothing to write: status $equal; ARPL that writes: $raise; MOV: $plain (139 = SIGSEGV)"
case $equal in
  77) echo "the kernel refused the LDT entry (modify_ldt): skipped"; exit 77 ;;
  126|127) echo "the host cannot run 32-bit programs: skipped"; exit 77 ;;
esac
if [ "$plain" -ne 139 ]; then echo "a MOV to the read-only segment did not fault: the probe is broken"; exit 1; fi
if [ "$raise" -ne 139 ]; then echo "ARPL that writes to a read-only segment did not fault"; exit 1; fi
if [ "$equal" -ne 0 ]; then echo "ARPL with nothing to write faulted on this host"; exit 1; fi
echo "this host: ARPL faults only when it has to write"
