// The PIIX3 IDE function's configuration registers (82371SB data sheet, "PCI
// Configuration Registers (IDE Interface)").
#include "platform/devices/storage/piix3_ide.h"

namespace x86lab {

Piix3Ide::Piix3Ide(PhysicalBus& memory, std::array<AtaChannel*, 2> channels)
    : PciFunction(kVendor, kDevice, 0x00, 0x010180, 0x00, 0),
      channels_(channels),
      bus_master_(memory, channels, [this] { return bus_master_enabled(); }) {
  set_writable(pci::kCommand, pci::kCommandIo | pci::kCommandBusMaster);
  set_writable(pci::kCommand + 1, 0);
  set_writable(pci::kInterruptLine, 0);
  for (u8 offset = kIdetimPrimary; offset <= kSidetim; ++offset) set_writable(offset, 0xFF);
  declare_bar(kBusMasterBar, BarKind::Io, BusMasterIde::kBytes, &bus_master_);
  apply_decode();  // IDETIM resets to 0000h: both channels off until software enables them
}

void Piix3Ide::enable_legacy_decode() {
  set_config_byte(kIdetimPrimary + 1, static_cast<u8>(config_byte(kIdetimPrimary + 1) | 0x80));
  set_config_byte(kIdetimSecondary + 1, static_cast<u8>(config_byte(kIdetimSecondary + 1) | 0x80));
  apply_decode();
}

void Piix3Ide::apply_decode() {
  if (channels_[0]) channels_[0]->set_decode(config_word(kIdetimPrimary) & kDecodeEnable);
  if (channels_[1]) channels_[1]->set_decode(config_word(kIdetimSecondary) & kDecodeEnable);
}

void Piix3Ide::config_written(u8 offset, unsigned size) {
  if (offset < kIdetimSecondary + 2 && offset + size > kIdetimPrimary) apply_decode();
}

void Piix3Ide::transfer_state(StateArchive& a) {
  PciFunction::transfer_state(a);
  bus_master_.transfer_state(a);
}

}  // namespace x86lab
