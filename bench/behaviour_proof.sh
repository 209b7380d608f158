#!/usr/bin/env bash
# The behaviour proof of a change to the core (issue 28: "every counter, trace byte and
# result the same"): runs one x86lab binary over every built ROM and Multiboot kernel,
# the bench ROMs, the scenario comparisons and (when fetched) the Linux boot, and writes
# what they print into one folder, so that two builds compare with one `diff -r`:
#
#   bench/behaviour_proof.sh --x86lab OLD/x86lab --out /tmp/proof-old
#   bench/behaviour_proof.sh --x86lab NEW/x86lab --out /tmp/proof-new
#   diff -r /tmp/proof-old /tmp/proof-new
#
# Per guest program: NAME.out (debug console or serial), NAME.stats (--stats on
# stderr, exit status last), NAME.json (--stats-json); for a few, NAME.trace.sha256
# (a binary trace's checksum) and NAME.range.stats (with --code-range). compare-all.json
# and compare-all.csv are `x86lab compare all` (json, csv). linux.serial and
# linux.stats are the Debian boot of tests/boot/linux_boot.sh (skipped, with a
# linux.skipped file, when scripts/fetch-linux-guest.sh has not been run).
# Nothing here depends on wall-clock time; the outputs hold no timing lines.
#
# usage: bench/behaviour_proof.sh --x86lab BINARY --out DIR [--roms DIR] [--linux 0|1]
#   --roms DIR   the built ROMs (default: build/release/roms of this tree)
#   --linux 0    leave the Linux boot out (default 1: run it when fetched)
set -uo pipefail
source "$(dirname "$0")/bench_common.sh"
x86lab="" out="" roms=$root/build/release/roms linux=1
parse_options behaviour_proof.sh "x86lab out roms linux" "$@"
[ -x "$x86lab" ] || { echo "behaviour_proof.sh: --x86lab '$x86lab' is not an executable" >&2; exit 2; }
[ -n "$out" ] || { echo "behaviour_proof.sh: --out DIR is needed" >&2; exit 2; }
[ -d "$roms" ] || { echo "behaviour_proof.sh: --roms '$roms' is not a folder" >&2; exit 2; }
mkdir -p "$out"
make_work_dir

# run_guest NAME ARGS...: one x86lab run with --stats and --stats-json.
run_guest() {
  local name=$1
  shift
  "$x86lab" run "$@" --stats --stats-json "$out/$name.json" >"$work/stdout" 2>"$out/$name.stats" </dev/null
  echo "exit status $?" >>"$out/$name.stats"
  cat "$work/stdout" >>"$out/$name.out" 2>/dev/null
}

# Every ROM image (run_rom.sh's way) and every Multiboot kernel (run_kernel.sh's way).
while IFS= read -r rom; do
  rel=${rom#"$roms"/}
  name=$(echo "${rel%.*}" | tr / _)
  case $rel in
    multiboot/*) run_guest "$name" --kernel "$rom" --serial none --debugcon "file:$out/$name.out" \
                   --max-instructions 200000000 ;;
    *) run_guest "$name" --bios "$rom" --debugcon "file:$out/$name.out" --max-instructions 50000000 ;;
  esac
done < <(find "$roms" -path '*/CMakeFiles' -prune -o -path '*/scenarios' -prune -o -path '*-prefix' -prune -o \
           \( -name '*.bin' -o -name '*.elf' \) -print | sort)

# The bench ROMs at a few rounds (the faults ROM's code and data pages, links, replays).
for spec in "compute 20000" "faults 5000"; do
  read -r name rounds <<<"$spec"
  nasm -f bin -I"$root/roms/include/" -I"$root/bench/roms/" -DITERATIONS="$rounds" -o "$work/$name.bin" \
    "$root/bench/roms/$name.asm" || { echo "behaviour_proof.sh: nasm failed on bench/roms/$name.asm" >&2; exit 2; }
  run_guest "bench_$name" --bios "$work/$name.bin" --debugcon "file:$out/bench_$name.out"
  # A code range over the whole ROM (counted at every retirement, no links).
  "$x86lab" run --bios "$work/$name.bin" --debugcon none --stats --code-range 0:FFFFFFFF \
    >/dev/null 2>"$out/bench_$name.range.stats" </dev/null
  echo "exit status $?" >>"$out/bench_$name.range.stats"
done

# Binary traces (the slow path, every event kind the ROMs produce), by checksum.
for rom in protected/pm_delivery protected/pm_debug protected/pm_tasks paging/smc paging/tlb real_interrupts; do
  [ -f "$roms/$rom.bin" ] || continue
  name=$(echo "$rom" | tr / _)
  "$x86lab" run --bios "$roms/$rom.bin" --debugcon none --max-instructions 50000000 --trace "bin:$work/t.bin" \
    >/dev/null 2>&1 </dev/null
  echo "exit status $?" >"$out/$name.trace.sha256"
  sha256sum <"$work/t.bin" >>"$out/$name.trace.sha256"
done

# The scenarios (every variant, every counter), as json and csv.
for format in json csv; do
  "$x86lab" compare all --scenario-dir "$roms/scenarios" --format "$format" --no-files -j 2 >"$out/compare-all.$format" 2>"$work/compare.err" </dev/null
  echo "exit status $?" >>"$out/compare-all.$format"
done

# The Linux boot of tests/boot/linux_boot.sh.
cache=${X86LAB_GUEST_CACHE:-$HOME/.cache/x86lab/guests}
if [ "$linux" = 1 ] && [ -s "$cache/vmlinuz" ] && [ -s "$cache/initrd.gz" ]; then
  "$x86lab" run --kernel "$cache/vmlinuz" --initrd "$cache/initrd.gz" --append "console=ttyS0 panic=-1" \
    --serial "file:$out/linux.serial" --exit-on-halt --stats --stats-json "$out/linux.json" \
    </dev/null >/dev/null 2>"$out/linux.stats"
  echo "exit status $?" >>"$out/linux.stats"
else
  echo "no Linux boot (--linux 0, or no guest in $cache)" >"$out/linux.skipped"
fi
echo "behaviour_proof.sh: wrote $(ls "$out" | wc -l) files to $out"
