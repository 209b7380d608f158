// Port 92h: the A20 gate input and the fast-reset bit.
#include "platform/devices/port92.h"

namespace x86lab {

u32 Port92::read(u32, unsigned size) {
  // A word or dword read gets all ones above the byte (no device at 93h-95h).
  return size == 1 ? value_ : (size == 2 ? 0xFF00u : 0xFFFFFF00u) | value_;
}

void Port92::write(u32, unsigned, u32 value) {
  const u8 written = static_cast<u8>(value) & (kFastReset | kA20);
  bus_.set_a20(A20Source::Port92, written & kA20);
  const bool reset = (written & kFastReset) && !(value_ & kFastReset);
  value_ = written;
  if (reset && reset_cpu_) reset_cpu_();
}

void Port92::transfer_state(StateArchive& a) { a.field(value_, "port 92h"); }

}  // namespace x86lab
