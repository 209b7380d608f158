// The Page walk window's model: 32-bit paging walked by peek (SDM "32-Bit Paging"),
// level by level, with no Accessed bit set and no TLB entry filled.
#include <gtest/gtest.h>

#include "tests/ui/gui_test_memory.h"
#include "ui/gui/page_walk_model.h"

namespace x86lab::gui {
namespace {

class GuiPageWalk : public ::testing::Test, protected GuiTestMemory {
 protected:
  GuiPageWalk() : GuiTestMemory(4 << 20) {}
  void paging(bool pse) { mmu.set_control({true, false, pse, false, 0x1000}); }
};

TEST_F(GuiPageWalk, FourKibPageWalksPdeThenPte) {
  // Linear 00405123h: directory 1, table 5, offset 123h.
  put32(0x1000 + 1 * 4, 0x2000 | 0x7);        // PDE: P W U
  put32(0x2000 + 5 * 4, 0x9000 | 0x1 | 0x20); // PTE: P, A, read-only supervisor
  paging(false);
  const PageWalkView walk = walk_page_tables(mmu, bus, 0x00405123u);
  ASSERT_EQ(walk.levels.size(), 2u);
  EXPECT_EQ(walk.levels[0].index, 1u);
  EXPECT_EQ(walk.levels[0].entry_physical, 0x1004u);
  EXPECT_EQ(walk.levels[0].flags, "U W P");
  EXPECT_EQ(walk.levels[1].index, 5u);
  EXPECT_EQ(walk.levels[1].entry_physical, 0x2014u);
  EXPECT_EQ(walk.levels[1].flags, "A P");
  ASSERT_TRUE(walk.physical);
  EXPECT_EQ(*walk.physical, 0x9123u);
  EXPECT_FALSE(walk.user);      // the PTE's U/S is 0
  EXPECT_FALSE(walk.writable);  // the PTE's R/W is 0
  EXPECT_EQ(walk.tlb_physical, walk.physical);
}

TEST_F(GuiPageWalk, FourMibPageNeedsPse) {
  put32(0x1000 + 2 * 4, 0x00C00000 | 0x80 | 0x3);  // PDE: PS, W, P -> frame C00000h
  paging(true);
  const PageWalkView large = walk_page_tables(mmu, bus, 0x00812345u);
  EXPECT_EQ(large.outcome, "4 MiB page");
  EXPECT_EQ(large.physical, std::optional<u32>(0x00C12345u));
  EXPECT_EQ(large.levels[0].flags, "PS W P");
  paging(false);  // without CR4.PSE the PS bit is ignored: the PDE points to a page table
  EXPECT_EQ(walk_page_tables(mmu, bus, 0x00812345u).levels.size(), 2u);
}

TEST_F(GuiPageWalk, NotPresentStopsAtThatLevel) {
  paging(false);
  const PageWalkView walk = walk_page_tables(mmu, bus, 0x00405123u);
  EXPECT_EQ(walk.outcome, "not present at PDE");
  EXPECT_FALSE(walk.physical);
}

TEST_F(GuiPageWalk, WalkingSetsNoAccessedBitsAndCountsNothing) {
  put32(0x1000, 0x2000 | 0x7);
  put32(0x2000, 0x3000 | 0x7);
  paging(false);
  walk_page_tables(mmu, bus, 0x123u);
  EXPECT_EQ(bus.peek(0x1000) & 0x20, 0);  // PDE.A still clear
  EXPECT_EQ(bus.peek(0x2000) & 0x20, 0);  // PTE.A still clear
  EXPECT_EQ(counters.page_walks, 0u);
}

TEST_F(GuiPageWalk, PagingOffIsIdentity) {
  const PageWalkView walk = walk_page_tables(mmu, bus, 0xABCDu);
  EXPECT_FALSE(walk.paging);
  EXPECT_EQ(walk.physical, std::optional<u32>(0xABCDu));
}

}  // namespace
}  // namespace x86lab::gui
