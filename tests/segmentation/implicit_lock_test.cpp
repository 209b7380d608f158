// The implied locked accesses (Intel SDM Vol. 3, "Automatic Locking"), one test each.
#include <gtest/gtest.h>

#include "../cpu/cpu_fixture.h"

namespace x86lab {
namespace {

// A GDT at 0x2000 with a flat data descriptor at index 2 (A = 0) and a TSS at index 3.
struct ProtectedFixture : testing::CpuFixture {
  ProtectedFixture() {
    const u64 flat_data = 0x00CF92000000FFFFull;
    const u64 tss = 0x0000890030000067ull;  // available 32-bit TSS at 3000h, limit 67h
    for (int i = 0; i < 8; ++i) {
      bus.poke(0x2010 + i, static_cast<u8>(flat_data >> (8 * i)));
      bus.poke(0x2018 + i, static_cast<u8>(tss >> (8 * i)));
    }
    cpu.state.gdtr = {0x2000, 0x1F};
    cpu.state.cr0 |= cr0::PE;
  }
  u8 access_byte(unsigned index) { return bus.peek(0x2000 + index * 8 + 5); }
  u64 locked(AccessKind kind) { return counters.locked_by_kind[static_cast<int>(kind)]; }
};

TEST(ImplicitLock, SegmentLoadSetsAccessedBit) {
  ProtectedFixture f;
  f.cpu.load_segment(DS, 0x10);
  EXPECT_EQ(f.access_byte(2), 0x93);
  EXPECT_EQ(f.locked(AccessKind::DescriptorAccessedBit), 1u);
}

TEST(ImplicitLock, SegmentLoadWithAccessedBitSetMakesNoLockedWrite) {
  ProtectedFixture f;
  f.cpu.load_segment(DS, 0x10);
  f.cpu.load_segment(ES, 0x10);
  EXPECT_EQ(f.locked(AccessKind::DescriptorAccessedBit), 1u);
}

TEST(ImplicitLock, I386ProfileWritesAccessedBitOnEveryLoad) {
  Counters counters;
  PhysicalBus bus{1 << 20, counters};
  PortBus ports{counters};
  Mmu mmu{bus};
  Cpu cpu{mmu, ports, counters, *find_profile("i386-locking")};
  const u64 flat_data = 0x00CF93000000FFFFull;  // A already set
  for (int i = 0; i < 8; ++i) bus.poke(0x2010 + i, static_cast<u8>(flat_data >> (8 * i)));
  cpu.state.gdtr = {0x2000, 0x1F};
  cpu.state.cr0 |= cr0::PE;
  cpu.load_segment(DS, 0x10);
  cpu.load_segment(ES, 0x10);
  EXPECT_EQ(counters.locked_by_kind[static_cast<int>(AccessKind::DescriptorAccessedBit)], 2u);
}

TEST(ImplicitLock, LtrSetsTssBusyBit) {
  ProtectedFixture f;
  f.real_mode_at(0x1000);
  f.cpu.state.cr0 |= cr0::PE;
  f.cpu.state.segments[CS].cache.db = false;
  f.cpu.state.gpr[EAX] = 0x18;
  f.code(0x1000, {0x0F, 0x00, 0xD8});  // ltr ax
  f.cpu.step();
  EXPECT_EQ(f.access_byte(3), 0x8B);
  EXPECT_EQ(f.locked(AccessKind::TssBusyBit), 1u);
  EXPECT_EQ(f.cpu.state.tr.selector, 0x18);
}

TEST(ImplicitLock, XchgWithMemoryIsLockedWithoutPrefix) {
  testing::CpuFixture f;
  f.real_mode_at();
  f.code(0x1000, {0x87, 0x06, 0x00, 0x05});  // xchg [0500h], ax
  f.cpu.state.gpr[EAX] = 0x1234;
  f.bus.poke(0x500, 0x78);
  f.bus.poke(0x501, 0x56);
  f.cpu.step();
  EXPECT_EQ(f.cpu.state.gpr[EAX], 0x5678u);
  EXPECT_EQ(f.bus.peek(0x500), 0x34);
  EXPECT_EQ(f.counters.locked_by_kind[static_cast<int>(AccessKind::XchgMemory)], 1u);
}

TEST(ImplicitLock, LockPrefixMakesOneLockedReadModifyWrite) {
  testing::CpuFixture f;
  f.real_mode_at();
  f.code(0x1000, {0xF0, 0xFF, 0x06, 0x00, 0x05});  // lock inc word [0500h]
  f.cpu.step();
  EXPECT_EQ(f.bus.peek(0x500), 1);
  EXPECT_EQ(f.counters.locked_by_kind[static_cast<int>(AccessKind::LockPrefix)], 1u);
}

}  // namespace
}  // namespace x86lab
