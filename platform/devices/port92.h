// System control port A at I/O port 92h ("fast A20" and fast reset) of PS/2-style
// chipsets (Intel 82371 PIIX/PIIX3 data sheets, "Port 92 Register"): bit 1 drives
// the A20 gate, ORed there with the keyboard controller's A20 output; a 0-to-1
// transition of bit 0 resets the processor.
#pragma once
#include "trace/state_archive.h"
#include <functional>

#include "mmu/physical_bus.h"
#include "mmu/port_bus.h"

namespace x86lab {

class Port92 : public BusDevice {
 public:
  // `reset_cpu` is called on a fast-reset request (may be empty to ignore it).
  Port92(PhysicalBus& bus, std::function<void()> reset_cpu) : bus_(bus), reset_cpu_(std::move(reset_cpu)) {}

  // Reads return bits 1-0 as last written; the other bits read 0.
  u32 read(u32 port, unsigned size) override;
  void write(u32 port, unsigned size, u32 value) override;
  std::string_view device_name() const override { return "port92"; }

  u8 value() const { return value_; }
  // Saves, checks or loads the device's state (a machine snapshot, trace/state_archive.h).
  void transfer_state(StateArchive& archive);

 private:
  static constexpr u8 kFastReset = 1 << 0, kA20 = 1 << 1;

  PhysicalBus& bus_;
  std::function<void()> reset_cpu_;
  u8 value_ = 0;  // power-on: A20 bit clear (the keyboard controller's output opens the gate)
};

}  // namespace x86lab
