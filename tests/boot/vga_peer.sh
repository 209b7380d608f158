#!/usr/bin/env bash
# Boots roms/guest/multiboot/vga_kernel.elf with `screen=SCREEN` under x86lab and under
# qemu-system-i386 -vga std, takes each one's screendump once the kernel has printed
# "vga_kernel: ready" (x86lab: --screendump at its exit; QEMU: the monitor's
# screendump, the kernel then halting because QEMU has no exit port here), and passes
# when the two pictures agree pixel for pixel: the same size, and every pixel's
# components equal in their top 6 bits. (The VGA's DAC holds 6 bits a component; each
# emulator widens them to 8 bits its own way, so the low 2 bits say nothing about the
# VGA.) The DISPI 32-bpp screen (vbe) has 8-bit components from video memory, not the
# DAC: there all 8 bits must be equal.
# Leaves x86lab.png, x86lab.ppm and qemu.ppm in WORKDIR to look at.
# usage: vga_peer.sh X86LAB QEMU KERNEL SCREEN WORKDIR
set -u
x86lab=$1 qemu=$2 kernel=$3 screen=$4 work=$5
if [ -z "$qemu" ] || [ ! -x "$qemu" ]; then echo "qemu-system-i386 not installed: skipped"; exit 77; fi
rm -rf "$work" && mkdir -p "$work" || exit 1

"$x86lab" run --kernel "$kernel" --append "screen=$screen" --serial none --debugcon "file:$work/x86lab.out" \
  --max-instructions 400000000 --screendump "$work/x86lab.ppm" --no-progress
status=$?
[ "$status" -eq 33 ] || { echo "x86lab: exit status $status (expected 33)"; cat "$work/x86lab.out"; exit 1; }
"$x86lab" run --kernel "$kernel" --append "screen=$screen" --serial none --debugcon none \
  --max-instructions 400000000 --screendump "$work/x86lab.png" --no-progress >/dev/null

timeout 60 "$qemu" -M pc -cpu pentium3 -m 64 -nodefaults -vga std -display none -serial null \
  -kernel "$kernel" -append "screen=$screen" -debugcon "file:$work/qemu.out" \
  -monitor "unix:$work/monitor,server,nowait" &
qemu_pid=$!
for _ in $(seq 300); do
  grep -q "vga_kernel: ready" "$work/qemu.out" 2>/dev/null && break
  sleep 0.1
done
if ! grep -q "vga_kernel: ready" "$work/qemu.out" 2>/dev/null; then
  kill "$qemu_pid" 2>/dev/null; echo "qemu: the kernel never got ready"; exit 1
fi
python3 - "$work/monitor" "$work/qemu.ppm" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(("screendump %s\n" % sys.argv[2]).encode())
time.sleep(1)
s.sendall(b"quit\n")
time.sleep(0.3)
PY
wait "$qemu_pid"

bits=6
[ "$screen" = vbe ] && bits=8
python3 - "$work/x86lab.ppm" "$work/qemu.ppm" "$bits" <<'PY'
import sys
def ppm(path):
    data = open(path, "rb").read()
    fields, at = [], 0
    while len(fields) < 4:
        while data[at:at+1].isspace(): at += 1
        start = at
        while not data[at:at+1].isspace(): at += 1
        fields.append(data[start:at])
    assert fields[0] == b"P6" and fields[3] == b"255", path
    return int(fields[1]), int(fields[2]), data[at+1:]
w1, h1, a = ppm(sys.argv[1])
w2, h2, b = ppm(sys.argv[2])
shift = 8 - int(sys.argv[3])
print("x86lab %dx%d, qemu %dx%d; comparing the top %s bits of each component" % (w1, h1, w2, h2, sys.argv[3]))
if (w1, h1) != (w2, h2):
    sys.exit("the screens differ in size")
bad = [i for i in range(w1 * h1) if any((a[3*i+c] >> shift) != (b[3*i+c] >> shift) for c in range(3))]
for i in bad[:8]:
    print("pixel (%d, %d): x86lab %s, qemu %s" % (i % w1, i // w1, tuple(a[3*i:3*i+3]), tuple(b[3*i:3*i+3])))
print("%d of %d pixels differ" % (len(bad), w1 * h1))
sys.exit(1 if bad else 0)
PY
