// The progress line of `x86lab run` on a terminal: while the guest prints nothing, one
// line on stderr says how far the run is (instructions, MIPS, guest time), rewritten
// in place about once a second and erased before the guest's next output. Wall time
// decides only when the line is drawn, never what the machine does. When stderr is no
// terminal (a file, a pipe: `--progress` asked for it), nothing is rewritten: one line
// at the end of the run gives the same figures (MIPS over the whole run).
#pragma once
#include <chrono>
#include <cstdio>

#include "platform/machine.h"

namespace x86lab {

class ProgressLine {
 public:
  // Steps between two looks at the clock (run_machine's slices): about a tenth of a
  // second at the Linux boot's 130 MIPS.
  static constexpr u64 kSliceSteps = 16'000'000;
  // The line appears once the guest has been quiet this long, and is redrawn as often.
  static constexpr std::chrono::milliseconds kQuietTime{2000}, kRedrawInterval{1000};

  // Draws on `terminal` (stderr) for `machine`.
  ProgressLine(const Machine& machine, std::FILE* terminal);
  // Erases the line (a terminal) or writes the final one (anything else).
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // Between slices: draws or redraws the line when it is due.
  void update();
  // The guest is about to print `byte` (the serial console, port E9h): erases the
  // line if it is shown, and starts the quiet time anew.
  void guest_output(u8 byte);

 private:
  void erase();
  // "x86lab: 0.123 G instructions, 110 MIPS, guest time 1.23 s", MIPS since `since`
  // and `since_instructions`.
  void print(std::chrono::steady_clock::time_point now, std::chrono::steady_clock::time_point since,
             u64 since_instructions);

  const Machine& machine_;
  std::FILE* terminal_;
  std::chrono::steady_clock::time_point last_output_, last_draw_, start_;
  u64 last_instructions_ = 0;
  bool in_place_;  // `terminal_` is a terminal: the line is rewritten in place
  bool shown_ = false;
  bool at_line_start_ = true;  // the guest's last byte was a '\n' (or it printed none)
};

}  // namespace x86lab
