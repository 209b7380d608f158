#!/usr/bin/env bash
# The Linux boot benchmark (issue 7 and 12): Debian's i386 kernel with the busybox
# initramfs of scripts/fetch-linux-guest.sh, from power-on to `halt -f`, in x86lab
# (instructions from --stats, CPU and wall time, peak RSS) and in qemu-system-i386 -accel tcg
# -cpu pentium3 (wall time to the guest's "halting" line; QEMU keeps running after
# HLT, so the script stops it there). Prints Markdown table rows like run_bench.sh.
# Bochs cannot boot a bzImage without a boot loader and disk image: not measured.
# usage: bench/linux_boot.sh X86LAB [RUNS [PEERS]]
set -euo pipefail
source "$(dirname "$0")/bench_common.sh"
x86lab=$1 runs=${2:-3} peers=${3:-1}
cache=${X86LAB_GUEST_CACHE:-$HOME/.cache/x86lab/guests}
if [ ! -s "$cache/vmlinuz" ] || [ ! -s "$cache/initrd.gz" ]; then
  echo "| linux | not run: no guest in $cache (scripts/fetch-linux-guest.sh) | | | | | | |"
  exit 0
fi
append="console=ttyS0 panic=-1"
make_work_dir

: >"$work/x86lab.times"
for i in $(seq "$runs"); do
  /usr/bin/time -f '%U %S %M %e' -o "$work/time" "$x86lab" run --kernel "$cache/vmlinuz" --initrd "$cache/initrd.gz" \
    --append "$append" --serial "file:$work/serial.$i" --exit-on-halt --stats </dev/null >/dev/null 2>"$work/stats.$i" || true
  grep -q 'x86lab-guest: halting' "$work/serial.$i" || { echo "linux_boot.sh: x86lab run $i did not reach halt" >&2; tail -5 "$work/serial.$i" >&2; exit 1; }
  tail -n 1 "$work/time" >>"$work/x86lab.times"  # after any "exited with" line
done
insns=$(awk '$1 == "instructions" {print $2}' "$work/stats.1")
wall=$(awk '{printf "%.2f\n", $1 + $2}' "$work/x86lab.times" | median)  # CPU seconds
elapsed=$(cut -d' ' -f4 "$work/x86lab.times" | median)
rss=$(cut -d' ' -f3 "$work/x86lab.times" | sort -g | tail -1)
checksum=$(grep -ao 'checksum=[0-9a-f]*' "$work/serial.1" | head -1)
mips() { awk -v n="$1" -v s="$2" 'BEGIN {printf "%.1f", n / s / 1e6}'; }
echo "| linux ($checksum) | x86lab | $insns | $wall | $elapsed | $(mips "$insns" "$wall") | $(awk -v k="$rss" 'BEGIN {printf "%.0f", k / 1024}') | 1.00 |"
[ "$peers" = 1 ] || exit 0

: >"$work/qemu.times"
for i in $(seq "$runs"); do
  start=$(date +%s.%N)
  qemu-system-i386 -accel tcg -cpu pentium3 -m 64 -display none -monitor none -nodefaults -no-reboot \
    -kernel "$cache/vmlinuz" -initrd "$cache/initrd.gz" -append "$append" -serial "file:$work/qemu.$i" </dev/null &
  pid=$!
  while kill -0 "$pid" 2>/dev/null && ! grep -q 'x86lab-guest: halting' "$work/qemu.$i" 2>/dev/null; do sleep 0.05; done
  end=$(date +%s.%N)
  # CPU time of all of QEMU's threads so far (utime + stime, in clock ticks)
  cpu=$(awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f", ($14 + $15) / hz}' "/proc/$pid/stat" 2>/dev/null || echo 0)
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  grep -q 'x86lab-guest: halting' "$work/qemu.$i" || { echo "linux_boot.sh: QEMU run $i did not reach halt" >&2; exit 1; }
  awk -v a="$start" -v b="$end" -v c="$cpu" 'BEGIN {printf "%s %.2f\n", c, b - a}' >>"$work/qemu.times"
done
qwall=$(cut -d' ' -f1 "$work/qemu.times" | median)
qelapsed=$(cut -d' ' -f2 "$work/qemu.times" | median)
qsum=$(grep -ao 'checksum=[0-9a-f]*' "$work/qemu.1" | head -1)
note=""
[ "$qsum" = "$checksum" ] || note=" MISMATCH ($qsum)"
echo "| linux | qemu TCG$note | (own count unknown) | $qwall | $qelapsed | $(mips "$insns" "$qwall") (x86lab's count) | | $(awk -v a="$qwall" -v b="$wall" 'BEGIN {printf "%.2f", a / b}') |"
echo "| linux | bochs 2.7 | not run: no boot loader or disk image for a bzImage | | | | | |"
