// Port 61h reads and writes. DEVIATION: the refresh toggle (bit 4) runs from the
// virtual clock at the refresh period a PC BIOS programs, not from counter 1's OUT.
#include "platform/devices/port61.h"

namespace x86lab {

u32 SystemControlPortB::read(u32, unsigned) {
  const bool refresh = (clock_.ns_at(clock_.now()) / kRefreshToggleNs) & 1;
  return static_cast<u8>((written_ & 0x0F) | (refresh ? 0x10 : 0) | (pit_.out(2) ? 0x20 : 0));
}

void SystemControlPortB::write(u32, unsigned, u32 value) {
  written_ = static_cast<u8>(value & 0x0F);
  pit_.set_gate(2, value & 0x01);
}

void SystemControlPortB::transfer_state(StateArchive& a) { a.field(written_, "port 61h", 0xF); }

}  // namespace x86lab
