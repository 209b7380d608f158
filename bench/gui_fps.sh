#!/usr/bin/env bash
# Frame rate of the GUI inspector while the guest runs (issue 10 aim: at least 30
# frames per second), offscreen with the software renderer, as CI would draw it.
# Builds bench/roms/faults.asm with many iterations (ring-3 IN -> #GP -> ring-0
# emulation -> IRETD: a guest that keeps the Trace, Counters and Descriptor tables
# windows busy), opens `x86lab gui --run --frames N` on it and prints the frames per
# second and the guest's million steps per second that x86lab gui reports.
#
# usage: bench/gui_fps.sh [--build DIR] [--frames N] [--scenario NAME/VARIANT]
#   --build DIR    x86lab build folder (default build/release)
#   --frames N     frames to draw (default 300)
#   --scenario S   run a scenario variant instead of the faults ROM (e.g. tls/flipping)
set -euo pipefail
source "$(dirname "$0")/bench_common.sh"
build=$root/build/release frames=300 scenario=
parse_options gui_fps.sh "build frames scenario" "$@"
require_x86lab gui_fps.sh "$build"
x86lab=$build/x86lab
make_work_dir
if [ -n "$scenario" ]; then
  machine=(--scenario "$scenario")
else
  nasm -f bin -I"$root/roms/include/" -I"$root/bench/roms/" -DITERATIONS=100000000 -o "$work/faults.bin" \
    "$root/bench/roms/faults.asm"
  machine=(--bios "$work/faults.bin")
fi
echo "x86lab gui --run --frames $frames ${machine[*]} (offscreen, software renderer)"
HOME=$work SDL_VIDEODRIVER=offscreen "$x86lab" gui "${machine[@]}" --run --no-layout --frames "$frames" \
  --debugcon none --serial none 2>&1 >/dev/null | grep 'frames/s'
