#!/usr/bin/env bash
# Boots one image of scripts/make-boot-images.sh through a PC BIOS, under QEMU, Bochs or
# x86lab, with COM1 in a file, and checks what the guest printed (docs/booting.md,
# "Images"). The guest's own lines are the expectations, and each has an independent
# reference: the tls_test checksum is qemu-i386's (as tests/boot/linux_boot.sh), the
# MD5 of /bin/busybox read from the root device is the host's md5sum of the same file,
# and after the disk boot the host reads /proof.txt out of the image with debugfs.
#
#   disk           disk.img: two boots from /dev/sda1 (ext2); the first writes
#                  /proof.txt and reboots through the keyboard controller (SYSLINUX's
#                  banner comes twice: the BIOS ran again), the second reads it back and
#                  powers off; then debugfs finds the file in the image.
#   iso            boot.iso: the CD's ISO 9660 file system is the root (/dev/sr0, ro).
#   floppy         floppy.img: SYSLINUX's mboot.c32 loads timer_kernel.elf, which prints
#                  PASS (COM1) and leaves through port F4h with 10h (exit status 33).
#   xv6_boot       xv6.img + fs.img, one CPU: boots to the shell, `ls` lists usertests.
#   xv6_smp2       the same with two CPUs: both report "cpuN: starting".
#   xv6_usertests  one CPU, types `usertests`: ALL TESTS PASSED (minutes).
#
# EMULATOR is the program for KIND: qemu (qemu-system-i386 -cpu pentium3, its SeaBIOS),
# bochs (Bochs 2.7 with BIOS-bochs-latest, cpu p3_katmai, headless as tests/rom/
# bochs_run.sh), x86lab (x86lab run with --hda/--cdrom/--fda/--boot: SeaBIOS, the
# default BIOS) or x86lab-bochsbios (the same with --bios BIOS-bochs-latest).
# Exit status 77 (skipped) when the emulator or the image is missing.
# usage: boot_image.sh KIND EMULATOR IMAGE IMAGES-DIR [LOG]
set -u
kind=$1 emulator=$2 image=$3 images=$4 log=${5:-}
cache=${X86LAB_GUEST_CACHE:-$HOME/.cache/x86lab/guests}
root_offset=$((26624 * 512))  # partition 1 of disk.img (scripts/make-boot-images.sh)
expected_tls='tls_test: threads=4 main_counter=7 checksum=8d69b2f4'
bochs_bios=/usr/share/bochs/BIOS-bochs-latest  # (as emulator_command.sh)
PATH=$PATH:/usr/sbin:/sbin  # debugfs

skip() { echo "skipped: $*"; exit 77; }
[ -n "$emulator" ] && [ -x "$emulator" ] || skip "no $kind emulator ('$emulator')"
case $image in
  disk) files=(disk.img) seconds=600 ;;
  iso) files=(boot.iso) seconds=400 ;;
  floppy) files=(floppy.img) seconds=60 ;;
  xv6_boot | xv6_smp2) files=(xv6.img fs.img) seconds=120 ;;
  xv6_usertests) files=(xv6.img fs.img) seconds=1200 ;;
  *) echo "boot_image.sh: unknown image '$image'"; exit 2 ;;
esac
# The interpreters (Bochs, x86lab) take several times QEMU's time.
case $kind in bochs | x86lab*) seconds=$((seconds * 6)) ;; esac
seconds=${X86LAB_BOOT_IMAGE_TIMEOUT:-$seconds}
for f in "${files[@]}"; do
  [ -s "$images/$f" ] || skip "no $images/$f (the fixture images.* skipped it: see its output; scripts/make-boot-images.sh)"
done
images=$(cd "$images" && pwd)
case $kind in
  bochs | x86lab-bochsbios) [ -s $bochs_bios ] || skip "no $bochs_bios (package bochsbios)" ;;
esac
if [ "$image" = disk ]; then command -v debugfs >/dev/null || skip "no debugfs (package e2fsprogs)"; fi

