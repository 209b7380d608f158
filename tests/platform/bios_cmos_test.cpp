// The CMOS bytes a PC BIOS reads (platform/bios_cmos.h). Peer: QEMU's PC machine
// writes the same bytes for the same configuration (-m 64, -boot cda: 15h-18h, 30h-31h,
// 34h-35h, 38h and 3Dh as below).
#include <gtest/gtest.h>

#include "platform/bios_cmos.h"

namespace x86lab {
namespace {

struct BiosCmosTest : ::testing::Test {
  ModeledClock cycles;
  VirtualClock clock{cycles, 500'000'000};
  Mc146818 rtc{clock, Mc146818::kDefaultStart, {}};
};

TEST_F(BiosCmosTest, MemorySizesOf64MiB) {
  BiosCmosConfig config;
  config.ram_bytes = 64u << 20;
  write_bios_cmos(rtc, config);
  EXPECT_EQ(rtc.peek(0x15), 0x80);  // 640 KiB
  EXPECT_EQ(rtc.peek(0x16), 0x02);
  EXPECT_EQ(rtc.peek(0x17), 0x00);  // 63 MiB = FC00h KiB
  EXPECT_EQ(rtc.peek(0x18), 0xFC);
  EXPECT_EQ(rtc.peek(0x30), 0x00);
  EXPECT_EQ(rtc.peek(0x31), 0xFC);
  EXPECT_EQ(rtc.peek(0x34), 0x00);  // 48 MiB above 16 MiB = 0300h * 64 KiB
  EXPECT_EQ(rtc.peek(0x35), 0x03);
  EXPECT_EQ(rtc.peek(0x5B), 0x00);
  EXPECT_EQ(rtc.peek(0x5F), 0x00);  // one CPU
}

TEST_F(BiosCmosTest, ExtendedMemoryIsCappedAt65535KiB) {
  BiosCmosConfig config;
  config.ram_bytes = 512u << 20;
  config.ram_above_4g_bytes = 1ull << 30;
  write_bios_cmos(rtc, config);
  EXPECT_EQ(rtc.peek(0x17), 0xFF);
  EXPECT_EQ(rtc.peek(0x18), 0xFF);
  EXPECT_EQ(rtc.peek(0x34), 0x00);  // 496 MiB = 1F00h * 64 KiB
  EXPECT_EQ(rtc.peek(0x35), 0x1F);
  EXPECT_EQ(rtc.peek(0x5B), 0x00);  // 1 GiB = 4000h * 64 KiB
  EXPECT_EQ(rtc.peek(0x5C), 0x40);
  EXPECT_EQ(rtc.peek(0x5D), 0x00);
}

TEST_F(BiosCmosTest, BootOrderCdaAsQemuWritesIt) {
  BiosCmosConfig config;
  config.boot_order = "cda";
  write_bios_cmos(rtc, config);
  EXPECT_EQ(rtc.peek(0x3D), 0x32);
  EXPECT_EQ(rtc.peek(0x38), 0x10);
}

TEST_F(BiosCmosTest, FloppiesAndEquipmentByte) {
  BiosCmosConfig config;
  config.floppies = {FloppyType::Mb1_44, FloppyType::Kb720};
  write_bios_cmos(rtc, config);
  EXPECT_EQ(rtc.peek(0x10), 0x43);
  EXPECT_EQ(rtc.peek(0x14), 0x43);  // two drives (01b << 6), present, coprocessor
  config.floppies = {FloppyType::None, FloppyType::None};
  config.fpu = false;
  write_bios_cmos(rtc, config);
  EXPECT_EQ(rtc.peek(0x14), 0x00);
}

TEST_F(BiosCmosTest, HardDiskUserTypeGeometryAndChecksum) {
  BiosCmosConfig config;
  config.disks[0] = {1024, 16, 63};  // a 504 MiB disk
  config.disks[1] = {4161, 16, 63};  // 2 GiB: LBA translation
  write_bios_cmos(rtc, config);
  EXPECT_EQ(rtc.peek(0x12), 0xFF);
  EXPECT_EQ(rtc.peek(0x19), 47);
  EXPECT_EQ(rtc.peek(0x1A), 47);
  EXPECT_EQ(rtc.peek(0x1B), 0x00);  // cylinders 0400h
  EXPECT_EQ(rtc.peek(0x1C), 0x04);
  EXPECT_EQ(rtc.peek(0x1D), 16);
  EXPECT_EQ(rtc.peek(0x1E), 0xFF);  // no write precompensation
  EXPECT_EQ(rtc.peek(0x1F), 0xFF);
  EXPECT_EQ(rtc.peek(0x20), 0x08);  // more than 8 heads
  EXPECT_EQ(rtc.peek(0x23), 63);
  EXPECT_EQ(rtc.peek(0x24), 0x41);  // 4161 = 1041h
  EXPECT_EQ(rtc.peek(0x25), 0x10);
  EXPECT_EQ(rtc.peek(0x2C), 63);
  EXPECT_EQ(rtc.peek(0x39), 0x04);  // disk 1: LBA
  unsigned sum = 0;
  for (unsigned i = 0x10; i <= 0x2D; ++i) sum += rtc.peek(i);
  EXPECT_EQ(rtc.peek(0x2E), sum >> 8);
  EXPECT_EQ(rtc.peek(0x2F), sum & 0xFF);
}

}  // namespace
}  // namespace x86lab
