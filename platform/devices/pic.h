// The 8259A programmable interrupt controller pair of a PC/AT: master at 20h/21h,
// slave at A0h/A1h cascaded on master IR2, and the PIIX edge/level control registers
// (ELCR) at 4D0h/4D1h (Intel 8259A data sheet: "Programming the 8259A", ICW1-4 and
// OCW1-3; Intel 82371AB PIIX4 data sheet, "ELCR"). Implements the CPU's INTR line.
#pragma once
#include "trace/state_archive.h"
#include <array>
#include <functional>

#include "cpu/cpu.h"
#include "mmu/port_bus.h"

namespace x86lab {

// One 8259A. Registers are named as in the data sheet.
class Pic8259 {
 public:
  explicit Pic8259(bool master) : master_(master) {}

  // The level of IR input `ir` (0-7). In edge mode a rising edge sets IRR; in both
  // modes IRR follows the input going low before acknowledge (data sheet: the input
  // must stay high until the first INTA).
  void set_input(unsigned ir, bool level);
  bool input(unsigned ir) const { return (lines_ >> ir) & 1; }

  // The INT output: an unmasked request of higher priority than anything in service.
  bool int_output() const { return highest_request() >= 0; }
  // The INTA sequence. Returns the IR level acknowledged, or 7 for a spurious
  // request (nothing pending at acknowledge: IR7 without setting ISR).
  unsigned acknowledge(bool& spurious);
  u8 vector_base() const { return icw2_ & 0xF8; }
  // With ICW3 of the master: the IR inputs that have slaves.
  u8 cascade_inputs() const { return master_ ? icw3_ : 0; }

  u8 read(unsigned a0);
  void write(unsigned a0, u8 value);

  u8 irr() const { return irr_; }
  u8 isr() const { return isr_; }
  u8 imr() const { return imr_; }
  u8 elcr() const { return elcr_; }
  void set_elcr(u8 value) { elcr_ = value; refresh_level_inputs(); }
  // Saves, checks or loads the device's state (a machine snapshot, trace/state_archive.h).
  void transfer_state(StateArchive& archive);

 private:
  bool level_triggered(unsigned ir) const { return ltim_ || ((elcr_ >> ir) & 1); }
  void refresh_level_inputs();
  // The IR level to request, or -1; honours IMR, ISR priority, rotation and the
  // special mask and special fully nested modes.
  int highest_request() const;
  int highest_in_service() const;
  void end_of_interrupt(int ir, bool rotate);
  unsigned poll();

  bool master_;
  u8 irr_ = 0, isr_ = 0, imr_ = 0, lines_ = 0, elcr_ = 0;
  u8 icw2_ = 0, icw3_ = 0;
  u8 lowest_priority_ = 7;  // rotation: IR (lowest_priority_ + 1) & 7 is highest
  bool ltim_ = false, auto_eoi_ = false, rotate_on_auto_eoi_ = false, special_fully_nested_ = false;
  bool special_mask_ = false, read_isr_ = false, poll_pending_ = false;
  bool icw4_needed_ = false, single_ = false;
  unsigned init_step_ = 0;  // 0 = initialised; 2, 3, 4 = expecting ICW2/3/4
};

// The cascaded pair: the CPU's interrupt controller and the port device of 20h-21h,
// A0h-A1h and 4D0h-4D1h. IRQ 0-7 are master IR0-7, IRQ 8-15 slave IR0-7.
class PicPair : public InterruptController, public BusDevice {
 public:
  explicit PicPair(Cpu* cpu = nullptr) : cpu_(cpu) {}

  // Sets the level of IRQ line `irq` (0-15) as the device drives it.
  void set_irq(unsigned irq, bool level);

  bool interrupt_pending() const override { return master_.int_output(); }
  u8 acknowledge() override;

  u32 read(u32 port, unsigned size) override;
  void write(u32 port, unsigned size, u32 value) override;
  std::string_view device_name() const override { return "pic"; }

  // `listener(level)` hears the master's INT output (the CPU's INTR pin) after every
  // change of the pair's state, with its level then (repeated levels included): the
  // wire that also reaches an I/O APIC input (ExtINT, PcDevices). Not part of the
  // pair's state.
  void set_int_output_listener(std::function<void(bool)> listener) { int_output_listener_ = std::move(listener); }

  Pic8259& master() { return master_; }
  Pic8259& slave() { return slave_; }
  // Saves, checks or loads the device's state (a machine snapshot, trace/state_archive.h).
  void transfer_state(StateArchive& archive);

 private:
  void update_cascade();

  Cpu* cpu_;
  std::function<void(bool)> int_output_listener_;
  Pic8259 master_{true};
  Pic8259 slave_{false};
};

}  // namespace x86lab