work=$(mktemp -d)
pid=
cleanup() {
  [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
# The guest writes the disks: each run gets its own copies (the CD is read-only).
for f in "${files[@]}"; do
  if [ "$f" = boot.iso ]; then ln -s "$images/$f" "$work/$f"; else cp "$images/$f" "$work/$f"; fi
done
serial=$work/serial
: >"$serial"

# ---- what the guest is told, and when the run is over
input=       # a line typed on COM1 after the shell's first prompt
prompt=      # that prompt
done_re=     # the run is complete at this line (ERE)
case $image in
  disk | iso) done_re='x86lab-image: (powering off|read-only root; powering off)' ;;
  floppy) done_re='^(PASS|FAIL)' ;;
  xv6_boot | xv6_smp2) input=ls prompt='$ ' done_re='usertests +2 ' ;;
  xv6_usertests) input=usertests prompt='$ ' done_re='ALL TESTS PASSED|FAILED|failed' ;;
esac
# QEMU 7.2 makes -smp 2 one socket with two cores, and SeaBIOS's MP table lists only the
# first processor of each socket, so xv6 (which reads the MP table) would find one CPU:
# two sockets of one core each.
smp=1
[ "$image" = xv6_smp2 ] && smp=2,sockets=2,cores=1,threads=1

# ---- the command line of each emulator
. "$(dirname "$0")/emulator_command.sh"
emulator_command "$kind" "$emulator" "$image" "$work" "$serial" "$smp" "$input" "$prompt"
case $? in 0) ;; 77) exit 77 ;; *) exit 2 ;; esac

# ---- run, watching COM1
start=$SECONDS
if [ -n "$input" ] && [ "$kind" = qemu ]; then
  mkfifo "$work/stdin"
  "${cmd[@]}" <"$work/stdin" >"$serial" 2>"$work/stderr" &
  pid=$!
  exec 4>"$work/stdin"
elif [ -n "$input" ]; then
  "${cmd[@]}" </dev/null >"$serial" 2>"$work/stderr" &
  pid=$!
else
  "${cmd[@]}" </dev/null >"$work/stdout" 2>"$work/stderr" &
  pid=$!
fi
# The Multiboot kernel also prints on the debug port E9h, Bochs's standard output.
e9=
[ "$kind" = bochs ] && [ "$image" = floppy ] && e9=$work/stdout
typed=0 verdict= cpu_ticks=0  # the emulator's CPU time (user + system, clock ticks) as last seen
while :; do
  if [ "$typed" = 0 ] && [ -n "$input" ] && [ "$kind" = qemu ] && grep -qF -- "$prompt" "$serial"; then
    printf '%s\n' "$input" >&4  # xv6 reads COM1 (uartintr) as well as the keyboard
    typed=1
  fi
  if grep -qaE -- "$done_re" "$serial" $e9; then verdict=done; break; fi
  if grep -qaE 'Kernel panic|Oops|BUG:' "$serial"; then verdict="a kernel panic/Oops"; break; fi
  if ! kill -0 "$pid" 2>/dev/null; then verdict="an exit of $kind"; break; fi
  if [ $((SECONDS - start)) -ge "$seconds" ]; then verdict="the time limit (${seconds}s)"; break; fi
  cpu_ticks=$(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo "$cpu_ticks")
  sleep 0.2
