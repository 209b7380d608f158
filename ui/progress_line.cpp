// The progress line (ui/progress_line.h).
#include "ui/progress_line.h"

namespace x86lab {

ProgressLine::ProgressLine(const Machine& machine, std::FILE* terminal)
    : machine_(machine), terminal_(terminal), last_output_(std::chrono::steady_clock::now()),
      last_draw_(last_output_), start_(last_output_) {}

void ProgressLine::update() {
  const auto now = std::chrono::steady_clock::now();
  if (!at_line_start_ || now - last_output_ < kQuietTime || (shown_ && now - last_draw_ < kRedrawInterval)) return;
  const u64 instructions = machine_.counters.instructions;
  const double seconds = std::chrono::duration<double>(now - (shown_ ? last_draw_ : start_)).count();
  const double mips = seconds > 0 ? static_cast<double>(instructions - (shown_ ? last_instructions_ : 0)) / seconds / 1e6 : 0;
  const double guest_seconds = static_cast<double>(machine_.clock.ns_at(machine_.clock.now())) / 1e9;
  std::fprintf(terminal_, "\r\033[Kx86lab: %.3f G instructions, %.0f MIPS, guest time %.2f s", instructions / 1e9, mips,
               guest_seconds);
  std::fflush(terminal_);
  shown_ = true;
  last_draw_ = now;
  last_instructions_ = instructions;
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
