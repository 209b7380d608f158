// The IDENTIFY DEVICE and IDENTIFY PACKET DEVICE data and the default CHS translation
// (ATA/ATAPI-6 8.15 "IDENTIFY DEVICE", Table 26; 8.16 "IDENTIFY PACKET DEVICE", Table 27).
#include <algorithm>

#include "platform/devices/storage/ata_device.h"

namespace x86lab {

AtaGeometry default_geometry(u64 sectors) {
  constexpr u32 kHeads = 16, kSectorsPerTrack = 63;
  const u64 cylinders = std::clamp<u64>(sectors / (kHeads * kSectorsPerTrack), 1, 16383);
  return {static_cast<u32>(cylinders), kHeads, kSectorsPerTrack};
}

namespace {

constexpr u16 kBytesPerSector = 512;

// An ATA string (ATA-6 3.2.9 "Byte ordering for data transfers"): two characters per
// word, the first in bits 15:8, padded with spaces.
void put_string(std::array<u16, 256>& w, unsigned first, unsigned words, std::string_view text) {
  for (unsigned i = 0; i < words; ++i) {
    const char high = 2 * i < text.size() ? text[2 * i] : ' ';
    const char low = 2 * i + 1 < text.size() ? text[2 * i + 1] : ' ';
    w[first + i] = static_cast<u16>(static_cast<u8>(high) << 8 | static_cast<u8>(low));
  }
}

// Word 255, the integrity word (ATA-6 8.15.62): A5h in bits 7:0 and in bits 15:8 the
// two's complement of the sum of bytes 0-510, so that all 512 bytes sum to 0 mod 256.
void put_checksum(std::array<u16, 256>& w) {
  w[255] = 0x00A5;
  u8 sum = 0;
  for (unsigned i = 0; i < 255; ++i) sum = static_cast<u8>(sum + (w[i] & 0xFF) + (w[i] >> 8));
  sum = static_cast<u8>(sum + 0xA5);
  w[255] = static_cast<u16>(static_cast<u8>(-sum) << 8 | 0xA5);
}

// Words 63 and 88: the supported modes in bits 7:0, the selected one in bits 15:8.
void put_transfer_modes(std::array<u16, 256>& w, u8 mode) {
  w[63] = 0x0007;  // multiword DMA modes 0-2 supported
  w[88] = 0x003F;  // Ultra DMA modes 0-5 supported
  if ((mode & 0xF8) == 0x20) w[63] = static_cast<u16>(w[63] | 1u << (8 + (mode & 7)));
  if ((mode & 0xF8) == 0x40) w[88] = static_cast<u16>(w[88] | 1u << (8 + (mode & 7)));
}

}  // namespace

std::array<u16, 256> AtaDevice::identify_data() const {
  return packet_device() ? identify_packet_device_words() : identify_device_words();
}

std::array<u16, 256> AtaDevice::identify_device_words() const {
  std::array<u16, 256> w{};
  const u64 sectors = image_.sectors();
  w[0] = 0x0040;  // ATA device (bit 15 = 0), not removable; bit 6 "fixed" (obsolete)
  w[1] = static_cast<u16>(default_.cylinders);
  w[3] = static_cast<u16>(default_.heads);
  // QUIRK: words 4 and 5 are retired in ATA-6 but were, in ATA-1 (X3.221-1994, 8.7.3
  // "IDENTIFY DRIVE", Table 8-2), the unformatted bytes per track and per sector. The
  // Bochs BIOS takes word 5 as its sector size for PIO transfers (with 0 it moves no data
  // and reports INT 13h error 4), so they hold the formatted sizes as drives of that era
  // reported them: 512 per sector, 512 x sectors per track.
  w[4] = static_cast<u16>(kBytesPerSector * default_.sectors);
  w[5] = kBytesPerSector;
  w[6] = static_cast<u16>(default_.sectors);
  put_string(w, 10, 10, serial_);
  put_string(w, 23, 4, "1.0");
  put_string(w, 27, 20, "X86LAB HARDDISK");
  w[47] = 0x8010;  // 80h, and at most 16 sectors per READ/WRITE MULTIPLE block
  w[49] = 0x0F00;  // standby timer (13), IORDY supported (11) and disableable (10), LBA (9), DMA (8)
  w[50] = 0x4000;  // bit 14 shall be one
  w[51] = 0x0200;  // obsolete PIO timing mode 2
  w[53] = 0x0007;  // words 54-58, 64-70 and 88 are valid
  w[54] = static_cast<u16>(current_.cylinders);
  w[55] = static_cast<u16>(current_.heads);
  w[56] = static_cast<u16>(current_.sectors);
  const u64 chs = std::min<u64>(current_.capacity(), 0xFFFFFFFF);
  w[57] = static_cast<u16>(chs);
  w[58] = static_cast<u16>(chs >> 16);
  w[59] = static_cast<u16>(multiple_ ? 0x0100 | multiple_ : 0);  // bit 8: the multiple setting is valid
  const u64 lba28 = std::min<u64>(sectors, 0x0FFFFFFF);
  w[60] = static_cast<u16>(lba28);
  w[61] = static_cast<u16>(lba28 >> 16);
  w[64] = 0x0003;  // PIO modes 3 and 4
  w[65] = 120;     // minimum multiword DMA cycle time, ns
  w[66] = 120;     // recommended multiword DMA cycle time, ns
  w[67] = 120;     // minimum PIO cycle time without flow control, ns
  w[68] = 120;     // minimum PIO cycle time with IORDY, ns
  w[80] = 0x007E;  // major version: ATA-1 to ATA/ATAPI-6
  w[82] = 0x4028;  // supported: NOP (14), write cache (5), power management (3)
  w[83] = 0x7400;  // bit 14 one; FLUSH CACHE EXT (13), FLUSH CACHE (12), 48-bit addresses (10)
  w[84] = 0x4000;  // bit 14 one
  w[85] = static_cast<u16>(0x4008 | (write_cache_ ? 0x0020 : 0));  // enabled: as word 82
  w[86] = 0x3400;  // enabled: as word 83
  w[87] = 0x4000;  // bit 14 one
  put_transfer_modes(w, transfer_mode_);
  w[100] = static_cast<u16>(sectors);
  w[101] = static_cast<u16>(sectors >> 16);
  w[102] = static_cast<u16>(sectors >> 32);
  w[103] = static_cast<u16>(sectors >> 48);
  put_checksum(w);
  return w;
}

std::array<u16, 256> AtaDevice::identify_packet_device_words() const {
  std::array<u16, 256> w{};
  // Word 0: 10b packet device (15:14), CD-ROM device type 05h (12:8), removable (7),
  // DRQ within 50 us of PACKET (6:5 = 10b), 12-byte packets (1:0 = 00b).
  w[0] = 0x85C0;
  put_string(w, 10, 10, serial_);
  put_string(w, 23, 4, "1.0");
  put_string(w, 27, 20, "X86LAB CD-ROM");
  w[49] = 0x0B00;  // IORDY supported (11), LBA (9, shall be one), DMA (8)
  w[50] = 0x4000;
  w[53] = 0x0006;  // words 64-70 and 88 are valid
  w[64] = 0x0003;
  w[65] = 120;
  w[66] = 120;
  w[67] = 120;
  w[68] = 120;
  w[80] = 0x007E;
  w[82] = 0x4210;  // supported: NOP (14), DEVICE RESET (9), PACKET (4)
  w[83] = 0x4000;
  w[84] = 0x4000;
  w[85] = 0x4210;
  w[86] = 0x0000;
  w[87] = 0x4000;
  put_transfer_modes(w, transfer_mode_);
  put_checksum(w);
  return w;
}

}  // namespace x86lab
