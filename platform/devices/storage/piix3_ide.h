// The PIIX3's IDE function (PCI 8086:7010) in compatibility ("legacy") mode: the two
// channels at their fixed ports and IRQs, the IDE Timing registers' decode enables,
// and the bus master IDE registers at BAR4 (82371SB PIIX3 data sheet, "PCI
// Configuration Registers (IDE Interface)": VID, DID, PCICMD, CLASSC, BMIBA, IDETIM,
// SIDETIM).
#pragma once
#include "platform/devices/pci/pci_function.h"
#include "platform/devices/storage/ata_bus_master.h"

namespace x86lab {

// Configuration registers beyond the header (data sheet order):
//   40h-41h IDETIM primary    bit 15 IDE decode enable (1F0h-1F7h, 3F6h), 14:0 timings
//   42h-43h IDETIM secondary  bit 15 IDE decode enable (170h-177h, 376h), 14:0 timings
//   44h     SIDETIM           slave timings
// Header: class 01h 01h, programming interface 80h (bus master capable, both channels
// in compatibility mode, not switchable); Command: I/O space and bus master writable
// (no memory space); BAR4 (20h) BMIBA, 16 bytes of I/O. No interrupt pin: compatibility
// mode uses IRQ 14 and 15.
class Piix3Ide : public PciFunction {
 public:
  static constexpr u16 kVendor = 0x8086, kDevice = 0x7010;
  static constexpr u8 kIdetimPrimary = 0x40, kIdetimSecondary = 0x42, kSidetim = 0x44;
  static constexpr u16 kDecodeEnable = 0x8000;
  static constexpr unsigned kBusMasterBar = 4;

  // `channels`: primary, secondary (their decode follows IDETIM bit 15).
  Piix3Ide(PhysicalBus& memory, std::array<AtaChannel*, 2> channels);
  std::string_view function_name() const override { return "piix3-ide"; }

  // Sets both IDETIM decode enables as a BIOS does (for a machine with no BIOS to do
  // it: direct kernel boot, or no PCI bus to program them through).
  void enable_legacy_decode();
  BusMasterIde& bus_master() { return bus_master_; }

  void transfer_state(StateArchive& archive) override;

 protected:
  void config_written(u8 offset, unsigned size) override;

 private:
  void apply_decode();
  std::array<AtaChannel*, 2> channels_;
  BusMasterIde bus_master_;
};

}  // namespace x86lab
