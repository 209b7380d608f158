#!/usr/bin/env bash
# BIOS to shell prompt (issue 35): disk.img of scripts/make-boot-images.sh, from power-on
# through the BIOS, SYSLINUX, Debian's kernel, the initramfs's module loading and the
# root's checks (tests/images/boot_image.sh) to busybox's "# " prompt on COM1, under
# qemu-system-i386 (TCG, -cpu pentium3, SeaBIOS), Bochs 2.7 (p3_katmai, BIOS-bochs-latest)
# and x86lab (SeaBIOS; once `x86lab run` has --hda: the devices of issue 35). The image's
# SYSLINUX configuration gets `x86lab.shell` (rewritten in a copy with mtools, no mount),
# which makes the root's init start the shell. Each emulator is stopped at the prompt;
# the CPU seconds (user + system, all threads) of its process up to there, the wall
# seconds and the peak RSS are taken from /proc, as bench/linux_boot.sh does for the
# peers. x86lab also gets --stats: its guest instructions (steps) up to the prompt are the
# "instructions" line it prints when stopped (SIGTERM); QEMU (TCG without an
# instruction-counting plugin) and Bochs do not report theirs ("-"). Prints Markdown
# table rows like run_bench.sh: median of RUNS boots. The CPU seconds are the figure to
# compare on a shared machine: the wall time grows with the load, the CPU time hardly.
# With --to kernel the boots are measured only up to the kernel's first line on COM1
# ("Linux version ...": the BIOS, SYSLINUX loading the kernel and initrd.gz through the
# BIOS's INT 13h, and the kernel's decompression), with --to syslinux up to SYSLINUX's
# banner; the emulator is stopped there.
# usage: bench/bios_boot.sh [--build DIR] [--images DIR] [--runs N] [--only LIST] [--to shell|kernel|syslinux]
#   --build DIR   x86lab build folder (default build/release)
#   --images DIR  folder of disk.img (default BUILD/images; built there if absent)
#   --runs N      boots per emulator (default 3)
#   --only LIST   comma-separated: x86lab,qemu,bochs (default all three)
#   --to WHERE    shell (default), kernel or syslinux: the milestone that ends a boot
set -euo pipefail
source "$(dirname "$0")/bench_common.sh"
build=$root/build/release images= runs=3 only=x86lab,qemu,bochs to=shell
parse_options bios_boot.sh "build images runs only to" "$@"
case $to in
  shell) workload="bios boot to shell" ;;
  kernel) workload="bios boot to the kernel's first line" ;;
  syslinux) workload="bios boot to SYSLINUX's banner" ;;
  *) echo "bios_boot.sh: --to must be shell, kernel or syslinux, not '$to'" >&2; exit 2 ;;
esac
[ -n "$images" ] || images=$build/images
"$root/scripts/make-boot-images.sh" "$images" disk >&2
[ -s "$images/disk.img" ] || { echo "| bios boot | not run: no disk.img (the line above says why) | | | | | |"; exit 0; }
command -v mcopy >/dev/null || { echo "bios_boot.sh: needs mcopy (package mtools)" >&2; exit 2; }
source "$root/tests/images/emulator_command.sh"
make_work_dir

# The shell variant of the image: partition 2 (FAT, sector 2048) gets a syslinux.cfg
# whose APPEND line ends in x86lab.shell.
cp "$images/disk.img" "$work/shell.img"
mtype -i "$work/shell.img@@$((2048 * 512))" ::syslinux.cfg | tr -d '\r' |
  sed '/APPEND/s/$/ x86lab.shell/' >"$work/syslinux.cfg"
mcopy -o -i "$work/shell.img@@$((2048 * 512))" "$work/syslinux.cfg" ::syslinux.cfg

