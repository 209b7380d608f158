// Paging as the CPU drives it: INVLPG, MOV CR3/CR0/CR4 and instruction fetch
// (Intel SDM Vol. 2 "INVLPG", "MOV - Move to/from Control Registers"; Vol. 3
// "Invalidation of TLBs and Paging-Structure Caches", "Self-Modifying Code").
#include <gtest/gtest.h>

#include "../cpu/cpu_fixture.h"

namespace x86lab {
namespace {

constexpr u32 P = 1, W = 2, U = 4;

// 32-bit code at 1000h, flat segments (base 0), paging on with a user-accessible
// identity map of the first 1 MiB except page 5, which maps frame 30000h.
struct PagedCpu : testing::CpuFixture {
  PagedCpu() {
    real_mode_at(0x1000);
    cpu.state.segments[CS].cache.db = true;
    for (u32 page = 0; page < 256; ++page) poke32(0x11000 + page * 4, page << 12 | P | W | U);
    poke32(0x11000 + 5 * 4, 0x30000 | P | W);
    poke32(0x10000, 0x11000 | P | W | U);
    cpu.state.cr3 = 0x10000;
    cpu.state.cr0 |= cr0::PE | cr0::PG;
    cpu.sync_paging();
    poke32(0x30000, 0xAAAAAAAA);
    poke32(0x31000, 0xBBBBBBBB);
  }
  u32 read_page5() { return mmu.read<u32>(0x5000, AccessKind::Data, false); }
};

TEST(PagingCpu, InvlpgDropsTheTranslationOfItsOperand) {
  PagedCpu f;
  EXPECT_EQ(f.read_page5(), 0xAAAAAAAAu);
  f.poke32(0x11000 + 5 * 4, 0x31000 | P | W);
  EXPECT_EQ(f.read_page5(), 0xAAAAAAAAu) << "stale until INVLPG";
  f.cpu.state.gpr[EBX] = 0x5000;
  f.code(0x1000, {0x0F, 0x01, 0x7B, 0x10});  // invlpg [ebx+10h]
  f.steps(1);
  EXPECT_EQ(f.cpu.state.eip, 0x1004u);
  EXPECT_EQ(f.read_page5(), 0xBBBBBBBBu);
}

TEST(PagingCpu, InvlpgAddsTheSegmentBase) {
  PagedCpu f;
  f.read_page5();
  f.poke32(0x11000 + 5 * 4, 0x31000 | P | W);
  f.cpu.state.segments[FS].cache.base = 0x4000;
  f.cpu.state.gpr[EBX] = 0x1000;
  f.code(0x1000, {0x64, 0x0F, 0x01, 0x3B});  // invlpg [fs:ebx]
  f.steps(1);
  EXPECT_EQ(f.read_page5(), 0xBBBBBBBBu);
}

TEST(PagingCpu, InvlpgAtCpl3RaisesGp) {
  PagedCpu f;
  f.cpu.state.cpl = 3;
  f.code(0x1000, {0x0F, 0x01, 0x3B});
  f.steps(1);
  ASSERT_FALSE(f.cpu.fault_chain().empty());
  EXPECT_EQ(f.cpu.fault_chain()[0].vector, 13);
  EXPECT_EQ(f.cpu.fault_chain()[0].error_code, 0u);
  EXPECT_EQ(f.counters.tlb_page_invalidations, 0u);
}

TEST(PagingCpu, MovCr3WithTheSameValueFlushesTheTlb) {
  PagedCpu f;
  f.read_page5();
  f.poke32(0x11000 + 5 * 4, 0x31000 | P | W);
  f.cpu.state.gpr[EAX] = 0x10000;
  f.code(0x1000, {0x0F, 0x22, 0xD8});  // mov cr3, eax
  f.steps(1);
  EXPECT_EQ(f.read_page5(), 0xBBBBBBBBu);
}

TEST(PagingCpu, MovCr3KeepsOnlyPwtAndPcdBelowTheBase) {
  PagedCpu f;
  f.cpu.state.gpr[EAX] = 0x10FFF;
  f.code(0x1000, {0x0F, 0x22, 0xD8, 0x0F, 0x20, 0xD9});  // mov cr3, eax; mov ecx, cr3
  f.steps(2);
  EXPECT_EQ(f.cpu.state.gpr[ECX], 0x10018u);
}

TEST(PagingCpu, SettingCr4PseFlushesTheTlb) {
  PagedCpu f;
  f.read_page5();
  f.poke32(0x11000 + 5 * 4, 0x31000 | P | W);
  f.cpu.state.gpr[EAX] = cr4::PSE;
  f.code(0x1000, {0x0F, 0x22, 0xE0});  // mov cr4, eax
  f.steps(1);
  EXPECT_EQ(f.read_page5(), 0xBBBBBBBBu);
}

TEST(PagingCpu, ChangingCr0WpKeepsTranslationsButAppliesAtOnce) {
  PagedCpu f;
  f.poke32(0x11000 + 5 * 4, 0x30000 | P);  // read-only
  f.read_page5();
  f.cpu.state.gpr[EAX] = f.cpu.state.cr0 | cr0::WP;
  f.code(0x1000, {0x0F, 0x22, 0xC0});  // mov cr0, eax
  f.steps(1);
  EXPECT_THROW(f.mmu.write<u32>(0x5000, 1, AccessKind::Data, false), Fault);
  EXPECT_EQ(f.counters.page_walks, 3u) << "the fetch, the read, and the faulting write's walk";
}

TEST(PagingCpu, ResetFlushesTheTlb) {
  PagedCpu f;
  f.read_page5();
  f.cpu.reset();
  EXPECT_FALSE(f.mmu.control().pg);
  EXPECT_EQ(f.mmu.translate(0x5000, AccessIntent::Read, false), 0x5000u);
}

TEST(PagingCpu, InstructionFetchMarksTheCodeAndOnlyAStoreIntoItsBytesIsReported) {
  PagedCpu f;
  f.code(0x1000, {0xA2, 0x00, 0x28, 0x00, 0x00,    // mov [2800h], al
                  0xA2, 0x00, 0x18, 0x00, 0x00,    // mov [1800h], al
                  0xA2, 0x0A, 0x10, 0x00, 0x00});  // mov [100Ah], al (its own first byte)
  f.steps(1);
  EXPECT_TRUE(f.bus.is_code_page(1));
  EXPECT_EQ(f.counters.code_block_invalidations, 0u) << "page 2 holds no code";
  f.steps(1);
  EXPECT_EQ(f.counters.code_block_invalidations, 0u) << "the store went beside the code of its page";
  f.steps(1);
  EXPECT_EQ(f.counters.code_block_invalidations, 1u) << "the store went into the instruction's bytes";
  EXPECT_FALSE(f.bus.is_code_page(1)) << "until code is fetched from it again";
}

TEST(PagingCpu, CodeMarksArePhysicalSoAStoreThroughAnAliasIsReported) {
  PagedCpu f;
  f.poke32(0x11000 + 6 * 4, 0x1000 | P | W);       // linear 6000h aliases the code page
  f.code(0x1000, {0xA2, 0x00, 0x60, 0x00, 0x00});  // mov [6000h], al: its own first byte
  f.steps(1);
  EXPECT_EQ(f.counters.code_block_invalidations, 1u);
}

}  // namespace
}  // namespace x86lab
