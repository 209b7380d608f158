#!/usr/bin/env bash
# Runs a Debian PC BIOS (SeaBIOS or the Bochs BIOS) on x86lab with no boot device
# until it has looked for one, and checks its POST milestones on the debug ports
# (SeaBIOS prints on port 402h, the Bochs BIOS on E9h; both go to --debugcon):
#   seabios: its version banner, the PCI functions it found (the i440FX and the PIIX3
#            ISA bridge), the shadow-RAM step, and the boot attempt ("No bootable device")
#   bochs:   its revision line, the PCI functions it found (on 402h), INT 19h's boot
#            attempt and its end; on the VGA text screen (--vga-dump) the LGPL VGABIOS's
#            line (its default VGA BIOS, at C0000h), its banner and "Booting from Hard Disk..."
# Skips (exit 77) when the package's file is absent.
# usage: bios_post.sh seabios|bochs X86LAB LOG
set -u
kind=$1 x86lab=$2 log=$3
case $kind in
  seabios) bios=/usr/share/seabios/bios-256k.bin package=seabios limit=7000000
           milestones=("^SeaBIOS \(version" "PCI: init bdf=00:00.0 id=8086:1237" "PCI: init bdf=00:01.0 id=8086:7000"
                       "PIIX3/PIIX4 init: elcr=00 0c" "Copying MPTABLE" "enter handle_19" "Booting from Hard Disk"
                       "No bootable device") ;;
  bochs)   bios=/usr/share/bochs/BIOS-bochs-latest package=bochsbios limit=20000000
           milestones=("Starting rombios32" "PCI: bus=0 devfn=0x00: vendor_id=0x8086 device_id=0x1237 class=0x0600"
                       "PCI: bus=0 devfn=0x08: vendor_id=0x8086 device_id=0x7000 class=0x0601" "^MP table addr"
                       "Bochs VBE Display Adapter enabled" "No bootable device" "Bochs [0-9.]+ BIOS"
                       "Booting from Hard Disk")
           # Its default VGA BIOS: Bochs's LGPL VGABIOS (ui/platform_options.h kDefaultBochsVgaBios).
           if [ ! -f /usr/share/vgabios/vgabios-stdvga.bin ]; then
             echo "SKIP: /usr/share/vgabios/vgabios-stdvga.bin is absent (package vgabios)"; exit 77
           fi ;;
  *) echo "usage: bios_post.sh seabios|bochs X86LAB LOG" >&2; exit 2 ;;
esac
if [ ! -f "$bios" ]; then
  echo "SKIP: $bios is absent (install Debian's $package package: scripts/install-deps.sh)"
  exit 77
fi
"$x86lab" run --bios "$bios" --max-instructions "$limit" --serial none --no-progress --vga-dump \
  --debugcon "file:$log.debugcon" --stats > "$log.screen" 2> "$log.stats"
status=$?
cat "$log.debugcon" "$log.screen" > "$log"
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
