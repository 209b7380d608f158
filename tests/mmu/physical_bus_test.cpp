// The physical bus: RAM, ROM, MMIO, open bus, A20, locked read-modify-writes, peek/poke.
#include "mmu/physical_bus.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <vector>

namespace x86lab {
namespace {

struct Recorder : BusDevice {
  u32 last_offset = 0, last_value = 0;
  unsigned last_size = 0, reads = 0, writes = 0;
  u32 read(u32 offset, unsigned size) override {
    ++reads;
    last_offset = offset;
    last_size = size;
    return 0xA0 + offset;
  }
  void write(u32 offset, unsigned size, u32 value) override {
    ++writes;
    last_offset = offset;
    last_size = size;
    last_value = value;
  }
  std::string_view device_name() const override { return "recorder"; }
};

// A bus of 1 MiB of RAM and nothing else attached, with its counters.
struct PhysicalBusOneMiB : ::testing::Test {
  Counters counters;
  PhysicalBus bus{1 << 20, counters};
};

// Resident memory of this process in bytes (/proc/self/statm, pages), or 0.
std::size_t resident_bytes() {
  std::FILE* statm = std::fopen("/proc/self/statm", "r");
  if (!statm) return 0;
  unsigned long size = 0, resident = 0;
  const int fields = std::fscanf(statm, "%lu %lu", &size, &resident);
  std::fclose(statm);
  return fields == 2 ? resident * static_cast<std::size_t>(sysconf(_SC_PAGESIZE)) : 0;
}

// Guest RAM is zeroed without being touched: 3.5 GiB of it costs the host only the pages
// the guest uses (it cost all 3.5 GiB, and seconds of zeroing, before).
TEST(PhysicalBus, UntouchedRamTakesNoHostMemory) {
  Counters counters;
  const std::size_t before = resident_bytes();
  ASSERT_GT(before, 0u) << "no /proc/self/statm";
  PhysicalBus bus(0xE0000000u, counters);
  EXPECT_EQ(bus.read<u32>(0, AccessKind::Data), 0u);
  EXPECT_EQ(bus.read<u32>(0xDFFFFFFCu, AccessKind::Data), 0u);
  bus.write<u32>(0x12345678u, 0xCAFEF00Du, AccessKind::Data);
  EXPECT_EQ(bus.read<u32>(0x12345678u, AccessKind::Data), 0xCAFEF00Du);
  EXPECT_LT(resident_bytes() - before, std::size_t{64} << 20);
}

TEST_F(PhysicalBusOneMiB, RamReadsBackWhatWasWrittenLittleEndian) {
  bus.write<u32>(0x1000, 0x11223344, AccessKind::Data);
  EXPECT_EQ(bus.read<u8>(0x1000, AccessKind::Data), 0x44);
  EXPECT_EQ(bus.read<u16>(0x1002, AccessKind::Data), 0x1122);
  EXPECT_EQ(counters.accesses_by_kind[static_cast<int>(AccessKind::Data)], 3u);
}

TEST_F(PhysicalBusOneMiB, AccessAcrossAPageBoundaryIsSplitCorrectly) {
  bus.write<u32>(0x1FFE, 0xAABBCCDD, AccessKind::Data);
  EXPECT_EQ(bus.read<u16>(0x1FFE, AccessKind::Data), 0xCCDD);
  EXPECT_EQ(bus.read<u16>(0x2000, AccessKind::Data), 0xAABB);
  EXPECT_EQ(bus.read<u32>(0x1FFE, AccessKind::Data), 0xAABBCCDDu);
}

TEST_F(PhysicalBusOneMiB, OpenBusReadsAllOnesAndDropsWritesAndCountsThem) {
  EXPECT_EQ(bus.read<u32>(0x40000000, AccessKind::Data), 0xFFFFFFFFu);
  bus.write<u8>(0x40000000, 0x12, AccessKind::Data);
  EXPECT_EQ(bus.read<u8>(0x40000000, AccessKind::Data), 0xFF);
  EXPECT_EQ(counters.open_bus_reads, 5u);
  EXPECT_EQ(counters.open_bus_writes, 1u);
}

TEST_F(PhysicalBusOneMiB, RomIsReadOnlyButPokeable) {
  std::vector<u8> image(4096, 0x5A);
  bus.map_rom(0xFFFFF000u, image);
  EXPECT_EQ(bus.read<u8>(0xFFFFFFF0u, AccessKind::CodeFetch), 0x5A);
  bus.write<u8>(0xFFFFFFF0u, 0x00, AccessKind::Data);
  EXPECT_EQ(bus.read<u8>(0xFFFFFFF0u, AccessKind::Data), 0x5A);
  bus.poke(0xFFFFFFF0u, 0x77);
  EXPECT_EQ(bus.peek(0xFFFFFFF0u), 0x77);
  EXPECT_EQ(counters.open_bus_writes, 0u);
}

TEST_F(PhysicalBusOneMiB, RomOverRamReplacesIt) {
  std::vector<u8> image(4096, 0xC3);
  bus.map_rom(0xF0000, image);
  bus.write<u8>(0xF0000, 0x00, AccessKind::Data);
  EXPECT_EQ(bus.read<u8>(0xF0000, AccessKind::Data), 0xC3);
}

TEST_F(PhysicalBusOneMiB, MmioRegionGetsWholeAccessesWithRegionOffsets) {
  Recorder device;
  bus.map_mmio(0xB8000, 0x8000, &device);
  EXPECT_EQ(bus.read<u16>(0xB8010, AccessKind::Data), 0xB0);
  EXPECT_EQ(device.last_offset, 0x10u);
  EXPECT_EQ(device.last_size, 2u);
  bus.write<u32>(0xB8020, 0xDEADBEEF, AccessKind::Data);
  EXPECT_EQ(device.last_value, 0xDEADBEEFu);
  EXPECT_EQ(device.last_size, 4u);
  EXPECT_EQ(bus.peek(0xB8000), 0xFF) << "peek has no device side effects";
  EXPECT_EQ(device.reads, 1u);
}

TEST_F(PhysicalBusOneMiB, QuadwordMmioAccessIsTwoDwordAccessesLowFirst) {
  Recorder device;
  bus.map_mmio(0xB8000, 0x8000, &device);
  bus.write<u64>(0xB8008, 0x1122334455667788ull, AccessKind::Data);
  EXPECT_EQ(device.writes, 2u);
  EXPECT_EQ(device.last_offset, 0xCu);
  EXPECT_EQ(device.last_value, 0x11223344u);
  EXPECT_EQ(bus.read<u64>(0xB8000, AccessKind::Data), 0x000000A4000000A0ull);
}

TEST(PhysicalBus, A20DisabledWrapsAtOneMegabyte) {
  Counters counters;
  PhysicalBus bus(2 << 20, counters);
  bus.write<u8>(0x000010, 0x11, AccessKind::Data);
  bus.write<u8>(0x100010, 0x22, AccessKind::Data);
  bus.set_a20(false);
  EXPECT_EQ(bus.read<u8>(0x100010, AccessKind::Data), 0x11);
  bus.set_a20(true);
  EXPECT_EQ(bus.read<u8>(0x100010, AccessKind::Data), 0x22);
}

TEST_F(PhysicalBusOneMiB, LockedReadModifyWriteReturnsOldValueAndCountsItsKind) {
  bus.write<u8>(0x505, 0x92, AccessKind::Data);
  const u8 old = bus.locked_rmw<u8>(0x505, AccessKind::DescriptorAccessedBit, [](u8 v) { return v | 1; });
  EXPECT_EQ(old, 0x92);
  EXPECT_EQ(bus.read<u8>(0x505, AccessKind::Data), 0x93);
  EXPECT_EQ(counters.locked_by_kind[static_cast<int>(AccessKind::DescriptorAccessedBit)], 1u);
}

TEST(PhysicalBus, RejectsRamSizesThatAreNotWholePages) {
  Counters counters;
  EXPECT_THROW(PhysicalBus(1000, counters), std::invalid_argument);
}

}  // namespace
}  // namespace x86lab
