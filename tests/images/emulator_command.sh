# Sourced by boot_image.sh and bench/bios_boot.sh: the command line that boots one image
# of scripts/make-boot-images.sh under each emulator, with COM1 in SERIAL, or on standard
# input and output when INPUT (a line to type after PROMPT) is given.
#   qemu              qemu-system-i386 -cpu pentium3, its SeaBIOS
#   bochs             Bochs 2.7 with BIOS-bochs-latest, cpu p3_katmai, headless as
#                     tests/rom/bochs_run.sh (rfb with timeout=0, the dummy sound driver);
#                     guest time is instructions / ips (sync=none: deterministic)
#   x86lab            x86lab run --hda/--cdrom/--fda/--boot, SeaBIOS (its default BIOS)
#   x86lab-bochsbios  the same with --bios BIOS-bochs-latest
# The images are in WORK (disk.img, boot.iso, floppy.img, xv6.img, fs.img).
# usage: emulator_command KIND EMULATOR IMAGE WORK SERIAL SMP [INPUT PROMPT]; sets the array cmd
# (returns 77 when KIND cannot boot IMAGE, 2 for an unknown KIND).
bochs_bios=/usr/share/bochs/BIOS-bochs-latest
emulator_command() {
  local kind=$1 emulator=$2 image=$3 work=$4 serial=$5 smp=$6 input=${7:-} prompt=${8:-} drive boot
  case $kind in
    qemu)
      cmd=("$emulator" -M pc -cpu pentium3 -m 256 -smp $smp -display none -monitor none -nodefaults
        -device isa-debug-exit,iobase=0xf4,iosize=0x04)
      # Linux's ATA driver gives a command 30 s of guest time; QEMU's guest clock is the
      # host's, so on a loaded host a late completion read as a lost interrupt. With
      # -icount, guest time is the instruction count (2 ns each), idle time skipped.
      case $image in disk | iso) [ "${X86LAB_QEMU_ICOUNT:-}" = off ] || cmd+=(-icount "${X86LAB_QEMU_ICOUNT:-shift=1,sleep=off}") ;; esac
      case $image in
        disk) cmd+=(-drive "file=$work/disk.img,format=raw,if=ide,index=0" -boot c) ;;
        iso) cmd+=(-drive "file=$work/boot.iso,format=raw,if=ide,index=1,media=cdrom,readonly=on" -boot d) ;;
        floppy) cmd+=(-drive "file=$work/floppy.img,format=raw,if=floppy,index=0" -boot a) ;;
        # xv6's console also writes the CGA text screen and reads its cursor from the CRTC:
        # without a VGA the position reads FFFFh and cgaputc panics ("pos under/overflow")
        # over and over, so -nodefaults needs -vga std here.
        xv6_*) cmd+=(-vga std -drive "file=$work/xv6.img,format=raw,if=ide,index=0" -drive "file=$work/fs.img,format=raw,if=ide,index=1") ;;
      esac
      # COM1 on standard input/output when something is typed, otherwise in a file.
      if [ -n "$input" ]; then cmd+=(-serial stdio); else cmd+=(-serial "file:$serial"); fi ;;
    bochs)
      drive=
      case $image in
        disk) drive="ata0-master: type=disk, path=$work/disk.img, mode=flat, cylinders=64, heads=16, spt=63"
          boot=disk ;;
        iso) drive="ata0-slave: type=cdrom, path=$work/boot.iso, status=inserted"
          boot=cdrom ;;
        floppy) drive="floppya: 1_44=$work/floppy.img, status=inserted"
          boot=floppy ;;
        *) echo "the bochs runner boots disk, iso and floppy"; return 77 ;;
      esac
      # Headless as tests/rom/bochs_run.sh (rfb with timeout=0, the dummy sound driver);
      # guest time is instructions / ips (sync=none: deterministic).
      cat >"$work/bochsrc" <<RC
cpu: model=p3_katmai, ips=${X86LAB_BOCHS_IPS:-50000000}, reset_on_triple_fault=0
memory: guest=128, host=128
romimage: file=$bochs_bios
vgaromimage: file=/usr/share/vgabios/vgabios-stdvga.bin
display_library: rfb, options="timeout=0"
$drive
boot: $boot
com1: enabled=1, mode=file, dev=$serial
port_e9_hack: enabled=1
sound: driver=dummy
speaker: enabled=0
clock: sync=none, time0=946684800
log: $work/bochs.log
panic: action=fatal
error: action=report
info: action=ignore
debug: action=ignore
RC
      printf 'c\nquit\n' >"$work/bochs.cmds"  # Debian's Bochs has the internal debugger
      cmd=("$emulator" -q -f "$work/bochsrc" -rc "$work/bochs.cmds") ;;
    x86lab | x86lab-bochsbios)
      cmd=("$emulator" run --memory 256)
      [ "$kind" = x86lab-bochsbios ] && cmd+=(--bios $bochs_bios)
      case $image in
        disk) cmd+=(--hda "$work/disk.img") ;;
        iso) cmd+=(--cdrom "$work/boot.iso" --boot d) ;;
        floppy) cmd+=(--fda "$work/floppy.img" --boot a) ;;
        # xv6 leaves COM1's OUT2 clear and expects its receive interrupts (QEMU's wiring,
        # --serial-irq auto's choice for a BIOS boot).
        xv6_*) cmd+=(--hda "$work/xv6.img" --hdb "$work/fs.img") ;;
      esac
      if [ -n "$input" ]; then
        printf '%s\n' "$input" >"$work/input"
        cmd+=(--serial stdio --serial-input "$work/input" --serial-expect "$prompt")
      else
        cmd+=(--serial "file:$serial")
      fi ;;
    *) echo "unknown emulator kind '$kind'"; return 2 ;;
  esac
}
