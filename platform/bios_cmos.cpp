// The PC/AT CMOS configuration bytes for a BIOS's POST.
#include "platform/bios_cmos.h"

#include <algorithm>

namespace x86lab {

u8 cmos_boot_device(char letter) {
  switch (letter) {
    case 'a': return 1;
    case 'c': return 2;
    case 'd': return 3;
    default: return 0;
  }
}

void write_bios_cmos(Mc146818& rtc, const BiosCmosConfig& config) {
  constexpr u64 kMiB = 1024 * 1024;
  const auto word = [&rtc](unsigned index, u32 value) {
    rtc.set_cmos_byte(index, static_cast<u8>(value));
    rtc.set_cmos_byte(index + 1, static_cast<u8>(value >> 8));
  };
  const u8 floppy_a = static_cast<u8>(config.floppies[0]), floppy_b = static_cast<u8>(config.floppies[1]);
  rtc.set_cmos_byte(0x10, static_cast<u8>(floppy_a << 4 | floppy_b));
  const unsigned floppies = (floppy_a ? 1 : 0) + (floppy_b ? 1 : 0);
  u8 equipment = config.fpu ? 0x02 : 0x00;
  if (floppies) equipment |= static_cast<u8>(0x01 | (floppies - 1) << 6);
  rtc.set_cmos_byte(0x14, equipment);
  word(0x15, 640);
  const u64 extended_kb = config.ram_bytes > kMiB ? std::min<u64>((config.ram_bytes - kMiB) / 1024, 0xFFFF) : 0;
  word(0x17, static_cast<u32>(extended_kb));
  word(0x30, static_cast<u32>(extended_kb));
  const u64 above_16m = config.ram_bytes > 16 * kMiB ? std::min<u64>((config.ram_bytes - 16 * kMiB) / 65536, 0xFFFF) : 0;
  word(0x34, static_cast<u32>(above_16m));
  const u64 above_4g = std::min<u64>(config.ram_above_4g_bytes / 65536, 0xFFFFFF);
  rtc.set_cmos_byte(0x5B, static_cast<u8>(above_4g));
  rtc.set_cmos_byte(0x5C, static_cast<u8>(above_4g >> 8));
  rtc.set_cmos_byte(0x5D, static_cast<u8>(above_4g >> 16));

  u8 disk_types = 0, translation = 0;
  for (unsigned disk = 0; disk < 2; ++disk) {
    const BiosCmosConfig::DiskGeometry& g = config.disks[disk];
    const unsigned base = disk == 0 ? 0x1B : 0x24;
    if (!g.cylinders) {
      rtc.set_cmos_byte(0x19 + disk, 0);
      for (unsigned i = 0; i < 9; ++i) rtc.set_cmos_byte(base + i, 0);
      continue;
    }
    const u32 cylinders = std::min<u32>(g.cylinders, 0xFFFF);
    disk_types |= static_cast<u8>(0xF0 >> (4 * disk));
    rtc.set_cmos_byte(0x19 + disk, 47);
    word(base, cylinders);
    rtc.set_cmos_byte(base + 2, g.heads);
    word(base + 3, 0xFFFF);
    rtc.set_cmos_byte(base + 5, g.heads > 8 ? 0x08 : 0x00);
    word(base + 6, cylinders);
    rtc.set_cmos_byte(base + 8, g.sectors);
    if (cylinders > 1024) translation |= static_cast<u8>(1u << (2 * disk));  // LBA
  }
  rtc.set_cmos_byte(0x12, disk_types);
  rtc.set_cmos_byte(0x39, translation);

  std::array<u8, 3> boot{};
  for (std::size_t i = 0; i < boot.size() && i < config.boot_order.size(); ++i) boot[i] = cmos_boot_device(config.boot_order[i]);
  rtc.set_cmos_byte(0x3D, static_cast<u8>(boot[0] | boot[1] << 4));
  rtc.set_cmos_byte(0x38, static_cast<u8>(boot[2] << 4));
  rtc.set_cmos_byte(0x5F, static_cast<u8>(std::clamp(config.cpus, 1u, 256u) - 1));

  unsigned sum = 0;
  for (unsigned i = 0x10; i <= 0x2D; ++i) sum += rtc.peek(i);
  rtc.set_cmos_byte(0x2E, static_cast<u8>(sum >> 8));
  rtc.set_cmos_byte(0x2F, static_cast<u8>(sum));
}

}  // namespace x86lab
