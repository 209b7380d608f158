#!/usr/bin/env bash
# The Linux boot benchmark (issue 7 and 12): Debian's i386 kernel with the busybox
# initramfs of scripts/fetch-linux-guest.sh, from power-on to `halt -f`, in x86lab
# (instructions from --stats, CPU and wall time, peak RSS), in qemu-system-i386 -accel tcg
# -cpu pentium3 (-kernel/-initrd/-append) and in Bochs 2.7 (cpu p3_katmai, which cannot
# load a bzImage itself: SYSLINUX boots the same kernel, initrd and command line from a
# FAT disk image made here with mkfs.fat, mcopy and syslinux). The peers keep running
# after the guest's HLT, so the script stops each at the guest's "halting" line on its
# serial output and takes the CPU seconds, peak RSS and wall seconds of the peer's
# process up to there. Prints Markdown table rows like run_bench.sh.
# usage: bench/linux_boot.sh X86LAB [RUNS [PEERS]]
#   RUNS   boots per emulator; the medians are reported (default 3)
#   PEERS  1: QEMU and Bochs (default); qemu: QEMU only; anything else: x86lab only
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
mib() { awk -v k="$1" 'BEGIN {printf "%.0f", k / 1024}'; }
echo "| linux ($checksum) | x86lab | $insns | $wall | $elapsed | $(mips "$insns" "$wall") | $(mib "$rss") | 1.00 |"
[ "$peers" = 1 ] || [ "$peers" = qemu ] || exit 0

# peer_boot NAME LABEL CMD...: boots RUNS times with CMD, whose guest writes its serial
# output to $work/NAME.serial, stops CMD at the "halting" line (or, failing, at the
# kernel's "System halted" or a reboot: a second SYSLINUX banner) and prints the peer's table row (median CPU and wall seconds, largest
# peak RSS) with a MISMATCH note unless the guest's checksum equals x86lab's.
peer_boot() {
  local name=$1 label=$2 serial=$work/$1.serial times=$work/$1.times start end cpu rss pid note=""
  shift 2
  : >"$times"
  for i in $(seq "$runs"); do
    : >"$serial"
    start=$(date +%s.%N)
    "$@" </dev/null >"$work/$name.log" 2>&1 &
    pid=$!
    while kill -0 "$pid" 2>/dev/null && awk '/x86lab-guest: halting|reboot: System halted/ || (/^SYSLINUX / && ++n == 2) {stop = 1; exit}
      END {exit stop}' "$serial"; do sleep 0.05; done
    end=$(date +%s.%N)
    # CPU time of all of the peer's threads so far (utime + stime, in clock ticks), peak RSS
    cpu=$(awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f", ($14 + $15) / hz}' "/proc/$pid/stat" 2>/dev/null || echo 0)
    rss=$(awk '$1 == "VmHWM:" {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    rm -f "$work"/*.lock  # a killed Bochs leaves its disk image locked for the next run
    grep -q 'x86lab-guest: halting' "$serial" || { echo "linux_boot.sh: $name run $i did not reach halt" >&2; tail -5 "$serial" >&2; exit 1; }
    awk -v a="$start" -v b="$end" -v c="$cpu" -v r="${rss:-0}" 'BEGIN {printf "%s %.2f %s\n", c, b - a, r}' >>"$times"
  done
  local pwall pelapsed psum
  pwall=$(cut -d' ' -f1 "$times" | median)
  pelapsed=$(cut -d' ' -f2 "$times" | median)
  psum=$(grep -ao 'checksum=[0-9a-f]*' "$serial" | head -1)
  [ "$psum" = "$checksum" ] || note=" MISMATCH ($psum)"
  echo "| linux | $label$note | (own count unknown) | $pwall | $pelapsed | $(mips "$insns" "$pwall") (x86lab's count) |" \
    "$(mib "$(cut -d' ' -f3 "$times" | sort -g | tail -1)") | $(awk -v a="$pwall" -v b="$wall" 'BEGIN {printf "%.2f", a / b}') |"
}

peer_boot qemu "qemu TCG" qemu-system-i386 -accel tcg -cpu pentium3 -m 64 -display none -monitor none -nodefaults \
  -no-reboot -kernel "$cache/vmlinuz" -initrd "$cache/initrd.gz" -append "$append" -serial "file:$work/qemu.serial"
[ "$peers" = 1 ] || exit 0

# Bochs boots SYSLINUX (from its FAT boot sector) off a flat disk image of 16 heads and 63
# sectors per track: cylinders of 516096 bytes, enough for the kernel, the initrd and
# about 2 MiB of FAT, SYSLINUX and slack. SYSLINUX prints its banner on COM1 too and
# passes the kernel "BOOT_IMAGE=vmlinuz" before the command line (an unused variable).
PATH=$PATH:/usr/sbin:/sbin  # mkfs.fat
for tool in bochs mkfs.fat mcopy syslinux; do
  command -v "$tool" >/dev/null || {
    echo "| linux | bochs 2.7 | not run: no $tool (scripts/install-deps.sh --bench) | | | | | |"; exit 0; }
done
disk=$work/bochs.img
cylinders=$(( ($(stat -c %s "$cache/vmlinuz") + $(stat -c %s "$cache/initrd.gz")) / 516096 + 4 ))
truncate -s $(( cylinders * 516096 )) "$disk"
mkfs.fat -h 0 -g 16/63 -i 7838366c -n X86LAB "$disk" >/dev/null
printf '%s\n' "SERIAL 0 115200" "DEFAULT linux" "PROMPT 0" "TIMEOUT 0" "LABEL linux" "  KERNEL vmlinuz" \
  "  INITRD initrd.gz" "  APPEND $append" >"$work/syslinux.cfg"
mcopy -i "$disk" "$cache/vmlinuz" "$cache/initrd.gz" "$work/syslinux.cfg" ::
syslinux --install "$disk"
# Guest time is instructions / ips (sync=none; fixed RTC start). Bochs sends a character
# every 1.04 ms of guest time at console=ttyS0's 9600 baud, and `halt -f` stops the
# machine without draining the tty: /init's last ~1000 characters (cpuinfo, checksum,
# "halting"), written within ~5 million instructions of the halt, reach the serial file
# only on a CPU this slow (2.5 guest seconds for them). The kernel's polled console then
# spins ~2000 instructions per character; the price is a timer tick (HZ 250) every 8000.
cat >"$work/bochsrc" <<RC
cpu: model=p3_katmai, ips=2000000, reset_on_triple_fault=0
memory: guest=64, host=64
romimage: file=/usr/share/bochs/BIOS-bochs-latest
vgaromimage: file=/usr/share/vgabios/vgabios-stdvga.bin
display_library: rfb, options="timeout=0"
ata0-master: type=disk, path=$disk, mode=flat, cylinders=$cylinders, heads=16, spt=63
boot: disk
com1: enabled=1, mode=file, dev=$work/bochs.serial
speaker: enabled=0
clock: sync=none, time0=946684800
log: $work/bochs.bxlog
panic: action=fatal
error: action=report
info: action=ignore
debug: action=ignore
RC
printf 'c\nquit\n' >"$work/bochs.cmds"  # the internal debugger runs the guest until stopped
peer_boot bochs "bochs 2.7" bochs -q -f "$work/bochsrc" -rc "$work/bochs.cmds"
