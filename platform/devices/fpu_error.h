// The PC/AT's x87 error logic (IBM PC/AT Technical Reference; Intel SDM Vol. 1,
// Appendix D "MS-DOS Compatibility Sub-mode"): FERR# from the CPU latches IRQ 13 at
// the slave 8259A; a write to port F0h clears the latch and asserts IGNNE# until
// FERR# goes away, so a CR0.NE = 0 handler can let the next FPU instruction run.
#pragma once
#include "trace/state_archive.h"
#include <functional>

#include "cpu/x87/error_pins.h"
#include "mmu/port_bus.h"

namespace x86lab {

class FpuErrorLatch : public BusDevice {
 public:
  // `irq13` drives the IRQ 13 line of the slave PIC.
  explicit FpuErrorLatch(std::function<void(bool)> irq13) : irq13_(std::move(irq13)) {}

  // The CPU's side (Cpu::set_x87_error_pins): FERR# in, IGNNE# out.
  X87ErrorPins pins() {
    return {[this](bool asserted) { ferr(asserted); }, [this] { return ignne(); }};
  }
  void ferr(bool asserted) {
    ferr_ = asserted;
    if (asserted) {
      irq13_(true);  // the latch sets on FERR#
    } else {
      ignne_ = false;  // IGNNE# follows FERR# away
    }
  }
  bool ignne() const { return ignne_; }

  u32 read(u32, unsigned size) override { return size == 4 ? 0xFFFFFFFFu : (1u << (8 * size)) - 1; }
  // Any write to port F0h clears the latch and, while FERR# is asserted, asserts IGNNE#.
  void write(u32, unsigned, u32) override {
    irq13_(false);
    ignne_ = ferr_;
  }
  std::string_view device_name() const override { return "fpu-error"; }
  // Saves, checks or loads the device's state (a machine snapshot, trace/state_archive.h).
  void transfer_state(StateArchive& archive) {
    archive.field(ferr_, "FERR#");
    archive.field(ignne_, "IGNNE#");
  }

 private:
  std::function<void(bool)> irq13_;
  bool ferr_ = false, ignne_ = false;
};

}  // namespace x86lab
