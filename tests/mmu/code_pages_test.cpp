// The physical bus's code-page marks: a write into a page instructions were fetched
// from is reported once (Intel SDM Vol. 3, "Self-Modifying Code": detection is by
// physical address), and the A20 gate inputs (PIIX: port 92h ORed with the keyboard
// controller's output).
#include <gtest/gtest.h>

#include <vector>

#include "mmu/physical_bus.h"

namespace x86lab {
namespace {

struct PageLog : CodeWriteListener {
  std::vector<u32> pages;
  void code_page_written(u32 page) override { pages.push_back(page); }
};

struct CodeBus {
  Counters counters;
  PhysicalBus bus{1 << 20, counters};
  PageLog log;
  CodeBus() { bus.set_code_write_listener(&log); }
};

TEST(CodePages, WriteIntoAFetchedPageIsReportedOnceUntilTheNextFetch) {
  CodeBus c;
  c.bus.fetch<u8>(0x3010);
  EXPECT_TRUE(c.bus.is_code_page(3));
  c.bus.write<u32>(0x3800, 0x12345678, AccessKind::Data);
  c.bus.write<u8>(0x3801, 0x00, AccessKind::Data);
  EXPECT_EQ(c.log.pages, std::vector<u32>{3});
  EXPECT_FALSE(c.bus.is_code_page(3));
  EXPECT_EQ(c.bus.read<u32>(0x3800, AccessKind::Data), 0x12340078u) << "both writes reached RAM";
  c.bus.fetch<u8>(0x3000);
  c.bus.write<u8>(0x3FFF, 0x90, AccessKind::Data);
  EXPECT_EQ(c.log.pages, (std::vector<u32>{3, 3}));
  EXPECT_EQ(c.counters.code_page_invalidations, 2u);
  EXPECT_EQ(c.bus.code_write_generation(), 2u);
}

TEST(CodePages, WritesToPagesWithoutCodeAreNotReported) {
  CodeBus c;
  c.bus.fetch<u8>(0x3000);
  c.bus.write<u32>(0x4000, 1, AccessKind::Data);
  c.bus.write<u8>(0x2FFF, 1, AccessKind::Data);
  EXPECT_TRUE(c.log.pages.empty());
}

TEST(CodePages, ReadingACodePageIsNotAWrite) {
  CodeBus c;
  c.bus.fetch<u8>(0x3000);
  c.bus.read<u32>(0x3000, AccessKind::Data);
  EXPECT_TRUE(c.log.pages.empty());
  EXPECT_TRUE(c.bus.is_code_page(3));
}

TEST(CodePages, WriteStraddlingIntoACodePageIsReported) {
  CodeBus c;
  c.bus.fetch<u8>(0x4000);
  c.bus.write<u32>(0x3FFE, 0xAABBCCDD, AccessKind::Data);
  EXPECT_EQ(c.log.pages, std::vector<u32>{4});
  EXPECT_EQ(c.bus.read<u16>(0x4000, AccessKind::Data), 0xAABB);
}

TEST(CodePages, LockedWritesAndDebuggerPokesAreReported) {
  CodeBus c;
  c.bus.fetch<u8>(0x5000);
  c.bus.locked_rmw<u8>(0x5004, AccessKind::LockPrefix, [](u8 v) { return v + 1; });
  c.bus.fetch<u8>(0x6000);
  c.bus.poke(0x6001, 0xCC);
  EXPECT_EQ(c.log.pages, (std::vector<u32>{5, 6}));
  EXPECT_EQ(c.bus.peek(0x6001), 0xCC);
}

TEST(CodePages, PeekDoesNotMarkAPage) {
  CodeBus c;
  c.bus.peek(0x7000);
  c.bus.read<u8>(0x7000, AccessKind::Data);
  EXPECT_FALSE(c.bus.is_code_page(7));
}

TEST(CodePages, DroppedWritesToRomChangeNoCode) {
  CodeBus c;
  std::vector<u8> image(4096, 0x90);
  c.bus.map_rom(0xF0000, image);
  c.bus.fetch<u8>(0xF0000);
  c.bus.write<u8>(0xF0000, 0xCC, AccessKind::Data);
  EXPECT_TRUE(c.log.pages.empty());
  EXPECT_EQ(c.bus.read<u8>(0xF0000, AccessKind::Data), 0x90);
}

TEST(CodePages, QuadwordWritesThroughTheSlowPathKeepAllEightBytes) {
  CodeBus c;
  c.bus.fetch<u8>(0x3000);
  c.bus.write<u64>(0x3008, 0x1122334455667788ull, AccessKind::Data);
  EXPECT_EQ(c.bus.read<u64>(0x3008, AccessKind::Data), 0x1122334455667788ull);
  c.bus.write<u64>(0x3FFC, 0x8877665544332211ull, AccessKind::Data);
  EXPECT_EQ(c.bus.read<u64>(0x3FFC, AccessKind::Data), 0x8877665544332211ull);
}

TEST(A20Gate, IsOpenAtPowerOnThroughTheKeyboardControllerInput) {
  Counters counters;
  PhysicalBus bus(2 << 20, counters);
  EXPECT_TRUE(bus.a20());
  bus.set_a20(A20Source::Port92, false);
  EXPECT_TRUE(bus.a20()) << "port 92h bit 1 clear does not close a gate the keyboard controller opens";
}

TEST(A20Gate, IsClosedOnlyWhenEveryInputIsClear) {
  Counters counters;
  PhysicalBus bus(2 << 20, counters);
  bus.write<u8>(0x000010, 0x11, AccessKind::Data);
  bus.write<u8>(0x100010, 0x22, AccessKind::Data);
  bus.set_a20(A20Source::KeyboardController, false);
  EXPECT_FALSE(bus.a20());
  EXPECT_EQ(bus.read<u8>(0x100010, AccessKind::Data), 0x11);
  bus.set_a20(A20Source::Port92, true);
  EXPECT_EQ(bus.read<u8>(0x100010, AccessKind::Data), 0x22);
  bus.set_a20(A20Source::Port92, false);
  EXPECT_EQ(bus.peek(0x100010), 0x11) << "peek sees the gate too";
}

}  // namespace
}  // namespace x86lab
