#!/usr/bin/env bash
# Runs roms/guest/multiboot/ata_kernel.elf with a disk image and an ISO built here (the
# disk: 8192 sectors, every dword of sector n holding n; the ISO: xorriso, volume
# X86LAB_ATA) under x86lab (--hda, --cdrom) or qemu-system-i386 (-drive ... if=ide), and
# passes when the kernel printed PASS and left with exit status 33, and, after the
# emulator exited, the host reads the sectors the guest wrote from the image file.
# With `qemu` and an x86lab binary as fourth argument, x86lab runs the kernel too and
# its "ok"/"FAIL" lines must equal QEMU's (the DMA lines are left out when x86lab has
# no PCI bus yet and said so).
# usage: ata_kernel.sh x86lab|qemu EMULATOR KERNEL [X86LAB]
set -u
kind=$1 emulator=$2 kernel=$3 x86lab=${4:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

make_images() {
  mkdir -p "$1/iso"
  python3 - "$1/disk.img" <<'PY' || exit 1
import struct, sys
with open(sys.argv[1], "wb") as f:
    for n in range(8192):
        f.write(struct.pack("<I", n) * 128)
PY
  echo "x86lab ATAPI test" > "$1/iso/readme.txt"
  if ! xorriso -as mkisofs -quiet -V X86LAB_ATA -o "$1/cd.iso" "$1/iso" >/dev/null 2>&1; then
    echo "xorriso failed or is not installed: skipped"; exit 77
  fi
}

# The guest's writes, read from the file: sector 200 (PIO), 5001 (LBA48) and, when the
# DMA checks ran, sector 500.
check_disk() {  # DIR OUTPUT
  local dma=1
  grep -q '^info no PIIX3' "$2" && dma=0
  python3 - "$1/disk.img" "$dma" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
def word(sector, i): return struct.unpack_from("<H", data, sector * 512 + 2 * i)[0]
def dword(sector, i): return struct.unpack_from("<I", data, sector * 512 + 4 * i)[0]
bad = []
if [word(200, i) for i in range(256)] != [0xA500 + i for i in range(256)]: bad.append("sector 200")
if [dword(5001, i) for i in range(128)] != [0xC0DE0000 + i for i in range(128)]: bad.append("sector 5001")
if sys.argv[2] == "1" and list(data[500 * 512:501 * 512]) != [(0x5A ^ i) & 0xFF for i in range(512)]: bad.append("sector 500")
if dword(199, 0) != 199 or dword(201, 0) != 201: bad.append("a neighbour of sector 200")
if bad:
    print("the image file does not hold the guest's writes: " + ", ".join(bad)); sys.exit(1)
print("the image file holds the guest's writes")
PY
}

run() {  # KIND EMULATOR DIR OUTPUT
  local dir=$3 out=$4
  make_images "$dir"
  case $1 in
    x86lab)
      "$2" run --kernel "$kernel" --serial none --hda "$dir/disk.img" --cdrom "$dir/cd.iso" --debugcon "file:$out" \
        --max-instructions 400000000 ;;
    qemu)
      timeout 60 "$2" -M pc -cpu pentium3 -m 64 -display none -monitor none -nodefaults -serial null -kernel "$kernel" \
        -drive "file=$dir/disk.img,format=raw,if=ide,index=0" -drive "file=$dir/cd.iso,format=raw,if=ide,index=2,media=cdrom" \
        -debugcon "file:$out" -device isa-debug-exit,iobase=0xf4,iosize=0x04 ;;
  esac
}

if [ "$kind" = qemu ] && { [ -z "$emulator" ] || [ ! -x "$emulator" ]; }; then
  echo "qemu-system-i386 not installed: skipped"; exit 77
fi
mkdir -p "$work/a"
run "$kind" "$emulator" "$work/a" "$work/a.out"
status=$?
cat "$work/a.out"
if [ "$status" -ne 33 ] || ! grep -q '^PASS$' "$work/a.out"; then
  echo "ata_kernel under $kind: exit status $status (expected 33 and a PASS line)"; exit 1
fi
check_disk "$work/a" "$work/a.out" || exit 1
if [ "$kind" = qemu ] && [ -n "$x86lab" ]; then
  mkdir -p "$work/b"
  run x86lab "$x86lab" "$work/b" "$work/b.out"
  filter='^(ok|FAIL)'
  grep -Eq '^info no PIIX3' "$work/b.out" && filter_dma='DMA' || filter_dma='^$'
  if ! diff <(grep -E "$filter" "$work/a.out" | grep -v "$filter_dma") <(grep -E "$filter" "$work/b.out" | grep -v "$filter_dma"); then
    echo "x86lab's checks differ from QEMU's (< QEMU, > x86lab)"; exit 1
  fi
  echo "x86lab printed the same checks as QEMU"
fi
