// The 82441FX PMC host bridge: reset values and the PAM shadow-RAM routing (440FX
// PCIset data sheet, "PAM[6:0]—Programmable Attribute Map Registers", "SMRAM—System
// Management RAM Control Register").
#include "platform/devices/pci/i440fx.h"

namespace x86lab {

I440fx::I440fx(PhysicalBus& memory) : PciFunction(0x8086, 0x1237, 0x02, 0x060000, 0x00, 0), memory_(memory) {
  set_reset_values();
  apply_pam();
}

void I440fx::set_reset_values() {
  set_config_word(pci::kCommand, pci::kCommandMemory | pci::kCommandBusMaster);  // 0006h
  set_config_word(pci::kStatus, 0x0280);  // fast back-to-back capable, DEVSEL# medium
  set_config_byte(pci::kLatencyTimer, 0);
  set_writable(pci::kLatencyTimer, 0xF8);
  const struct {
    u8 offset, reset, writable;
  } registers[] = {
      {0x50, 0x00, 0xFF}, {0x51, 0x00, 0xFF},               // PMCCFG
      {0x53, 0x80, 0xFF}, {0x54, 0x00, 0xFF},               // DBC, AXC
      {0x55, 0x00, 0xFF}, {0x56, 0x00, 0xFF},               // DRAMR
      {0x57, 0x01, 0xFF}, {0x58, 0x10, 0xFF},               // DRAMC, DRAMT
      {0x68, 0x00, 0xC0},                                   // FDHC
      {0x70, 0x20, 0xF8}, {0x71, 0x10, 0xFF},               // MTT, CLT
      {kSmram, 0x02, 0x78},                                 // SMRAM
      {0x90, 0x00, 0xFF}, {0x91, 0x00, 0xFF}, {0x93, 0x00, 0x06},  // ERRCMD, ERRSTS, TRC
  };
  for (const auto& r : registers) {
    set_config_byte(r.offset, r.reset);
    set_writable(r.offset, r.writable);
  }
  for (u8 pam = 0; pam < 7; ++pam) {
    set_config_byte(kPam0 + pam, 0x00);
    set_writable(kPam0 + pam, pam == 0 ? 0x30 : 0x33);
  }
  for (u8 row = 0; row < 8; ++row) {
    set_config_byte(kDrb0 + row, 0x01);
    set_writable(kDrb0 + row, 0xFF);
  }
}

I440fx::Segment I440fx::pam_segment(unsigned pam, bool high) {
  if (pam == 0) return high ? Segment{0xF0000, 0x10000} : Segment{0, 0};
  return {0xC0000 + (pam - 1) * 0x8000 + (high ? 0x4000u : 0u), 0x4000};
}

void I440fx::apply_pam() {
  for (unsigned pam = 0; pam < 7; ++pam) {
    const u8 value = config_byte(static_cast<u8>(kPam0 + pam));
    if (pam_applied_ && applied_pam_[pam] == value) continue;
    for (const bool high : {false, true}) {
      const Segment segment = pam_segment(pam, high);
      if (!segment.size) continue;
      const u8 attributes = high ? value >> 4 : value & 0xF;
      memory_.route_shadow(segment.base, segment.size, attributes & kReadEnable, attributes & kWriteEnable);
    }
    applied_pam_[pam] = value;
  }
  pam_applied_ = true;
}

void I440fx::config_written(u8 offset, unsigned size) {
  if (offset <= kPam6 && offset + size > kPam0) apply_pam();
  if (offset <= kSmram && offset + size > kSmram && (config_byte(kSmram) & kSmramLock)) {
    // D_LCK: D_OPEN is cleared and D_OPEN, D_LCK and G_SMRAME become read-only until reset.
    set_config_byte(kSmram, config_byte(kSmram) & ~kSmramOpen);
    set_writable(kSmram, 0x20);
  }
}

void I440fx::reset() {
  set_reset_values();
  apply_pam();
}

void I440fx::open_shadow_below(u32 rom_base) {
  for (unsigned pam = 0; pam < 7; ++pam) {
    u8 value = 0;
    for (const bool high : {false, true}) {
      const Segment segment = pam_segment(pam, high);
      if (segment.size && segment.base + segment.size <= rom_base) value |= (kReadEnable | kWriteEnable) << (high ? 4 : 0);
    }
    set_config_byte(static_cast<u8>(kPam0 + pam), value);
  }
  apply_pam();
}

}  // namespace x86lab
