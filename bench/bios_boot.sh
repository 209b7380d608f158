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
# peers. Prints Markdown table rows like run_bench.sh: median of RUNS boots.
# usage: bench/bios_boot.sh [--build DIR] [--images DIR] [--runs N] [--only LIST]
#   --build DIR   x86lab build folder (default build/release)
#   --images DIR  folder of disk.img (default BUILD/images; built there if absent)
#   --runs N      boots per emulator (default 3)
#   --only LIST   comma-separated: x86lab,qemu,bochs (default all three)
set -euo pipefail
source "$(dirname "$0")/bench_common.sh"
build=$root/build/release images= runs=3 only=x86lab,qemu,bochs
parse_options bios_boot.sh "build images runs only" "$@"
[ -n "$images" ] || images=$build/images
"$root/scripts/make-boot-images.sh" "$images" disk >&2
[ -s "$images/disk.img" ] || { echo "| bios boot | not run: no disk.img (the line above says why) | | | | |"; exit 0; }
command -v mcopy >/dev/null || { echo "bios_boot.sh: needs mcopy (package mtools)" >&2; exit 2; }
source "$root/tests/images/emulator_command.sh"
make_work_dir

# The shell variant of the image: partition 2 (FAT, sector 2048) gets a syslinux.cfg
# whose APPEND line ends in x86lab.shell.
cp "$images/disk.img" "$work/shell.img"
mtype -i "$work/shell.img@@$((2048 * 512))" ::syslinux.cfg | tr -d '\r' |
  sed '/APPEND/s/$/ x86lab.shell/' >"$work/syslinux.cfg"
mcopy -o -i "$work/shell.img@@$((2048 * 512))" "$work/syslinux.cfg" ::syslinux.cfg

echo "| workload | emulator | CPU s (median) | wall s | peak RSS MiB | CPU s / QEMU's |"
echo "|---|---|---|---|---|---|"
qemu_cpu=
# boot_to_prompt KIND EMULATOR: RUNS boots to the prompt; prints the table row.
boot_to_prompt() {
  local kind=$1 emulator=$2 times=$work/$1.times i pid start end cpu rss serial=$work/serial
  : >"$times"
  for i in $(seq "$runs"); do
    rm -rf "$work/run" && mkdir "$work/run"
    cp "$work/shell.img" "$work/run/disk.img"
    : >"$serial"
    emulator_command "$kind" "$emulator" disk "$work/run" "$serial" 1
    start=$(date +%s.%N)
    "${cmd[@]}" </dev/null >"$work/$kind.out" 2>&1 &
    pid=$!
    # the prompt: COM1 ends in "# " (and ash's cursor position query, ESC [6n) after
    # the init's "starting a shell"
    while kill -0 "$pid" 2>/dev/null && ! { grep -q 'x86lab-image: starting a shell' "$serial" &&
      tail -c 6 "$serial" | grep -q '# '; }; do sleep 0.05; done
    end=$(date +%s.%N)
    cpu=$(awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f", ($14 + $15) / hz}' "/proc/$pid/stat" 2>/dev/null || echo 0)
    rss=$(awk '$1 == "VmHWM:" {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    grep -q 'x86lab-image: starting a shell' "$serial" ||
      { echo "bios_boot.sh: $kind run $i did not reach the shell" >&2; tail -5 "$serial" >&2; return 1; }
    awk -v a="$start" -v b="$end" -v c="$cpu" -v r="${rss:-0}" 'BEGIN {printf "%s %.2f %s\n", c, b - a, r}' >>"$times"
  done
  local c w r ratio=
  c=$(cut -d' ' -f1 "$times" | median)
  w=$(cut -d' ' -f2 "$times" | median)
  r=$(cut -d' ' -f3 "$times" | sort -g | tail -1)
  [ "$kind" = qemu ] && qemu_cpu=$c
  [ -n "$qemu_cpu" ] && ratio=$(awk -v a="$c" -v b="$qemu_cpu" 'BEGIN {printf "%.2f", a / b}')
  echo "| bios boot to shell | $3 | $c | $w | $(awk -v k="$r" 'BEGIN {printf "%.0f", k / 1024}') | $ratio |"
}

qemu=$(command -v qemu-system-i386 || true)
bochs=$(command -v bochs || true)
if [[ ,$only, == *,qemu,* ]]; then
  if [ -n "$qemu" ]; then boot_to_prompt qemu "$qemu" "qemu TCG 7.2"; else echo "| bios boot to shell | qemu: not installed | | | | |"; fi
fi
if [[ ,$only, == *,bochs,* ]]; then
  if [ -n "$bochs" ] && [ -s "$bochs_bios" ]; then boot_to_prompt bochs "$bochs" "bochs 2.7"
  else echo "| bios boot to shell | bochs: not installed (bochs, bochsbios) | | | | |"; fi
fi
if [[ ,$only, == *,x86lab,* ]]; then
  if [ ! -x "$build/x86lab" ]; then
    echo "| bios boot to shell | x86lab: no binary in $build | | | | |"
  elif ! "$build/x86lab" run --help 2>&1 | grep -q -- '--hda'; then
    echo "| bios boot to shell | x86lab: not run (no --hda yet: issue 35's devices) | | | | |"
  else
    boot_to_prompt x86lab "$build/x86lab" "x86lab $(git -C "$root" rev-parse --short HEAD 2>/dev/null)"
  fi
fi
