#!/usr/bin/env bash
# Runs the benchmark workloads in x86lab, Bochs 2.7 (headless), qemu-system-i386
# (TCG) and, where possible, natively, and prints one Markdown table row per run
# (median CPU time, user + system, of RUNS runs, MIPS, peak RSS, ratios). CPU time
# rather than wall time keeps the figures usable on a shared, loaded machine; the
# wall time is shown beside it. See bench/results.md and docs/performance.md.
#
# usage: bench/run_bench.sh [--build DIR] [--runs N] [--quick] [--only LIST] [--no-peers]
#   --build DIR   x86lab build folder (default build/release)
#   --runs N      runs per emulator and workload; the median is reported (default 3)
#   --quick       a tenth of the iterations (smoke test of the script)
#   --only LIST   comma-separated workloads: compute,faults,faults-data,faults-data-pf,linux
#                 (default compute,faults,faults-data,faults-data-pf)
#   --no-peers    x86lab only
# Workloads:
#   compute  bench/roms/compute.asm: ALU/memory/branch/call mix, 13 instructions per round
#   faults   bench/roms/faults.asm: ring-3 IN -> #GP -> ring-0 emulation -> IRETD, 14
#            instructions and one #GP delivery per round
#   faults-data     bench/roms/faults_data.asm: ring-3 MOV EAX, [GS:-8] beyond a truncated
#            GS limit -> #GP -> ring-0 emulation in RAM that counts in a variable beside
#            its own code -> IRETD; 15 instructions and one #GP delivery per round
#   faults-data-pf  the same with a load from a not-present page (#PF, -DPAGE_FAULT),
#            17 instructions and one #PF delivery per round
#   linux    the Debian boot to halt of tests/boot/linux_boot.sh (bench/linux_boot.sh)
# Every emulator must print the same checksum as x86lab, or the row says MISMATCH.
# MIPS = instructions counted by x86lab (--stats) / median CPU seconds; Bochs and
# QEMU run the same instruction stream (same checksum), so the same count is used.
set -euo pipefail
source "$(dirname "$0")/bench_common.sh"
build=$root/build/release runs=3 scale=1 only=compute,faults,faults-data,faults-data-pf peers=1
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --quick) scale=10; shift ;;
    --only) only=$2; shift 2 ;;
    --no-peers) peers=0; shift ;;
    *) echo "run_bench.sh: unknown option $1 (see the usage at the top of the script)" >&2; exit 2 ;;
  esac
done
x86lab=$build/x86lab
[ -x "$x86lab" ] || { echo "run_bench.sh: no x86lab binary at $x86lab (build first or pass --build)" >&2; exit 2; }
"$root/scripts/install-deps.sh" --bench >/dev/null
make_work_dir

# timed NAME CMD...: runs CMD RUNS times with GNU time; sets $wall (median CPU
# seconds, user + system), $elapsed (median wall seconds) and $rss (largest peak RSS,
# KiB); the last run's output is in $work/NAME.out.
timed() {
  local name=$1; shift
  : >"$work/$name.times"
  for _ in $(seq "$runs"); do
    /usr/bin/time -f '%U %S %M %e' -o "$work/$name.time" "$@" >"$work/$name.out" 2>"$work/$name.err" </dev/null || true
    tail -n 1 "$work/$name.time" >>"$work/$name.times"  # after any "exited with" line
  done
  wall=$(awk '{printf "%.2f\n", $1 + $2}' "$work/$name.times" | median)
  elapsed=$(cut -d' ' -f4 "$work/$name.times" | median)
  rss=$(cut -d' ' -f3 "$work/$name.times" | sort -g | tail -1)
}
checksum_of() { grep -ao 'checksum [0-9A-F]*' "$1" | head -1 | cut -d' ' -f2; }
mips() { awk -v n="$1" -v s="$2" 'BEGIN {if (s > 0) printf "%.1f", n / s / 1e6; else printf "n/a (under 10 ms)"}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.2f", a / b; else printf "n/a"}'; }

echo "| workload | emulator | instructions | median CPU s (of $runs) | wall s | MIPS | peak RSS MiB | x86lab speed vs this (its time / x86lab time) |"
echo "|---|---|---|---|---|---|---|---|"
row() {  # workload emulator instructions seconds rss_kib checksum_ok x86lab_seconds
  local note="" speed
  [ "$6" = ok ] || note=" MISMATCH"
  [ "$2" = x86lab ] && speed="1.00" || speed=$(ratio "$4" "$7")
  echo "| $1 | $2$note | $3 | $4 | $elapsed | $(mips "$3" "$4") | $(awk -v k="$5" 'BEGIN {printf "%.0f", k / 1024}') | $speed |"
}

