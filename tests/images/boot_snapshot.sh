#!/usr/bin/env bash
# Issue 35: "Snapshot in the middle of the disk-writing guest, continue: the image and the
# serial output equal the uninterrupted run's." disk.img (scripts/make-boot-images.sh)
# boots under x86lab through SeaBIOS; its first boot writes /proof.txt, syncs and
# reboots, the second reads it and powers off (tests/images/boot_image.sh, "disk").
#   full       the uninterrupted run, on its own copy of the image
#   saved      the same run stopped after step N (--max-instructions N --save-snapshot),
#              N in the first boot's writing of /proof.txt (checked below: its COM1
#              output has the first boot's busybox line and not the line written after
#              the sync)
#   continued  a fresh x86lab with --load-snapshot on a copy of the image as the saving
#              run opened it (loading writes the snapshot's changed sectors into it)
# The saved and continued runs' COM1 output together, and the continued run's image,
# must equal the full run's, byte for byte; debugfs then reads /proof.txt from it.
# The step N: the full run's I/O trace names the instruction at which the guest, after
# printing its first busybox line on COM1, issues its first ATA write command (WRITE DMA
# and the like, to port 1F7h): the sync of /proof.txt. --max-instructions counts steps
# (instructions plus interrupt deliveries and REP batches), so a first saving run at that
# instruction's number tells how many steps ran ahead of the instructions there, and the
# second saving run stops at the write command itself.
# Exit status 77 (skipped) when x86lab, the image, SeaBIOS or debugfs is missing.
# usage: boot_snapshot.sh X86LAB IMAGES-DIR
set -u
x86lab=$1 images=$2
root_offset=$((26624 * 512))  # partition 1 of disk.img (as boot_image.sh)
limit=40000000000             # steps: far beyond the two boots' end (ACPI power off)
PATH=$PATH:/usr/sbin:/sbin    # debugfs
skip() { echo "skipped: $*"; exit 77; }
[ -x "$x86lab" ] || skip "no x86lab ('$x86lab')"
[ -s "$images/disk.img" ] || skip "no $images/disk.img (the fixture images.disk skipped it; scripts/make-boot-images.sh)"
[ -s /usr/share/seabios/bios-256k.bin ] || skip "no /usr/share/seabios/bios-256k.bin (package seabios)"
command -v debugfs >/dev/null || skip "no debugfs (package e2fsprogs)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

run() {  # NAME ARGS...
  local name=$1
  shift
  "$x86lab" run --memory 256 "$@" --hda "$work/$name.img" --serial "file:$work/$name.ser" --debugcon none \
    --no-progress --max-instructions "$limit" 2>"$work/$name.err"
  echo $? >"$work/$name.status"
  echo "$name: exit status $(cat "$work/$name.status"); $(tail -n 1 "$work/$name.err")"
}
start=$SECONDS
for name in full saved continued; do cp "$images/disk.img" "$work/$name.img"; done
mkfifo "$work/trace"
# The instruction of the first ATA write command after COM1 showed the busybox line.
awk 'BEGIN { for (i = 32; i < 127; i++) char[sprintf("%02x", i)] = sprintf("%c", i) }
     /io out port=03f8 size=1 /{ v = $0; sub(/.*value=/, "", v); sub(/ .*/, "", v); text = text char[v]
       if (length(text) > 100) text = substr(text, length(text) - 99); if (index(text, "busybox md5")) armed = 1 }
     armed && /io out port=01f7 size=1 value=(ca|35|30|34|c5|39|3d) /{ if (!done) { sub(/^#/, "", $1); print $1; fflush(); done = 1 } }' \
  "$work/trace" >"$work/write.insn" &
run full --trace "text:$work/trace" --trace-filter io
wait
grep -qaF "x86lab-image: powering off" "$work/full.ser" || { echo "the uninterrupted run did not finish:"; tail -n 20 "$work/full.ser"; exit 1; }
insn=$(cat "$work/write.insn")
[ -n "$insn" ] || { echo "no ATA write command after the busybox line in the full run's trace"; exit 1; }
save() {  # STEPS: the saving run, on a fresh copy of the image; prints its instruction count
  cp "$images/disk.img" "$work/saved.img"
  "$x86lab" run --memory 256 --hda "$work/saved.img" --serial "file:$work/saved.ser" --debugcon none --no-progress \
    --max-instructions "$1" --save-snapshot "$work/machine.snap" 2>"$work/saved.err"
  sed -n 's/.*instruction limit reached at .* after \([0-9]*\) instructions.*/\1/p' "$work/saved.err"
}
ran=$(save "$insn")
[ -n "$ran" ] || { echo "the calibrating saving run did not stop at its limit:"; cat "$work/saved.err"; exit 1; }
steps=$((insn + insn - ran))
echo "write command at instruction $insn; step $insn was instruction $ran; saving at step $steps"
ran=$(save "$steps")
echo "saved: $(grep -a 'snapshot' "$work/saved.err") (instruction $ran)"
[ -s "$work/machine.snap" ] || { echo "no snapshot:"; cat "$work/saved.err"; exit 1; }
fail=0
# Where the snapshot fell: during the first boot, after it printed its busybox line
# (right before it writes /proof.txt) and before the line it prints after the sync.
if ! grep -qaF "x86lab-image: busybox md5" "$work/saved.ser" || grep -qaF "first boot, wrote /proof.txt" "$work/saved.ser"; then
  echo "step $steps is not in the first boot's writing of /proof.txt; the saved run's COM1 ends:"
  tail -n 3 "$work/saved.ser"
  fail=1
fi
run continued --load-snapshot "$work/machine.snap"
if cmp -s <(cat "$work/saved.ser" "$work/continued.ser") "$work/full.ser"; then
  echo "COM1: saved + continued = full ($(stat -c %s "$work/full.ser") bytes)"
else
  echo "COM1 differs: saved + continued vs full:"
  cmp <(cat "$work/saved.ser" "$work/continued.ser") "$work/full.ser"
  fail=1
fi
if cmp -s "$work/continued.img" "$work/full.img"; then
  echo "disk.img: continued = full"
else
  echo "disk.img differs: $(cmp "$work/continued.img" "$work/full.img" | head -n 1)"
  fail=1
fi
cmp -s "$work/continued.status" "$work/full.status" || { echo "exit status differs"; fail=1; }
proof=$(debugfs -R "cat /proof.txt" "$work/continued.img?offset=$root_offset" 2>/dev/null)
[ "$proof" = "written by the first boot of disk.img" ] || { echo "debugfs: /proof.txt reads '$proof'"; fail=1; }
echo "$((SECONDS - start)) s"
[ $fail = 0 ] && echo "PASS: snapshot at step $steps, continued: COM1 and disk.img equal the uninterrupted run's"
exit $fail
