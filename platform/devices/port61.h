// System control port B at 61h of a PC/AT: the 8254 counter 2 GATE and speaker
// enable (bits 0-1, read back with bits 2-3), the refresh request toggle (bit 4) and
// counter 2's OUT (bit 5) (IBM PC/AT Technical Reference, "System Control Port B").
#pragma once
#include "trace/state_archive.h"
#include "platform/devices/pit.h"

namespace x86lab {

class SystemControlPortB : public BusDevice {
 public:
  static constexpr u64 kRefreshToggleNs = 15'085;  // one DRAM refresh period

  SystemControlPortB(VirtualClock& clock, Pit8254& pit) : clock_(clock), pit_(pit) {}

  u32 read(u32 port, unsigned size) override;
  void write(u32 port, unsigned size, u32 value) override;
  std::string_view device_name() const override { return "port-61h"; }
  // Saves, checks or loads the device's state (a machine snapshot, trace/state_archive.h).
  void transfer_state(StateArchive& archive);

 private:
  VirtualClock& clock_;
  Pit8254& pit_;
  u8 written_ = 0;  // bits 0-3 as last written
};

}  // namespace x86lab
