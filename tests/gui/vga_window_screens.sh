#!/bin/sh
# The inspector's VGA window shows whatever the adapter displays (issue 35), offscreen:
# each case runs `x86lab gui` with a script that places the VGA window, runs the guest,
# takes the window's screenshot (`screenshot-window`) and a text dump, and ends; the
# same run's `--screendump` (Vga::render written straight to a file at exit, the screen
# the peer.qemu.vga_* tests compare with QEMU's) is the reference: every pixel of the
# picture in the window must be its screen dot (tests/gui/vga_window_check.py).
#   boot_menu  Debian's SeaBIOS with the LGPL VGA BIOS (package vgabios) and an empty
#              4 MiB disk: the VGA BIOS's banner (banner.png), then SeaBIOS's banner
#              and "Press ESC for boot menu."; ESC typed into the VGA window (the
#              guest's PS/2 keyboard) brings "Select boot device:" with the disk
#              listed. Without vgabios: SeaBIOS's own VGA BIOS and no banner check.
#              Skipped (77) without seabios.
#   bochs_boot_menu  the Bochs BIOS (package bochsbios) with the LGPL VGA BIOS: one
#              screen with the VGA BIOS's banner (the Bochs BIOS keeps it), the BIOS's
#              banner, "Press F12 for boot menu." and, after F12 typed into the VGA
#              window, "Select boot device:". Skipped (77) without the packages.
#   text 12 13 vbe lfb  roms/guest/multiboot/vga_kernel.elf's 80x25 text, mode 12h, mode 13h, 320x240
#              32-bpp banked DISPI and 640x480 8-bpp linear DISPI screens, to the
#              kernel's exit (the dump's mode line too).
# Leaves CASE.png (the window), CASE.dump and CASE.ppm in WORKDIR to look at.
# usage: vga_window_screens.sh X86LAB CASE WORKDIR [VGA_KERNEL]
set -u
x86lab=$1 case=$2 work=$3 kernel=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work" || exit 1
seabios=/usr/share/seabios/bios-256k.bin lgpl_vga=/usr/share/vgabios/vgabios-stdvga.bin

# The VGA window at 1:1 for 720x400 and 640x480 (the line above the picture and the
# mode line take about 40 pixels), 2:1 for 320x240.
place='place 0 20 760 600 VGA text screen'
case $case in
  boot_menu)
    [ -r "$seabios" ] || { echo "$seabios is missing (package seabios): skipped"; exit 77; }
    truncate -s 4M "$work/empty.img"
    machine="--bios $seabios --hda $work/empty.img"
    # Without the package vgabios: SeaBIOS's own VGA BIOS, which writes no banner.
    if [ -r "$lgpl_vga" ]; then machine="$machine --vga-bios $lgpl_vga"
    else echo "$lgpl_vga is missing (package vgabios): the banner is not checked"; lgpl_vga=; fi
    # The VGA BIOS prints its banner at about 2.4 million steps; SeaBIOS then sets mode 3
    # again (its "Turning on vga text mode console"), which clears it, as in QEMU.
    # SeaBIOS empties the keyboard buffer through INT 16h, says "Press ESC for boot
    # menu." and waits 2.5 modeled seconds for a key, calling INT 16h in a loop (about
    # 3.2 million steps in; the wait in HLT is over within some 100000 steps). So the
    # script stops at the second INT 16h (vector 22), the first of the wait, types ESC
    # there, and runs on from INT 16h to INT 16h until the menu waits for its choice.
    script="$place
run 2475000
frames 2
screenshot-window $work/banner.png VGA text screen
dump $work/banner.dump
break vector 22
run
run
focus VGA text screen
key Escape
frames 2
run 3000000
run 3000000
run 3000000
run 3000000
run 3000000
run 3000000
run 3000000
run 3000000
frames 2"
    expect='SeaBIOS \(version|Press ESC for boot menu|Select boot device:|ata0-0'
    ;;
  bochs_boot_menu)
    for file in /usr/share/bochs/BIOS-bochs-latest $lgpl_vga; do
      [ -r "$file" ] || { echo "$file is missing (packages bochsbios, vgabios): skipped"; exit 77; }
    done
    truncate -s 4M "$work/empty.img"
    machine="--bios /usr/share/bochs/BIOS-bochs-latest --vga-bios $lgpl_vga --hda $work/empty.img"
    # The BIOS empties the keyboard buffer, says "Press F12 for boot menu." at about
    # 6,450,000 steps and waits for a key in HLT (its timer ticks come at once on the
    # modeled clock), so the wait is over by about 6,470,000: F12 comes at 6,460,000. The
    # BIOS reads its keyboard buffer directly, not through INT 16h, so no breakpoint
    # marks the wait as SeaBIOS's does; if the BIOS or the machine's timing changes,
    # the menu is missing from the dump and the test says so.
    script="$place
run 6460000
focus VGA text screen
key F12
frames 2
run 3000000
frames 2"
    expect='Bochs VGABios \(PCI\)|This VGA/VBE Bios is released under the GNU LGPL|Bochs 2.7 BIOS|Press F12 for boot menu|Select boot device:|2. Hard Disk'
    ;;
  text | 12 | 13 | vbe | lfb)
    [ -r "$kernel" ] || { echo "no vga_kernel at '$kernel'"; exit 1; }
    machine="--kernel $kernel --append screen=$case"
    script="$place
run
frames 2"
    case $case in
      text) expect='text 720x400|x86lab VGA text: The quick brown fox' ;;
      12) expect='16-colour graphics 640x480' ;;
      13) expect='256-colour graphics 640x400' ;;
      vbe) expect='VBE DISPI 320x240' ;;
      lfb) expect='VBE DISPI 640x480' ;;
    esac
    ;;
  *) echo "unknown case '$case'"; exit 2 ;;
esac
printf '%s\nscreenshot-window %s VGA text screen\ndump %s\nquit\n' "$script" "$work/$case.png" "$work/$case.dump" >"$work/$case.script"
HOME=$work SDL_VIDEODRIVER=offscreen "$x86lab" gui $machine --size 1280x800 --no-layout --serial none --debugcon none \
  --screendump "$work/$case.ppm" --script "$work/$case.script" >"$work/$case.out" 2>&1 ||
  { echo "x86lab gui failed:"; cat "$work/$case.out"; exit 1; }
sed -n '/^==== VGA text screen ====/,/^==== /p' "$work/$case.dump" | head -40
old_ifs=$IFS IFS='|'
for needle in $expect; do
  grep -Eq "$needle" "$work/$case.dump" || { echo "the VGA window's dump lacks /$needle/"; exit 1; }
done
IFS=$old_ifs
if [ "$case" = boot_menu ] && [ -n "$lgpl_vga" ]; then
  grep -q 'Bochs VGABios (PCI)' "$work/banner.dump" || { echo "the VGA BIOS banner is not in $work/banner.dump"; exit 1; }
  grep -q 'This VGA/VBE Bios is released under the GNU LGPL' "$work/banner.dump" || { echo "the banner is incomplete"; exit 1; }
fi
python3 "$here/vga_window_check.py" "$work/$case.png" "$work/$case.dump" "$work/$case.ppm"
