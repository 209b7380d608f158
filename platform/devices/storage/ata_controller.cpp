// Construction and port wiring of the two ATA channels and the PIIX3 IDE function.
#include "platform/devices/storage/ata_controller.h"

namespace x86lab {

namespace {
std::string serial_of(const DiskImage* image, unsigned index) {
  const bool cd = image && image->medium() == DiskImage::Medium::Cdrom;
  return std::string(cd ? "X86LAB-CD" : "X86LAB-HD") + std::to_string(index);
}
}  // namespace

AtaController::AtaController(PhysicalBus& memory, std::function<void(unsigned, bool)> irq, const Drives& drives,
                             Decode decode)
    : primary_("ata0", AtaChannel::kPrimaryCommand, AtaChannel::kPrimaryControl,
               [irq](bool level) { irq(kPrimaryIrq, level); }),
      secondary_("ata1", AtaChannel::kSecondaryCommand, AtaChannel::kSecondaryControl,
                 [irq](bool level) { irq(kSecondaryIrq, level); }),
      ide_(memory, {&primary_, &secondary_}) {
  for (unsigned i = 0; i < 4; ++i) (i < 2 ? primary_ : secondary_).connect(i & 1, drives[i], serial_of(drives[i], i));
  if (decode == Decode::Enabled) ide_.enable_legacy_decode();
}

void AtaController::attach_ports(PortBus& ports) {
  ports.attach(AtaChannel::kPrimaryCommand, AtaChannel::kPrimaryCommand + 7, &primary_);
  ports.attach(AtaChannel::kPrimaryControl, AtaChannel::kPrimaryControl, &primary_);
  ports.attach(AtaChannel::kSecondaryCommand, AtaChannel::kSecondaryCommand + 7, &secondary_);
  ports.attach(AtaChannel::kSecondaryControl, AtaChannel::kSecondaryControl, &secondary_);
}

void AtaController::transfer_state(StateArchive& a) {
  primary_.transfer_state(a);
  secondary_.transfer_state(a);
  ide_.transfer_state(a);
}

}  // namespace x86lab