done
cpu_ticks=$(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo "$cpu_ticks")
# Let the emulator end by itself (ACPI power off, port F4h) for a few seconds, then stop it.
for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -TERM "$pid" 2>/dev/null
for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -KILL "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
status=$?
pid=
elapsed=$((SECONDS - start))
[ -n "$log" ] && cp "$serial" "$log"
tail -n 25 "$serial" | tr -d '\r'
cpu=$(awk -v t="$cpu_ticks" -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.1f", t / hz}')
echo "---- $kind $image: stopped at $verdict after ${elapsed}s, ${cpu} CPU s (exit status $status)"

fail=0
check() { grep -qaF -- "$1" "$serial" || { echo "missing: $1"; fail=1; }; }
count() {  # count N TEXT
  local n
  n=$(grep -acF -- "$2" "$serial")
  [ "$n" -eq "$1" ] || { echo "expected $1 line(s) with '$2', found $n"; fail=1; }
}
if [ "$verdict" != done ]; then
  echo "the run did not complete: stopped at $verdict; $kind's last messages:"
  tail -n 5 "$work/stderr"
  [ -f "$work/bochs.log" ] && grep -E '^[0-9]+[ep]\[' "$work/bochs.log" | tail -n 10
  fail=1
fi
busybox_md5=$(md5sum <"$cache/busybox" | cut -d' ' -f1)
case $image in
  disk)
    # Two kernel starts, each through the BIOS and SYSLINUX (nothing else loads it).
    count 2 "Linux version 6.1"
    if [ "$kind" = bochs ] || [ "$kind" = x86lab-bochsbios ]; then
      # Known Bochs BIOS difference (not investigated further): after the keyboard
      # controller's reset SYSLINUX's banner does not reach COM1, although SYSLINUX
      # boots the kernel a second time (under Bochs, and under x86lab with the Bochs BIOS).
      n=$(grep -acF "SYSLINUX " "$serial")
      [ "$n" -ge 1 ] || { echo "no SYSLINUX banner"; fail=1; }
    else
      count 2 "SYSLINUX "
    fi
    count 2 "x86lab-guest: init started"
    count 2 "x86lab-image: root /dev/sda1 ext2 rw"
    count 2 "x86lab-image: busybox md5 $busybox_md5"
    count 2 "$expected_tls"
    check "x86lab-image: first boot, wrote /proof.txt; rebooting through the keyboard controller"
    check "x86lab-image: second boot, /proof.txt reads: written by the first boot of disk.img"
    check "x86lab-image: powering off"
    proof=$(debugfs -R "cat /proof.txt" "$work/disk.img?offset=$root_offset" 2>/dev/null)
    if [ "$proof" = "written by the first boot of disk.img" ]; then
      echo "debugfs on the image after the run: /proof.txt reads: $proof"
    else
      echo "debugfs on the image after the run: /proof.txt reads '$proof'"; fail=1
    fi ;;
  iso)
    check "ISOLINUX "
    check "x86lab-guest: init started"
    check "x86lab-image: root /dev/sr0 iso9660 ro"
    check "x86lab-image: busybox md5 $busybox_md5"
    check "$expected_tls"
    check "x86lab-image: read-only root; powering off" ;;
  floppy)
    check "SYSLINUX "
    check "timer_kernel: Multiboot magic 2BADB002"
    check "timer interrupts, TSC cycles per interrupt"
    case $kind in
      bochs)
        # No exit device on port F4h in Bochs, and one known difference: timer_kernel
        # reads the line status right after writing its COM1 loopback byte, which Bochs
        # delivers only after a character time (and also sends down the line: the "Z"
        # in COM1's output), so the kernel reports this FAIL (and its closing FAIL line)
        # on E9h and stops there.
        known='FAIL: COM1 loopback data ready'
        if grep -qx 'PASS' "$e9"; then :
        elif [ "$(grep '^FAIL' "$e9" | tr '\n' '|')" = "$known|FAIL|" ]; then echo "known Bochs difference reproduced: $known"
        else echo "expected PASS or '$known' on E9h, got:"; grep -E '^(PASS|FAIL)' "$e9"; fail=1; fi ;;
      *)
        grep -qx $'PASS\r\\?' "$serial" || { echo "missing: a PASS line"; fail=1; }
        [ "$status" -eq 33 ] || { echo "exit status $status, expected 33 (10h on port F4h)"; fail=1; } ;;
    esac ;;
  xv6_boot | xv6_smp2)
    check "cpu0: starting 0"
    [ "$image" = xv6_smp2 ] && check "cpu1: starting 1"
    check "init: starting sh"
    grep -qaE "usertests +2 " "$serial" || { echo "missing: usertests in the output of ls"; fail=1; } ;;
  xv6_usertests)
    check "ALL TESTS PASSED" ;;
esac
case $image in
  disk | iso)
    if grep -naE 'BUG|WARNING|Oops|panic' "$serial" | grep -v 'panic=-1'; then
      echo "the kernel log has BUG/WARNING/Oops/panic lines (above)"; fail=1
    fi ;;
esac
[ $fail = 0 ] && echo "PASS: $kind $image in ${elapsed}s (${cpu} CPU s)"
exit $fail
