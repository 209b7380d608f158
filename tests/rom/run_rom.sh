#!/usr/bin/env bash
# Runs one self-checking guest program, a ROM image (x86lab --bios, qemu -bios, Bochs
# romimage) or a Multiboot kernel (x86lab --kernel, qemu -kernel), under x86lab,
# qemu-system-i386 or Bochs, and passes when it printed PASS and left through the exit
# port with 10h (exit status 33). tests/boot/run_kernel.sh runs kernels through this
# script. A peer (qemu, bochs) that differs on a ROM must print exactly the FAIL lines
# that tests/rom/<peer>_differences.txt lists for it.
# usage: run_rom.sh x86lab|qemu|bochs EMULATOR IMAGE [rom|kernel]
set -u
here=$(dirname "$0")
kind=$1 emulator=$2 rom=$3 image=${4:-rom}
case $image in
  rom) x86lab_load=(--bios "$rom") x86lab_limit=50000000 qemu_load=(-serial none -bios "$rom") qemu_seconds=30 ;;
  kernel) x86lab_load=(--kernel "$rom" --serial none) x86lab_limit=200000000
    qemu_load=(-serial null -kernel "$rom") qemu_seconds=60 ;;
  *) echo "unknown image kind $image"; exit 2 ;;
esac
out=$(mktemp)
work=$(mktemp -d)
trap 'rm -rf "$out" "$work"' EXIT
case $kind in
  x86lab)
    "$emulator" run "${x86lab_load[@]}" --debugcon "file:$out" --max-instructions $x86lab_limit
    status=$? ;;
  qemu)
    if [ -z "$emulator" ] || [ ! -x "$emulator" ]; then echo "qemu-system-i386 not installed: skipped"; exit 77; fi
    timeout $qemu_seconds "$emulator" -M pc -cpu pentium3 -m 64 -display none -monitor none -nodefaults \
      "${qemu_load[@]}" -debugcon "file:$out" -device isa-debug-exit,iobase=0xf4,iosize=0x04
    status=$? ;;
  bochs)
    if [ -z "$emulator" ] || [ ! -x "$emulator" ]; then echo "bochs not installed: skipped"; exit 77; fi
    [ "$image" = rom ] || { echo "run_rom.sh: bochs runs ROM images only, not $image"; exit 2; }
    . "$here/bochs_run.sh"
    bochs_run "$emulator" "$rom" "$out" "$work"
    status=$? ;;
  *) echo "unknown kind $kind"; exit 2 ;;
esac
cat "$out"
if [ "$kind" != x86lab ] && [ "$image" = rom ]; then
  name=$(basename "$rom" .bin)
  expected=$(awk -F'\t' -v n="$name" '$1 == n {print $2}' "$here/${kind}_differences.txt")
  if [ -n "$expected" ]; then
    # A ROM may list several lines (ROMs that go on after a failing case): the peer
    # must print exactly that set of FAIL lines, no more and no fewer.
    actual=$(grep '^FAIL' "$out" | sort)
    if [ "$status" -eq 35 ] && [ "$(printf '%s\n' "$expected" | sort)" = "$actual" ]; then
      echo "known $kind difference reproduced:"
      printf '%s\n' "$expected"
      exit 0
    fi
    echo "expected exactly the documented $kind difference(s) (exit 35), got status $status:"
    printf '%s\n' "$expected"
    exit 1
  fi
fi
if [ "$status" -ne 33 ] || ! grep -q '^PASS$' "$out"; then
  echo "$image $rom under $kind: exit status $status (expected 33 and a PASS line)"
  exit 1
fi
