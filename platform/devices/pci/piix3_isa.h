// The PCI-to-ISA bridge of the Intel 82371SB PIIX3, function 0 of the multi-function
// device 00:01 (82371FB (PIIX) and 82371SB (PIIX3) PCI ISA IDE Xcelerator data sheet,
// "PCI to ISA Bridge Configuration Registers", "Reset Control Register", "PCI
// Interrupt Routing"): identity 8086:7000, the PIRQ route control registers that steer
// PCI INTA#-INTD# onto ISA IRQ lines, and the reset control register at CF9h. The
// edge/level control registers (ELCR, 4D0h-4D1h) live with the 8259A pair
// (platform/devices/pic.h), whose inputs they select.
//
// Register map (offset, name, reset value, writable bits):
//   00h VID 8086h   02h DID 7000h   04h PCICMD 0007h (08h)   06h PCISTS 0200h
//   08h RID 00h   09h CLASSC 060100h (ISA bridge)   0Eh HEDT 80h (multi-function)
//   4Ch IORT 4Dh   4Eh-4Fh XBCS 0003h   60h-63h PIRQRC[A:D] 80h (8Fh)   69h TOM 02h
//   6Ah-6Bh MSTAT 0000h   70h MBIRQ0 80h   76h-77h MBDMA0-1 04h   78h-79h PCSC 0002h
//   A0h SMICNTL 08h   A2h-A3h SMIEN 0000h   A4h-A7h SEE 00000000h   A8h FTMR 0Fh
//   AAh-ABh SMIREQ 0000h   ACh CTLTMR 00h   AEh CTHTMR 00h
// Subsystem IDs: the PIIX3 has none (2Ch-2Fh are reserved and read 0).
#pragma once
#include <array>
#include <bitset>
#include <functional>

#include "platform/devices/pci/pci_function.h"

namespace x86lab {

class Piix3Isa : public PciFunction, public BusDevice {
 public:
  static constexpr u8 kPirqrc = 0x60;  // PIRQRC[A] .. PIRQRC[D] at 60h-63h
  static constexpr u8 kPirqDisable = 0x80;  // IRQROUTEEN#: 1 = PIRQx# not routed
  static constexpr u16 kResetControl = 0xCF9;
  static constexpr unsigned kPirqs = 4;

  // `drive_irq(irq, pirq, level)`: PIRQ `pirq` (0 = PIRQA# .. 3 = PIRQD#) drives ISA
  // IRQ `irq` (3-15) asserted (true) or not (the machine ORs it with the line's other
  // sources, PcDevices::set_irq_source). `reset(hard)`: the reset control register
  // asked for a CPU reset (hard: SRST set, a system reset; else a soft reset, INIT).
  Piix3Isa(std::function<void(unsigned irq, unsigned pirq, bool level)> drive_irq, std::function<void(bool hard)> reset);
  std::string_view function_name() const override { return "piix3-isa"; }

  // The i440FX board's INTx# wiring: INTA#-INTD# (pin 1-4) of a function of PCI device
  // `device` drive PIRQ (pin - 1 + device - 1) mod 4, so device 1's INTA# is PIRQA#,
  // device 2's INTA# PIRQB# (the rotation the BIOSes' PCI IRQ routing follows, checked
  // against what SeaBIOS and the Bochs BIOS program into the Interrupt Line registers).
  static unsigned pirq_of(u8 device, u8 pin) { return (pin - 1u + device + 3u) & 3u; }
  // A function's INTx# changed (the PciBus's router): ORs it into its PIRQ.
  void route_intx(pci::Address address, u8 pin, bool level);
  // The ISA IRQ PIRQ `pirq` is routed to, or 0 when its routing is disabled or the
  // register holds a reserved IRQ (0-2, 8, 13).
  unsigned routed_irq(unsigned pirq) const;
  bool pirq_level(unsigned pirq) const { return pirq < kPirqs && pirq_sources_[pirq].any(); }

  // Every configuration register back to its reset value (a hard reset).
  void reset();

  // The reset control register at CF9h (byte accesses): bit 1 SRST (system reset),
  // bit 2 RCPU (a 0-to-1 transition resets the CPU); reads return bits 1 and 2.
  u32 read(u32 port, unsigned size) override;
  void write(u32 port, unsigned size, u32 value) override;
  std::string_view device_name() const override { return "piix3-reset-control"; }

  void transfer_state(StateArchive& archive) override;

 protected:
  void config_written(u8 offset, unsigned size) override;

 private:
  void set_reset_values();
  void drive(unsigned pirq);
  std::function<void(unsigned, unsigned, bool)> drive_irq_;
  std::function<void(bool)> reset_;
  // Per PIRQ: the functions (device * 8 + function) holding their INTx# asserted there.
  std::array<std::bitset<256>, kPirqs> pirq_sources_{};
  std::array<unsigned, kPirqs> driven_irq_{};  // the IRQ each PIRQ drives now (0: none)
  u8 reset_control_ = 0;
  bool loading_ = false;  // transfer_state is loading: the saved levels stand, nothing is driven
};

}  // namespace x86lab
