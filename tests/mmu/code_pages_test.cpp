// The physical bus's code marks: a write into bytes fetched as instructions is
// reported once per 64-byte code block until code is fetched from the block again, a
// write beside them (even in the same block) is not (Intel SDM Vol. 3, "Self-Modifying
// Code": detection is by physical address), and the A20 gate inputs (PIIX: port 92h
// ORed with the keyboard controller's output).
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "mmu/physical_bus.h"

namespace x86lab {
namespace {

using Written = std::vector<std::pair<u32, u64>>;  // (page, code blocks) per report

struct BlockLog : CodeWriteListener {
  Written blocks;
  void code_blocks_written(u32 page, u64 written) override { blocks.emplace_back(page, written); }
};

struct CodeBus {
  Counters counters;
  PhysicalBus bus{1 << 20, counters};
  BlockLog log;
  CodeBus() { bus.set_code_write_listener(&log); }
  void fetch(u32 address, u32 length) {
    for (u32 i = 0; i < length; ++i) bus.fetch<u8>(address + i);
  }
};

TEST(CodePages, WriteIntoFetchedBytesIsReportedOnceUntilTheNextFetch) {
  CodeBus c;
  c.bus.fetch<u8>(0x3010);
  EXPECT_TRUE(c.bus.is_code_page(3));
  c.bus.write<u8>(0x3010, 0x00, AccessKind::Data);
  c.bus.write<u8>(0x3010, 0x01, AccessKind::Data);
  EXPECT_EQ(c.log.blocks, (Written{{3, 1}}));
  EXPECT_FALSE(c.bus.is_code_page(3)) << "its only code block was written";
  EXPECT_EQ(c.bus.read<u8>(0x3010, AccessKind::Data), 0x01) << "both writes reached RAM";
  c.bus.fetch<u8>(0x3FFF);
  c.bus.write<u8>(0x3FFF, 0x90, AccessKind::Data);
  EXPECT_EQ(c.log.blocks, (Written{{3, 1}, {3, u64{1} << 63}}));
  EXPECT_EQ(c.counters.code_block_invalidations, 2u);
  EXPECT_EQ(c.bus.code_write_generation(), 2u);
}

TEST(CodePages, WritesBesideFetchedBytesAreNotReportedEvenInTheirBlock) {
  CodeBus c;
  c.fetch(0x3010, 5);  // an instruction at 3010h-3014h
  c.bus.write<u8>(0x3015, 1, AccessKind::Data);
  c.bus.write<u32>(0x300C, 1, AccessKind::Data);  // 300Ch-300Fh
  c.bus.write<u64>(0x3800, 1, AccessKind::Data);  // another block of the page
  EXPECT_TRUE(c.log.blocks.empty());
  EXPECT_EQ(c.counters.code_block_invalidations, 0u);
  EXPECT_TRUE(c.bus.is_code_page(3)) << "writes into the page still take the slow path";
  EXPECT_EQ(c.bus.read<u32>(0x300C, AccessKind::Data), 1u);
  c.bus.write<u16>(0x300F, 0xFFFF, AccessKind::Data);  // its last byte reaches 3010h
  EXPECT_EQ(c.log.blocks, (Written{{3, 1}}));
}

TEST(CodePages, AWriteAcrossTwoCodeBlocksReportsBoth) {
  CodeBus c;
  c.fetch(0x303E, 4);  // an instruction in blocks 0 and 1
  c.bus.write<u8>(0x3041, 0, AccessKind::Data);
  EXPECT_EQ(c.log.blocks, (Written{{3, 2}})) << "only the block whose fetched byte was written";
  c.fetch(0x303E, 4);
  c.bus.write<u32>(0x303D, 0, AccessKind::Data);  // 303Dh-3040h
  EXPECT_EQ(c.log.blocks, (Written{{3, 2}, {3, 3}}));
  EXPECT_EQ(c.counters.code_block_invalidations, 3u) << "one block, then two";
}

TEST(CodePages, APageWhoseCodeBlocksWereAllWrittenGetsItsFastWritePathBack) {
  CodeBus c;
  EXPECT_NE(c.bus.host_write_page(0x3000), nullptr);
  c.bus.fetch<u8>(0x3010);
  c.bus.fetch<u8>(0x3100);
  EXPECT_EQ(c.bus.host_write_page(0x3000), nullptr);
  c.bus.write<u8>(0x3010, 0, AccessKind::Data);
  EXPECT_EQ(c.bus.host_write_page(0x3000), nullptr) << "block 4 still holds code";
  c.bus.write<u8>(0x3100, 0, AccessKind::Data);
  EXPECT_NE(c.bus.host_write_page(0x3000), nullptr);
  EXPECT_FALSE(c.bus.is_code_page(3));
}

TEST(CodePages, WritesToPagesWithoutCodeAreNotReported) {
  CodeBus c;
  c.bus.fetch<u8>(0x3000);
  c.bus.write<u32>(0x4000, 1, AccessKind::Data);
  c.bus.write<u8>(0x2FFF, 1, AccessKind::Data);
  EXPECT_TRUE(c.log.blocks.empty());
}

TEST(CodePages, ReadingACodePageIsNotAWrite) {
  CodeBus c;
  c.bus.fetch<u8>(0x3000);
  c.bus.read<u32>(0x3000, AccessKind::Data);
  EXPECT_TRUE(c.log.blocks.empty());
  EXPECT_TRUE(c.bus.is_code_page(3));
}

TEST(CodePages, WriteStraddlingIntoACodePageIsReported) {
  CodeBus c;
  c.bus.fetch<u8>(0x4000);
  c.bus.write<u32>(0x3FFE, 0xAABBCCDD, AccessKind::Data);
  EXPECT_EQ(c.log.blocks, (Written{{4, 1}}));
  EXPECT_EQ(c.bus.read<u16>(0x4000, AccessKind::Data), 0xAABB);
}

TEST(CodePages, LockedWritesAndDebuggerPokesAreReported) {
  CodeBus c;
  c.bus.fetch<u8>(0x5004);
  c.bus.locked_rmw<u8>(0x5004, AccessKind::LockPrefix, [](u8 v) { return v + 1; });
  c.bus.fetch<u8>(0x6001);
  c.bus.poke(0x6000, 0xCC);
  c.bus.poke(0x6001, 0xCC);
  EXPECT_EQ(c.log.blocks, (Written{{5, 1}, {6, 1}}));
  EXPECT_EQ(c.bus.peek(0x6001), 0xCC);
  EXPECT_EQ(c.bus.peek(0x6000), 0xCC) << "a poke beside code in a code page reaches RAM too";
}

TEST(CodePages, RemappingACodePageReportsEveryCodeBlock) {
  CodeBus c;
  c.bus.fetch<u8>(0x7000);
  c.bus.fetch<u8>(0x7FC0);
  c.bus.map_rom(0x7000, std::vector<u8>(4096, 0x90));
  EXPECT_EQ(c.log.blocks, (Written{{7, 1 | u64{1} << 63}}));
  EXPECT_EQ(c.counters.code_block_invalidations, 2u);
}

TEST(CodePages, RetireAllCodeReportsEveryCodeBlock) {
  CodeBus c;
  c.bus.fetch<u8>(0x3040);
  c.bus.fetch<u8>(0x9000);
  c.bus.retire_all_code();
  EXPECT_EQ(c.log.blocks, (Written{{3, 2}, {9, 1}}));
  EXPECT_FALSE(c.bus.is_code_page(3));
  EXPECT_FALSE(c.bus.is_code_page(9));
}

TEST(CodePages, PeekDoesNotMarkAPage) {
  CodeBus c;
  c.bus.peek(0x7000);
  c.bus.read<u8>(0x7000, AccessKind::Data);
  EXPECT_FALSE(c.bus.is_code_page(7));
}

TEST(CodePages, DroppedWritesToRomChangeNoCodeButPokesDo) {
  CodeBus c;
  std::vector<u8> image(4096, 0x90);
  c.bus.map_rom(0xF0000, image);
  c.bus.fetch<u8>(0xF0000);
  c.bus.write<u8>(0xF0000, 0xCC, AccessKind::Data);
  EXPECT_TRUE(c.log.blocks.empty());
  EXPECT_EQ(c.bus.read<u8>(0xF0000, AccessKind::Data), 0x90);
  c.bus.poke(0xF0000, 0xCC);
  EXPECT_EQ(c.log.blocks, (Written{{0xF0, 1}}));
  EXPECT_EQ(c.bus.read<u8>(0xF0000, AccessKind::Data), 0xCC);
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