echo "| workload | emulator | CPU s (median) | wall s | guest instructions | peak RSS MiB | CPU s / QEMU's |"
echo "|---|---|---|---|---|---|---|"
qemu_cpu=
# reached SERIAL: the milestone of --to is on COM1.
reached() {
  case $to in
    shell) grep -q 'x86lab-image: starting a shell' "$1" && tail -c 6 "$1" | grep -q '# ' ;;
    kernel) grep -q 'Linux version' "$1" ;;
    syslinux) grep -q 'SYSLINUX' "$1" ;;
  esac
}
# boot_to_prompt KIND EMULATOR: RUNS boots to the prompt; prints the table row.
boot_to_prompt() {
  local kind=$1 emulator=$2 times=$work/$1.times i pid start end cpu rss steps serial=$work/serial
  : >"$times"
  for i in $(seq "$runs"); do
    rm -rf "$work/run" && mkdir "$work/run"
    cp "$work/shell.img" "$work/run/disk.img"
    : >"$serial"
    emulator_command "$kind" "$emulator" disk "$work/run" "$serial" 1
    [ "$kind" = x86lab ] && cmd+=(--stats)
    start=$(date +%s.%N)
    "${cmd[@]}" </dev/null >"$work/$kind.out" 2>&1 &
    pid=$!
    # the prompt: COM1 ends in "# " (and ash's cursor position query, ESC [6n) after
    # the init's "starting a shell". A kernel panic (panic=-1 reboots, over and over)
    # ends the boot at once: the milestone will not come.
    while kill -0 "$pid" 2>/dev/null && ! reached "$serial" && ! grep -q 'Kernel panic' "$serial"; do sleep 0.05; done
    end=$(date +%s.%N)
    cpu=$(awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f", ($14 + $15) / hz}' "/proc/$pid/stat" 2>/dev/null || echo 0)
    rss=$(awk '$1 == "VmHWM:" {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    if ! reached "$serial"; then
      echo "bios_boot.sh: $kind run $i did not reach the $to; COM1 ends:" >&2
      grep -m1 -B12 'Kernel panic' "$serial" >&2 || tail -5 "$serial" >&2
      echo "| $workload | $3: did not reach the $to (run $i; see standard error) | | | | | |"
      return 0
    fi
    steps=$(awk '$1 == "instructions" {print $2; exit}' "$work/$kind.out")
    awk -v a="$start" -v b="$end" -v c="$cpu" -v r="${rss:-0}" -v s="${steps:--}" \
      'BEGIN {printf "%s %.2f %s %s\n", c, b - a, r, s}' >>"$times"
    echo "bios_boot.sh: $kind run $i: $(tail -1 "$times") (CPU s, wall s, peak RSS KiB, instructions)" >&2
  done
  local c w r s ratio=
  c=$(cut -d' ' -f1 "$times" | median)
  w=$(cut -d' ' -f2 "$times" | median)
  r=$(cut -d' ' -f3 "$times" | sort -g | tail -1)
  s=$(cut -d' ' -f4 "$times" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
  [ "$kind" = qemu ] && qemu_cpu=$c
  [ -n "$qemu_cpu" ] && ratio=$(awk -v a="$c" -v b="$qemu_cpu" 'BEGIN {printf "%.2f", a / b}')
  echo "| $workload | $3 | $c | $w | $s | $(awk -v k="$r" 'BEGIN {printf "%.0f", k / 1024}') | $ratio |"
}

qemu=$(command -v qemu-system-i386 || true)
bochs=$(command -v bochs || true)
if [[ ,$only, == *,qemu,* ]]; then
  if [ -n "$qemu" ]; then boot_to_prompt qemu "$qemu" "qemu TCG 7.2"; else echo "| $workload | qemu: not installed | | | | | |"; fi
fi
if [[ ,$only, == *,bochs,* ]]; then
  if [ -n "$bochs" ] && [ -s "$bochs_bios" ]; then boot_to_prompt bochs "$bochs" "bochs 2.7"
  else echo "| $workload | bochs: not installed (bochs, bochsbios) | | | | | |"; fi
fi
if [[ ,$only, == *,x86lab,* ]]; then
  if [ ! -x "$build/x86lab" ]; then
    echo "| $workload | x86lab: no binary in $build | | | | | |"
  elif ! "$build/x86lab" run --help 2>&1 | grep -q -- '--hda'; then
    echo "| $workload | x86lab: not run (no --hda yet: issue 35's devices) | | | | | |"
  else
    boot_to_prompt x86lab "$build/x86lab" "x86lab $(git -C "$root" rev-parse --short HEAD 2>/dev/null)"
  fi
fi
