#!/usr/bin/env bash
# Boots one Multiboot test kernel under x86lab (--kernel) or qemu-system-i386
# (-kernel) and passes when it printed PASS and left through the exit port with 10h
# (exit status 33). usage: run_kernel.sh x86lab|qemu EMULATOR KERNEL
set -u
kind=$1 emulator=$2 kernel=$3
out=$(mktemp)
trap 'rm -f "$out"' EXIT
case $kind in
  x86lab)
    "$emulator" run --kernel "$kernel" --debugcon "file:$out" --serial none --max-instructions 200000000
    status=$? ;;
  qemu)
    if [ -z "$emulator" ] || [ ! -x "$emulator" ]; then echo "qemu-system-i386 not installed: skipped"; exit 77; fi
    timeout 60 "$emulator" -M pc -cpu pentium3 -m 64 -display none -monitor none -serial null -nodefaults \
      -kernel "$kernel" -debugcon "file:$out" -device isa-debug-exit,iobase=0xf4,iosize=0x04
    status=$? ;;
  *) echo "unknown kind $kind"; exit 2 ;;
esac
cat "$out"
if [ "$status" -ne 33 ] || ! grep -q '^PASS$' "$out"; then
  echo "kernel $kernel under $kind: exit status $status (expected 33 and a PASS line)"
  exit 1
fi
