// Recordings of runs, and trace windows regenerated from them (docs/tracing.md
// "Trace windows from a recording").
//
// `x86lab run ... --recording DIR` keeps what reproduces the run exactly: the host
// inputs (DIR/inputs.log, the --record log of docs/snapshots.md), the machine options a
// snapshot must be loaded with (DIR/machine-options, one argument per line), the step
// where the run ended (DIR/end-steps, decimal), and whole-
// machine snapshots DIR/snapshot-I.snap taken before instruction I (I = the instruction
// count, 12 digits): one at the start and then one at the first slice boundary at or
// after each multiple of --recording-interval instructions.
//
// `x86lab trace window --recording DIR --from N --to M --out FILE` loads the last
// snapshot before instruction N, replays the inputs to N untraced (at full speed), and
// writes the binary trace of instructions N to M: byte for byte what `x86lab trace
// convert FULL FILE --from N --to M` cuts out of a full trace of the same run
// (tests/trace/trace_window.cmake checks it on a ROM, a scenario kernel and Linux).
#pragma once
#include <boost/program_options.hpp>
#include <string>
#include <vector>

#include "platform/machine.h"

namespace x86lab {

class Recording {
 public:
  // Default distance between snapshots, in instructions: a Linux boot (about 6.5 G
  // instructions) keeps 14 snapshots, and a window starts at most this many
  // instructions, run untraced, after its snapshot. An assumption about the trade
  // between disk (one snapshot: the non-zero RAM pages, about 20-60 MB for Linux) and
  // the time to reach a window (about 5 s at 100 MIPS).
  static constexpr u64 kDefaultInterval = 500'000'000;

  // Prepares `dir` (created if absent; an existing one must be empty or hold an earlier
  // recording, whose files are replaced). Throws InputError naming --recording and the
  // directory when it cannot be created or written, or holds other files.
  Recording(std::string dir, u64 interval, std::vector<std::string> machine_options);

  u64 interval() const { return interval_; }
  // The input log the run must write (--record's LOG).
  std::string inputs_path() const { return dir_ + "/inputs.log"; }
  // Saves the first snapshot (the machine as it starts) and writes machine-options.
  void start(Machine& machine);
  // Saves a snapshot when the run has passed the next multiple of the interval (call
  // between slices: at an instruction boundary).
  void between_slices(Machine& machine);
  // Writes DIR/end-steps, the step count where the run ended (Cpu::steps), so that a
  // window never runs past the recorded run (its exit, limit, Ctrl-A x or signal).
  void finish(Machine& machine);
  // What the recording holds, for the end-of-run message.
  std::string summary() const;

  // The options a loading run must give again (snapshot_file.h refuses a mismatch):
  // those of `vm` among --memory, --profile, --cpu-mhz, --cache-model, --exit-on-halt,
  // --reset-on-triple-fault, as they were given.
  static std::vector<std::string> machine_options_of(const boost::program_options::variables_map& vm);

 private:
  void save(Machine& machine);
  std::string dir_;
  u64 interval_;
  u64 next_ = 0;  // the instruction count at which the next snapshot is due
  std::vector<std::string> machine_options_;
  unsigned saved_ = 0;
};

// Adds --recording DIR and --recording-interval N to `x86lab run`'s options.
void add_recording_options(boost::program_options::options_description& options);

// `x86lab trace window --recording DIR --from N --to M --out FILE [--filter ITEMS]`:
// returns the exit status (2 with one line for bad input: a missing recording, no
// snapshot at or before N, a snapshot the options do not match).
int trace_window_command(const std::vector<std::string>& args);

}  // namespace x86lab
