#!/usr/bin/env bash
# Runs a Debian PC BIOS (SeaBIOS or the Bochs BIOS) on x86lab with no boot device
# until it has looked for one, and checks its POST milestones on the debug ports
# (SeaBIOS prints on port 402h, the Bochs BIOS on E9h; both go to --debugcon):
#   seabios: its version banner, the PCI functions it found (the i440FX and the PIIX3
#            ISA bridge), the shadow-RAM step, and the boot attempt ("No bootable device")
#   bochs:   its version banner, the PCI functions it found, and INT 19h's boot attempt
# Skips (exit 77) when the package's file is absent.
# usage: bios_post.sh seabios|bochs X86LAB LOG
set -u
kind=$1 x86lab=$2 log=$3
case $kind in
  seabios) bios=/usr/share/seabios/bios-256k.bin package=seabios limit=40000000
           milestones=("SeaBIOS \(version" "PCI: bus=0 devfn=0x00: vendor_id=0x8086 device_id=0x1237"
                       "PCI: bus=0 devfn=0x08: vendor_id=0x8086 device_id=0x7000" "No bootable device") ;;
  bochs)   bios=/usr/share/bochs/BIOS-bochs-latest package=bochsbios limit=40000000
           milestones=("BIOS-bochs-latest|Bochs BIOS" "PCI: bus=0 devfn=0x00: vendor_id=0x8086 device_id=0x1237"
                       "PCI: bus=0 devfn=0x08: vendor_id=0x8086 device_id=0x7000" "Booting from|No bootable device|FATAL: No bootable device") ;;
  *) echo "usage: bios_post.sh seabios|bochs X86LAB LOG" >&2; exit 2 ;;
esac
if [ ! -f "$bios" ]; then
  echo "SKIP: $bios is absent (install Debian's $package package: scripts/install-deps.sh)"
  exit 77
fi
"$x86lab" run --bios "$bios" --max-instructions "$limit" --exit-on-halt --serial none --no-progress \
  --debugcon "file:$log" --stats 2> "$log.stats"
status=$?
echo "x86lab exit status $status; $(grep -m1 -E '^ *instructions' "$log.stats")"
failed=0
for milestone in "${milestones[@]}"; do
  if line=$(grep -m1 -E "$milestone" "$log"); then
    echo "ok: $line"
  else
    echo "MISSING: /$milestone/ in $log"
    failed=1
  fi
done
[ $failed = 0 ] || { echo "---- last lines of $log ----"; tail -20 "$log"; }
exit $failed
