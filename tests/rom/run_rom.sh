#!/usr/bin/env bash
# Runs one self-checking ROM under x86lab or qemu-system-i386 and passes when it
# printed PASS and left through the exit port with 10h (exit status 33).
# usage: run_rom.sh x86lab|qemu EMULATOR ROM
set -u
kind=$1 emulator=$2 rom=$3
out=$(mktemp)
trap 'rm -f "$out"' EXIT
case $kind in
  x86lab)
    "$emulator" run --bios "$rom" --debugcon "file:$out" --max-instructions 50000000
    status=$? ;;
  qemu)
    if [ -z "$emulator" ] || [ ! -x "$emulator" ]; then echo "qemu-system-i386 not installed: skipped"; exit 77; fi
    timeout 30 "$emulator" -M pc -cpu pentium3 -m 64 -display none -monitor none -serial none -nodefaults \
      -bios "$rom" -debugcon "file:$out" -device isa-debug-exit,iobase=0xf4,iosize=0x04
    status=$? ;;
  *) echo "unknown kind $kind"; exit 2 ;;
esac
cat "$out"
if [ "$kind" = qemu ]; then
  name=$(basename "$rom" .bin)
  expected=$(awk -F'\t' -v n="$name" '$1 == n {print $2}' "$(dirname "$0")/qemu_differences.txt")
  if [ -n "$expected" ]; then
    # A ROM may list several lines (ROMs that go on after a failing case): QEMU must
    # print exactly that set of FAIL lines, no more and no fewer.
    actual=$(grep '^FAIL' "$out" | sort)
    if [ "$status" -eq 35 ] && [ "$(printf '%s\n' "$expected" | sort)" = "$actual" ]; then
      echo "known QEMU difference reproduced:"
      printf '%s\n' "$expected"
      exit 0
    fi
    echo "expected exactly the documented QEMU difference(s) (exit 35), got status $status:"
    printf '%s\n' "$expected"
    exit 1
  fi
fi
if [ "$status" -ne 33 ] || ! grep -q '^PASS$' "$out"; then
  echo "ROM $rom under $kind: exit status $status (expected 33 and a PASS line)"
  exit 1
fi
