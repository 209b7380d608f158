// The progress line (ui/progress_line.h).
#include "ui/progress_line.h"

#include <unistd.h>

namespace x86lab {

ProgressLine::ProgressLine(const Machine& machine, std::FILE* terminal)
    : machine_(machine), terminal_(terminal), last_output_(std::chrono::steady_clock::now()),
      last_draw_(last_output_), start_(last_output_), in_place_(isatty(fileno(terminal)) == 1) {}

ProgressLine::~ProgressLine() {
  if (in_place_) {
    erase();
    return;
  }
  print(std::chrono::steady_clock::now(), start_, 0);
  std::fputc('\n', terminal_);
  std::fflush(terminal_);
}

void ProgressLine::update() {
  if (!in_place_) return;
  const auto now = std::chrono::steady_clock::now();
  if (!at_line_start_ || now - last_output_ < kQuietTime || (shown_ && now - last_draw_ < kRedrawInterval)) return;
  std::fputs("\r\033[K", terminal_);
  print(now, shown_ ? last_draw_ : start_, shown_ ? last_instructions_ : 0);
  std::fflush(terminal_);
  shown_ = true;
  last_draw_ = now;
  last_instructions_ = machine_.counters.instructions;
}

void ProgressLine::print(std::chrono::steady_clock::time_point now, std::chrono::steady_clock::time_point since,
                         u64 since_instructions) {
  const u64 instructions = machine_.counters.instructions;
  const double seconds = std::chrono::duration<double>(now - since).count();
  const double mips = seconds > 0 ? static_cast<double>(instructions - since_instructions) / seconds / 1e6 : 0;
  const double guest_seconds = static_cast<double>(machine_.clock.ns_at(machine_.clock.now())) / 1e9;
  std::fprintf(terminal_, "x86lab: %.3f G instructions, %.0f MIPS, guest time %.2f s", instructions / 1e9, mips,
               guest_seconds);
}

void ProgressLine::guest_output(u8 byte) {
  erase();
  at_line_start_ = byte == '\n';
  last_output_ = std::chrono::steady_clock::now();
}

void ProgressLine::erase() {
  if (!shown_) return;
  std::fputs("\r\033[K", terminal_);
  std::fflush(terminal_);
  shown_ = false;
}

}  // namespace x86lab
