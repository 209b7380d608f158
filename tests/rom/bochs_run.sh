# Sourced by run_rom.sh: bochs_run runs one ROM image under Bochs 2.7 headless and
# without standard input, and returns the status QEMU's isa-debug-exit would give
# (2 * the byte written to port F4h + 1: 33 for PASS_CODE 10h, 35 for FAIL_CODE 11h).
#
# Bochs has no exit device on port F4h, so the run is watched instead: Bochs logs each
# write to a port no device claims ("unmapped: 8-bit write to 00f4 = 10", a debug
# message of its unmapped-port device, which also carries the port E9h console). The
# log goes to standard error, which is unbuffered, through a FIFO read here line by
# line. The ROMs write port F4h exactly once, as the last thing before CLI; HLT, and
# every byte of their E9h output reaches the output file before that (one write(2)
# each), so at that line the run is complete and Bochs is stopped. The outcome depends
# only on the guest's instructions (clock: sync=none, a fixed start time), not on how
# soon the line is seen. A triple fault (Bochs logs "3rd ... exception with no
# resolution" and enters shutdown), a HLT with IF = 0 before the exit (the guest can
# never go on), a Bochs panic (the process ends) or no exit within the time limit
# fails the run.
#
# The settings are those that work on a machine with no display, no sound card and no
# terminal: the rfb display library with timeout=0 (Debian's build has no "nogui"; rfb
# waits for no viewer), sound: driver=dummy and speaker: enabled=0 (Bochs 2.7 aborts in
# its ALSA mixer thread otherwise), and debugger commands from a file ("c" runs the
# guest; Debian's Bochs has the internal debugger, which would otherwise prompt).
# usage: bochs_run BOCHS ROM OUTPUT WORK-FOLDER [SECONDS]
bochs_run() {
  local bochs=$1 rom=$2 output=$3 work=$4 seconds=${5:-60}
  cat >"$work/bochsrc" <<RC
cpu: model=p3_katmai, reset_on_triple_fault=0
memory: guest=64, host=64
romimage: file=$rom
display_library: rfb, options="timeout=0"
port_e9_hack: enabled=1
sound: driver=dummy
speaker: enabled=0
clock: sync=none, time0=946684800
log: -
panic: action=fatal
error: action=report
info: action=report
debug: action=ignore, unmapped=report
RC
  printf 'c\nquit\n' >"$work/commands"
  mkfifo "$work/log"
  "$bochs" -q -f "$work/bochsrc" -rc "$work/commands" </dev/null >"$output" 2>"$work/log" &
  local pid=$! line code="" verdict="" deadline=$((SECONDS + seconds))
  exec 3<"$work/log"
  while [ -z "$verdict" ]; do
    local left=$((deadline - SECONDS)) status
    if [ "$left" -le 0 ]; then verdict=timeout; break; fi
    IFS= read -r -t "$left" line <&3
    status=$?
    if [ "$status" -gt 128 ]; then verdict=timeout; break; fi
    # EOF: Bochs ended by itself (a panic, a configuration error).
    if [ "$status" -ne 0 ]; then verdict="an end of Bochs"; break; fi
    printf '%s\n' "$line" >>"$work/bochs.log"
    case $line in
      *"unmapped: 8-bit write to 00f4 = "*) code=${line##* }; verdict=exit ;;
      *"exception with no resolution"*) verdict="triple fault" ;;
      *"HLT instruction with IF=0"*) verdict="HLT with IF = 0" ;;
    esac
  done
  # Drain the log while Bochs stops, so that it never blocks on a full FIFO; SIGTERM
  # ends it at once (its debugger does not catch it), SIGKILL is the fallback.
  cat <&3 >>"$work/bochs.log" &
  local drain=$! tries=0
  exec 3<&-
  kill -TERM "$pid" 2>/dev/null
  while kill -0 "$pid" 2>/dev/null && [ $((tries += 1)) -le 50 ]; do sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  wait "$drain"
  if [ "$verdict" = exit ]; then
    return $((2 * 16#$code + 1))
  fi
  echo "bochs: $verdict before the write to port F4h; the last lines of its log:"
  grep -E '^[0-9]+[ep]\[|HLT instruction|exiting' "$work/bochs.log" | tail -n 15
  return 1
}