rom_workload() {  # name iterations [source [nasm options...]] (source: bench/roms/SOURCE.asm, default name)
  local name=$1 iterations=$(( $2 / scale )) source=${3:-$1}
  shift 2; [ $# -gt 0 ] && shift
  local rom=$work/$name.bin
  nasm -f bin -I"$root/roms/include/" -I"$root/bench/roms/" -DITERATIONS=$iterations "$@" -o "$rom" "$root/bench/roms/$source.asm"
  timed "x86lab-$name" "$x86lab" run --bios "$rom" --debugcon "file:$work/$name.x86lab.con" --stats
  local insns expected x86lab_wall=$wall
  insns=$(awk '$1 == "instructions" {print $2}' "$work/x86lab-$name.err")
  expected=$(checksum_of "$work/$name.x86lab.con")
  [ -n "$expected" ] || { echo "run_bench.sh: x86lab printed no checksum for $name" >&2; cat "$work/x86lab-$name.err" >&2; exit 1; }
  row "$name" x86lab "$insns" "$wall" "$rss" ok "$x86lab_wall"
  [ "$peers" = 1 ] || return 0

  # Headless, as tests/rom/bochs_run.sh: rfb with timeout=0 (Debian's build has no
  # "nogui"), and sound: driver=dummy with speaker: enabled=0 (without the dummy sound
  # driver Bochs 2.7 opens ALSA and, with no sound card, aborts: "buffer overflow detected").
  cat >"$work/$name.bochsrc" <<RC
megs: 64
romimage: file=$rom
vgaromimage: file=/usr/share/vgabios/vgabios-stdvga.bin
display_library: rfb, options="timeout=0"
port_e9_hack: enabled=1
sound: driver=dummy
speaker: enabled=0
clock: sync=none
log: $work/$name.bochs.log
panic: action=fatal
error: action=report
info: action=ignore
debug: action=ignore
RC
  # Debian's Bochs has the internal debugger: "c" runs, the Shutdown port ends the run.
  printf 'c\nquit\n' >"$work/bochs.cmds"
  timed "bochs-$name" bochs -q -f "$work/$name.bochsrc" -rc "$work/bochs.cmds"
  row "$name" "bochs 2.7" "$insns" "$wall" "$rss" "$([ "$(checksum_of "$work/bochs-$name.out")" = "$expected" ] && echo ok)" "$x86lab_wall"

  timed "qemu-$name" qemu-system-i386 -M pc -cpu pentium3 -accel tcg -m 64 -display none -monitor none \
    -serial none -nodefaults -bios "$rom" -debugcon "file:$work/$name.qemu.con" \
    -device isa-debug-exit,iobase=0xf4,iosize=0x04
  row "$name" "qemu TCG $(qemu-system-i386 --version | head -1 | awk '{print $4}')" "$insns" "$wall" "$rss" \
    "$([ "$(checksum_of "$work/$name.qemu.con")" = "$expected" ] && echo ok)" "$x86lab_wall"

  if [ -f "$root/bench/roms/${name}_native.asm" ]; then
    nasm -f elf32 -I"$root/bench/roms/" -DITERATIONS=$iterations -o "$work/$name.o" "$root/bench/roms/${name}_native.asm"
    ld -m elf_i386 -o "$work/$name.native" "$work/$name.o"
    timed "native-$name" "$work/$name.native"
    # The native run skips the ROM's set-up and output (a few thousand instructions).
    row "$name" "native ($(uname -m))" "$insns" "$wall" "$rss" \
      "$([ "$(checksum_of "$work/native-$name.out")" = "$expected" ] && echo ok)" "$x86lab_wall"
  fi
}

for workload in ${only//,/ }; do
  case $workload in
    compute) rom_workload compute 20000000 ;;
    faults) rom_workload faults 2000000 ;;
    faults-data) rom_workload faults-data 1000000 faults_data ;;
    faults-data-pf) rom_workload faults-data-pf 1000000 faults_data -DPAGE_FAULT ;;
    linux) "$root/bench/linux_boot.sh" "$x86lab" "$runs" "$peers" ;;
    *) echo "run_bench.sh: unknown workload $workload" >&2; exit 2 ;;
  esac
done
