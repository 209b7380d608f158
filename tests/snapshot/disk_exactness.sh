#!/bin/bash
# The disks are machine state (docs/booting.md "Snapshots"): ata_kernel saved at step N
# while it writes the disk and continued from the file prints what the uninterrupted
# run prints, and leaves the image file with the same bytes. The continued run is given
# a copy of the image as it was when the saving run opened it; loading the snapshot
# writes the sectors changed before N into it.
# Usage: disk_exactness.sh X86LAB KERNEL N[,N...]
set -u
x86lab=$1 kernel=$2 steps=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$work/pristine.img" <<'PY' || exit 1
import struct, sys
with open(sys.argv[1], "wb") as f:
    for n in range(8192):
        f.write(struct.pack("<I", n) * 128)
PY
mkdir -p "$work/iso" && echo "x86lab" > "$work/iso/readme.txt"
xorriso -as mkisofs -quiet -V X86LAB_ATA -o "$work/cd.iso" "$work/iso" >/dev/null 2>&1 || { echo "no xorriso: skipped"; exit 77; }

run() {  # NAME IMAGE ARGS...
  local name=$1 image=$2
  shift 2
  "$x86lab" run "$@" --hda "$image" --cdrom "$work/cd.iso" --debugcon "file:$work/$name.con" --serial none \
    --no-progress 2> "$work/$name.err"
  echo $? > "$work/$name.status"
}
cp "$work/pristine.img" "$work/full.img"
run full "$work/full.img" --kernel "$kernel"
grep -q '^PASS$' "$work/full.con" || { echo "the uninterrupted run did not pass:"; cat "$work/full.con" "$work/full.err"; exit 1; }
failed=0
for n in ${steps//,/ }; do
  cp "$work/pristine.img" "$work/saved.img"
  run saved "$work/saved.img" --kernel "$kernel" --max-instructions "$n" --save-snapshot "$work/machine.snap"
  if [ ! -s "$work/machine.snap" ]; then echo "FAIL at $n: no snapshot: $(cat "$work/saved.err")"; failed=1; continue; fi
  cp "$work/pristine.img" "$work/continued.img"
  run continued "$work/continued.img" --load-snapshot "$work/machine.snap"
  problems=()
  cmp -s <(cat "$work/saved.con" "$work/continued.con") "$work/full.con" || problems+=("debug console")
  cmp -s "$work/continued.status" "$work/full.status" || problems+=("exit status")
  cmp -s "$work/continued.img" "$work/full.img" || problems+=("image file")
  # The image the saving run left behind is refused: its content is not the snapshot's base.
  if "$x86lab" run --load-snapshot "$work/machine.snap" --hda "$work/saved.img" --cdrom "$work/cd.iso" --serial none \
      --no-progress >/dev/null 2>"$work/refused.err"; then
    cmp -s "$work/saved.img" "$work/pristine.img" || problems+=("a changed base image accepted")
  fi
  [ -s "$work/refused.err" ] && echo "  the image the saving run left: $(cat "$work/refused.err")"
  if [ ${#problems[@]} -eq 0 ]; then
    echo "ok at step $n ($(stat -c %s "$work/machine.snap") bytes)"
  else
    echo "FAIL at step $n: ${problems[*]} differ"; cat "$work/continued.err"; failed=1
  fi
done
exit $failed
