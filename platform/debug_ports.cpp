// Debug console, POST code and exit ports.
#include "platform/debug_ports.h"

#include "cpu/cpu.h"

namespace x86lab {

u32 DebugPorts::read(u32 port, unsigned size) {
  if (port == 0xE9 || port == kSeaBiosDebugPort) return 0xE9;
  return size == 4 ? 0xFFFFFFFFu : (1u << (8 * size)) - 1;
}

void DebugPorts::write(u32 port, unsigned, u32 value) {
  switch (port) {
    case 0xE9:
    case kSeaBiosDebugPort:
      if (console_) {
        if (before_output_) before_output_(static_cast<u8>(value));
        std::fputc(static_cast<int>(value & 0xFF), console_);
        if ((value & 0xFF) == '\n') std::fflush(console_);
      }
      break;
    case 0x80:
      if (post_) {
        if (before_output_) before_output_('\n');
        std::fprintf(stderr, "POST %02x\n", value & 0xFF);
      }
      break;
    case 0xF4:
      exit_status_ = static_cast<int>(((value & 0xFF) << 1) | 1);
      cpu_.stop();
      break;
    default: break;
  }
}

}  // namespace x86lab
