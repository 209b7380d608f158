// The state after RESET (Intel SDM Vol. 3, "Processor State After Reset", table
// "IA-32 Processor States Following Power-up, Reset, or INIT").
#include <gtest/gtest.h>

#include "cpu_fixture.h"

namespace x86lab {
namespace {

TEST(Reset, CodeSegmentSelectorF000WithBaseFFFF0000) {
  testing::CpuFixture f;
  EXPECT_EQ(f.cpu.state.segments[CS].selector, 0xF000);
  EXPECT_EQ(f.cpu.state.segments[CS].cache.base, 0xFFFF0000u);
  EXPECT_EQ(f.cpu.state.segments[CS].cache.limit, 0xFFFFu);
  EXPECT_EQ(f.cpu.state.eip, 0xFFF0u);
}

TEST(Reset, Cr0Is60000010AndEflagsIs2) {
  testing::CpuFixture f;
  EXPECT_EQ(f.cpu.state.cr0, 0x60000010u);
  EXPECT_EQ(f.cpu.state.eflags, 0x00000002u);
  EXPECT_EQ(f.cpu.state.cr2, 0u);
  EXPECT_EQ(f.cpu.state.cr3, 0u);
  EXPECT_EQ(f.cpu.state.cr4, 0u);
}

TEST(Reset, EdxHoldsTheProfileSignature) {
  testing::CpuFixture f;
  EXPECT_EQ(f.cpu.state.gpr[EDX], default_profile().signature);
  EXPECT_EQ(f.cpu.state.gpr[EAX], 0u);
}

TEST(Reset, DataSegmentsAreZeroBasedWith64KiBLimits) {
  testing::CpuFixture f;
  for (u8 s : {ES, SS, DS, FS, GS}) {
    EXPECT_EQ(f.cpu.state.segments[s].selector, 0);
    EXPECT_EQ(f.cpu.state.segments[s].cache.base, 0u);
    EXPECT_EQ(f.cpu.state.segments[s].cache.limit, 0xFFFFu);
  }
}

TEST(Reset, TablesAndDebugRegisters) {
  testing::CpuFixture f;
  EXPECT_EQ(f.cpu.state.gdtr.limit, 0xFFFF);
  EXPECT_EQ(f.cpu.state.dr[6], 0xFFFF0FF0u);
  EXPECT_EQ(f.cpu.state.dr[7], 0x00000400u);
}

// The table gives GDTR and IDTR alike: base 00000000H, limit FFFFH (not the 3FFh a
// real-mode interrupt vector table needs; a BIOS sets that itself if it wants it).
TEST(Reset, TheIdtrHasBaseZeroAndLimitFFFFh) {
  testing::CpuFixture f;
  EXPECT_EQ(f.cpu.state.idtr.base, 0u);
  EXPECT_EQ(f.cpu.state.idtr.limit, 0xFFFF);
}

TEST(Reset, FirstFetchIsAtPhysicalFFFFFFF0) {
  testing::CpuFixture f;
  std::vector<u8> rom(4096, 0x90);  // NOPs
  f.bus.map_rom(0xFFFFF000u, rom);
  f.cpu.step();
  EXPECT_EQ(f.cpu.state.eip, 0xFFF1u);
  EXPECT_EQ(f.counters.instructions, 1u);
}

}  // namespace
}  // namespace x86lab
