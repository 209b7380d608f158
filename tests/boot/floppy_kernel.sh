#!/usr/bin/env bash
# Boots roms/guest/multiboot/floppy_kernel.elf with a 1.44 MB FAT12 floppy in drive A:
# built here with mkfs.fat and mcopy (the file BLOCKS.BIN: 32 blocks of 512 bytes,
# block k = "BLK" k then (k + i) & FFh), under x86lab (--fda) or qemu-system-i386
# (-fda). Passes when the kernel printed PASS and exited with 10h (status 33), and the
# sector it wrote (LBA 58, block 25) starts with "WRITTEN!" in the image file. The
# qemu kind also runs x86lab and requires the same report lines from both, except
# that QEMU must fail exactly the checks floppy_qemu_differences.txt lists (QEMU 7.2
# ends a read at EOT without TC normally; docs/qemu-differences.md), which pass on
# x86lab.
# The snapshot kind saves the machine at two points of the run (--save-snapshot; one
# in the middle of a read, one after the write) and continues each from its file with
# a fresh copy of the image: the lines and the final image must be those of one run.
# usage: floppy_kernel.sh x86lab|snapshot X86LAB KERNEL | floppy_kernel.sh qemu QEMU KERNEL X86LAB
set -u
kind=$1 emulator=$2 kernel=$3 x86lab=${4:-}
for tool in mkfs.fat mcopy; do
  command -v $tool >/dev/null || { echo "$tool not installed (dosfstools, mtools): skipped"; exit 77; }
done
if [ "$kind" = qemu ] && { [ -z "$emulator" ] || [ ! -x "$emulator" ]; }; then
  echo "qemu-system-i386 not installed: skipped"; exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
make_image() {  # $1: image path
  python3 - "$work/BLOCKS.BIN" <<'PY'
import sys
with open(sys.argv[1], "wb") as f:
    for k in range(32):
        f.write(b"BLK" + bytes([k]) + bytes((k + i) & 0xFF for i in range(4, 512)))
PY
  mkfs.fat -C -n FLOPPYTEST -i 12345678 "$1" 1440 >/dev/null || return 1
  MTOOLS_SKIP_CHECK=1 mcopy -i "$1" "$work/BLOCKS.BIN" ::BLOCKS.BIN || return 1
  # The kernel's layout assumption: the file's first cluster is LBA 33.
  [ "$(dd if="$1" bs=512 skip=33 count=1 2>/dev/null | head -c 3)" = BLK ] || { echo "unexpected image layout"; return 1; }
}
run_x86lab() {  # $1: x86lab, $2: image, $3: output file
  "$1" run --kernel "$kernel" --fda "$2" --serial none --debugcon "file:$3" --max-instructions 400000000
}
run_qemu() {
  timeout 60 "$emulator" -M pc -cpu pentium3 -m 64 -display none -monitor none -nodefaults -serial null \
    -kernel "$kernel" -drive "file=$2,if=floppy,format=raw,index=0" -debugcon "file:$3" \
    -device isa-debug-exit,iobase=0xf4,iosize=0x04
}
check_written() {  # $1: name, $2: image
  if [ "$(dd if="$2" bs=512 skip=58 count=1 2>/dev/null | head -c 8)" != 'WRITTEN!' ]; then
    echo "$1: the written sector did not reach the image file"; return 1
  fi
}
check_run() {  # $1: name, $2: status, $3: output, $4: image
  cat "$3"
  if [ "$2" -ne 33 ] || ! grep -q '^PASS$' "$3"; then echo "$1: exit status $2 (expected 33 and a PASS line)"; return 1; fi
  check_written "$1" "$4"
}
make_image "$work/a.img" || exit 1
case $kind in
  x86lab)
    run_x86lab "$emulator" "$work/a.img" "$work/out"; status=$?
    check_run x86lab $status "$work/out" "$work/a.img" || exit 1 ;;
  qemu)
    differences=$(dirname "$0")/floppy_qemu_differences.txt
    run_qemu "$emulator" "$work/a.img" "$work/qemu.out"; status=$?
    cat "$work/qemu.out"
    if [ $status -ne 35 ] || [ "$(grep '^FAIL ' "$work/qemu.out" | sort)" != "$(sort "$differences")" ]; then
      echo "qemu: expected exactly the FAIL lines of $differences and exit status 35, got status $status"; exit 1
    fi
    check_written qemu "$work/a.img" || exit 1
    make_image "$work/b.img" || exit 1
    run_x86lab "$x86lab" "$work/b.img" "$work/x86lab.out"; status=$?
    check_run x86lab $status "$work/x86lab.out" "$work/b.img" >/dev/null || { cat "$work/x86lab.out"; exit 1; }
    # QEMU's documented FAIL lines as the checks they are ("ok NAME"), the verdict dropped.
    sed -E 's/^FAIL ([^:]*): got .*/ok \1/' "$work/qemu.out" | grep -v -x -e PASS -e FAIL > "$work/qemu.lines"
    grep -v -x -e PASS -e FAIL "$work/x86lab.out" > "$work/x86lab.lines"
    if ! diff "$work/qemu.lines" "$work/x86lab.lines"; then echo "x86lab and QEMU printed different lines (< qemu, > x86lab)"; exit 1; fi
    echo "x86lab printed the same lines, and QEMU only its documented differences" ;;
  snapshot)
    cp "$work/a.img" "$work/fresh.img"
    run_x86lab "$emulator" "$work/a.img" "$work/full.out"; status=$?
    check_run x86lab $status "$work/full.out" "$work/a.img" >/dev/null || { cat "$work/full.out"; exit 1; }
    for steps in 60000 120000; do
      rm -f "$work/s.snap"
      cp "$work/fresh.img" "$work/part.img"
      cp "$work/fresh.img" "$work/continued.img"
      "$emulator" run --kernel "$kernel" --fda "$work/part.img" --serial none --debugcon "file:$work/part1.out" \
        --max-instructions $steps --save-snapshot "$work/s.snap" 2>/dev/null
      [ -s "$work/s.snap" ] || { echo "no snapshot saved at step $steps"; exit 1; }
      "$emulator" run --load-snapshot "$work/s.snap" --fda "$work/continued.img" --serial none \
        --debugcon "file:$work/part2.out" --max-instructions 400000000
      status=$?
      cat "$work/part1.out" "$work/part2.out" > "$work/joined.out"
      if [ $status -ne 33 ] || ! cmp -s "$work/joined.out" "$work/full.out"; then
        diff "$work/full.out" "$work/joined.out"; echo "continued from step $steps: status $status, other lines"; exit 1
      fi
      cmp "$work/continued.img" "$work/a.img" || { echo "continued from step $steps: another image"; exit 1; }
      echo "continued from step $steps: the same lines and image"
    done ;;
  *) echo "unknown kind $kind"; exit 2 ;;
esac
