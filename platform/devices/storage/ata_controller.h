// The PC's IDE controller as one unit: the primary and secondary ATA channels on their
// legacy ports and IRQs, with the PIIX3 IDE function (PCI 00:01.1 on a PIIX3 machine)
// that owns their decode enables and the bus master DMA (docs/booting.md "Disks and
// CD-ROMs").
#pragma once
#include <array>
#include <functional>

#include "mmu/port_bus.h"
#include "platform/devices/storage/ata_channel.h"
#include "platform/devices/storage/piix3_ide.h"

namespace x86lab {

class AtaController {
 public:
  // The images of the four drives: hda (primary master), hdb (primary slave), hdc
  // (secondary master), hdd (secondary slave); null for none. A Medium::Cdrom image is
  // an ATAPI CD-ROM, any other an ATA disk. The images outlive the controller.
  using Drives = std::array<DiskImage*, 4>;
  static constexpr unsigned kPrimaryIrq = 14, kSecondaryIrq = 15;

  // Whether the IDETIM decode enables start set: Enabled as a BIOS leaves them (for a
  // machine without a PCI bus or BIOS to program them), PowerOn as the data sheet
  // resets them (0000h: both channels off until software sets bit 15).
  enum class Decode : u8 { Enabled, PowerOn };

  // `irq(line, level)` drives ISA IRQ 14 or 15.
  AtaController(PhysicalBus& memory, std::function<void(unsigned, bool)> irq, const Drives& drives,
                Decode decode = Decode::Enabled);
  // Attaches the legacy ports: 1F0h-1F7h and 3F6h, 170h-177h and 376h (3F7h and 377h
  // stay with the floppy controller).
  void attach_ports(PortBus& ports);

  AtaChannel& primary() { return primary_; }
  AtaChannel& secondary() { return secondary_; }
  // The PCI function to plug at 00:01.1 (PciBus); its BAR4 is decoded once plugged.
  Piix3Ide& pci_function() { return ide_; }

  // Saves, checks or loads both channels (their devices and disks) and the PCI
  // function with its bus master registers.
  void transfer_state(StateArchive& archive);

 private:
  AtaChannel primary_, secondary_;
  Piix3Ide ide_;
};

}  // namespace x86lab
