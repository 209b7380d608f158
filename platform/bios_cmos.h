// The CMOS configuration bytes a PC BIOS reads at POST (the IBM PC/AT CMOS layout,
// 10h-2Fh, and the extensions SeaBIOS and the Bochs BIOS read: 30h-3Dh, 5Bh-5Fh),
// written into the MC146818's RAM before the machine starts. The caller (the CLI, the
// disk and floppy options) fills a BiosCmosConfig.
//
//   10h   floppy drive types: bits 7-4 drive A, 3-0 drive B (FloppyType)
//   12h   hard disk types: bits 7-4 disk 0, 3-0 disk 1; Fh = the extended type below
//   14h   equipment: bit 0 floppy drives present, bits 7-6 their count - 1, bits 5-4
//         00b (EGA/VGA, with its own BIOS), bit 1 math coprocessor
//   15h-16h base memory in KiB (640)
//   17h-18h, 30h-31h  memory from 1 MiB in KiB, at most FFFFh
//   19h, 1Ah  extended types of disks 0 and 1: 47 (user-defined geometry)
//   1Bh-23h, 24h-2Ch  the geometry of disks 0 and 1: cylinders (word), heads, write
//         precompensation (word, FFFFh none), control byte (08h: more than 8 heads),
//         landing zone (word, = cylinders), sectors per track
//   2Eh-2Fh  checksum of 10h-2Dh, high byte first
//   32h   century (BCD; the RTC keeps it)
//   34h-35h  memory from 16 MiB to the top of RAM below 4 GiB in 64 KiB units
//   38h   bits 7-4 third boot device; bit 0 clear: floppy boot sectors are checked
//         for the AA55h signature
//   39h   ATA translation of disks 0 and 1 (2 bits each from bit 0: 0 none, 1 LBA)
//   3Dh   bits 3-0 first boot device, 7-4 second (1 floppy, 2 hard disk, 3 CD-ROM)
//   5Bh-5Dh  memory above 4 GiB in 64 KiB units
//   5Fh   number of processors - 1
#pragma once
#include <array>
#include <string>

#include "platform/devices/rtc.h"

namespace x86lab {

// Floppy drive types of CMOS byte 10h.
enum class FloppyType : u8 { None = 0, Kb360 = 1, Mb1_2 = 2, Kb720 = 3, Mb1_44 = 4, Mb2_88 = 5 };

struct BiosCmosConfig {
  // A hard disk's geometry as the BIOS reports it (cylinders 0: no disk).
  struct DiskGeometry {
    u32 cylinders = 0;  // 1-65535
    u8 heads = 0;       // 1-255 (16 for an ATA disk's default CHS)
    u8 sectors = 0;     // sectors per track, 1-63
  };
  u32 ram_bytes = 0;             // RAM from physical 0 below 4 GiB (bytes)
  u64 ram_above_4g_bytes = 0;    // RAM from 4 GiB (bytes)
  std::string boot_order = "c";  // up to 3 of 'a' (floppy), 'c' (hard disk), 'd' (CD-ROM)
  std::array<DiskGeometry, 2> disks{};  // primary master and slave
  std::array<FloppyType, 2> floppies{FloppyType::None, FloppyType::None};  // drives A and B
  unsigned cpus = 1;                    // 1-256
  bool fpu = true;
};

// The boot device code of `letter` ('a' 1, 'c' 2, 'd' 3), or 0 for another letter.
u8 cmos_boot_device(char letter);

// Writes the bytes above into `rtc`'s CMOS RAM and the checksum. Values beyond a
// field's range are clamped.
void write_bios_cmos(Mc146818& rtc, const BiosCmosConfig& config);

}  // namespace x86lab
