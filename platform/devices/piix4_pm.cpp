// The PIIX4's ACPI PM1 registers: PMSTS, PMEN and PMCNTRL, byte by byte (82371AB PIIX4
// data sheet, "Power Management Registers").
#include "platform/devices/piix4_pm.h"

namespace x86lab {

namespace {
constexpr u16 kPmcntrlWritable = Piix4PowerManagement::kBrldEnBm | Piix4PowerManagement::kSusTyp;
constexpr unsigned kBlockBytes = Piix4PowerManagement::kLastPort - Piix4PowerManagement::kPm1aEventBlock + 1;
}  // namespace

u8 Piix4PowerManagement::read_byte(unsigned offset) const {
  const u16 reg = offset < kPmen ? pmsts_ : offset < kPmcntrl ? pmen_ : pmcntrl();
  return static_cast<u8>(reg >> (8 * (offset & 1)));
}

u32 Piix4PowerManagement::read(u32 port, unsigned size) {
  u32 value = 0;
  for (unsigned i = 0; i < size; ++i) {
    const u32 offset = port + i - kPm1aEventBlock;
    const u32 byte = offset < kBlockBytes ? read_byte(offset) : 0xFFu;
    value |= byte << (8 * i);
  }
  return value;
}

void Piix4PowerManagement::write(u32 port, unsigned size, u32 value) {
  // Gather the bytes per register first, so that a word written in one access acts once.
  u16 data[3] = {}, lanes[3] = {};
  for (unsigned i = 0; i < size; ++i) {
    const u32 offset = port + i - kPm1aEventBlock;
    if (offset >= kBlockBytes) continue;
    const unsigned shift = 8 * (offset & 1);
    data[offset / 2] |= static_cast<u16>((value >> (8 * i) & 0xFF) << shift);
    lanes[offset / 2] |= static_cast<u16>(0xFF << shift);
  }
  pmsts_ &= static_cast<u16>(~(data[0] & lanes[0] & kStatusBits));
  pmen_ = static_cast<u16>((pmen_ & ~lanes[1]) | (data[1] & lanes[1] & kEnableBits));
  const u16 writable = lanes[2] & kPmcntrlWritable;
  pmcntrl_ = static_cast<u16>((pmcntrl_ & ~writable) | (data[2] & writable));
  if (data[2] & lanes[2] & kSusEn) {
    ++sleep_requests_;
    pmsts_ |= kWakSts;  // DEVIATION (see the header): no sleep, an immediate wake
  }
}

void Piix4PowerManagement::transfer_state(StateArchive& a) {
  a.field(pmsts_, "PMSTS", kStatusBits);
  a.field(pmen_, "PMEN", kEnableBits);
  a.field(pmcntrl_, "PMCNTRL", kPmcntrlWritable);
  a.field(sleep_requests_, "PM sleep requests");
}

}  // namespace x86lab
