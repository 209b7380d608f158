// The Segments window's model: selector decoding and descriptor-cache staleness, with
// the worked TLS descriptors of docs/scenarios.md section 1 and the SDM's reset state.
#include <gtest/gtest.h>

#include "tests/ui/gui_test_memory.h"
#include "ui/gui/segment_model.h"

namespace x86lab::gui {
namespace {

constexpr u64 kTruncated = (u64{0xB7D4F2E0u} << 32) | 0x000045FFu;  // expand-up, limit 445FFh pages
constexpr u64 kFlipped = (u64{0xB7D4F6E0u} << 32) | 0x000081FFu;    // expand-down, limit 481FFh pages

class GuiSegments : public ::testing::Test, protected GuiTestMemory {
 protected:
  CpuState state;
  GuiSegments() {
    state.cr0 = 0x60000011u;  // PE
    state.gdtr = {0x1000, 0x3F};
  }
  void put(u32 address, u64 raw) { put64(address, raw); }
  SegmentInspection gs() {
    return inspect_segment(mmu, "GS", state.segments[GS], state.gdtr, state.ldtr, true, false);
  }
};

TEST_F(GuiSegments, SelectorDecodesIntoIndexTiAndRpl) {
  state.segments[GS].selector = 0x0033;  // GDT entry 6, RPL 3
  put(0x1030, kTruncated);
  state.segments[GS].cache.load(Descriptor::parse(kTruncated));
  const SegmentInspection row = gs();
  EXPECT_EQ(row.index, 6);
  EXPECT_FALSE(row.ti);
  EXPECT_EQ(row.rpl, 3);
  EXPECT_EQ(row.entry_linear, 0x1030u);
  EXPECT_EQ(row.source, SegmentSource::Table);
}

TEST_F(GuiSegments, CacheMatchingItsEntryIsNotStale) {
  state.segments[GS].selector = 0x0033;
  put(0x1030, kTruncated);
  state.segments[GS].cache.load(Descriptor::parse(kTruncated));
  EXPECT_TRUE(gs().differing.empty());
  EXPECT_FALSE(gs().stale());
}

TEST_F(GuiSegments, FlippingTheTableEntryMakesTheCachedLimitAndTypeStale) {
  // The hypervisor rewrote GDT entry 6 expand-down; GS still holds the truncated form
  // until it is reloaded (SDM "Segment Registers": the hidden part is loaded only by a load).
  state.segments[GS].selector = 0x0033;
  state.segments[GS].cache.load(Descriptor::parse(kTruncated));
  put(0x1030, kFlipped);
  const SegmentInspection row = gs();
  EXPECT_TRUE(row.stale());
  EXPECT_EQ(row.differing, (std::vector<std::string_view>{"limit", "type"}));
  EXPECT_EQ(row.cache.limit, 0x445FFFFFu);
  EXPECT_EQ(row.entry->limit(), 0x481FFFFFu);
}

TEST_F(GuiSegments, AnAccessedBitSetOnlyInTheTableIsReportedAsA) {
  state.segments[GS].selector = 0x0033;
  state.segments[GS].cache.load(Descriptor::parse(kTruncated));  // A = 0
  put(0x1030, kTruncated | (u64{1} << 40));                      // A = 1 in memory
  EXPECT_EQ(gs().differing, (std::vector<std::string_view>{"A"}));
}

TEST_F(GuiSegments, NullSelectorHasNoEntryAndIsNotStale) {
  state.segments[GS].selector = 0x0003;  // null with RPL 3
  state.segments[GS].cache.usable = false;
  const SegmentInspection row = gs();
  EXPECT_EQ(row.source, SegmentSource::NullSelector);
  EXPECT_FALSE(row.stale());
}

TEST_F(GuiSegments, SelectorBeyondTheGdtLimitIsStale) {
  state.segments[GS].selector = 0x0040;  // entry 8 at 40h..47h, limit 3Fh
  EXPECT_EQ(gs().source, SegmentSource::OutsideTable);
  EXPECT_TRUE(gs().stale());
}

TEST_F(GuiSegments, LdtSelectorsIndexTheLdtThatLdtrCaches) {
  state.ldtr.selector = 0x0028;
  state.ldtr.cache.base = 0x4000;
  state.ldtr.cache.limit = 0x17;
  state.ldtr.cache.usable = true;
  state.segments[GS].selector = 0x000F;  // LDT entry 1, RPL 3
  put(0x4008, kTruncated);
  state.segments[GS].cache.load(Descriptor::parse(kTruncated));
  const SegmentInspection row = gs();
  EXPECT_TRUE(row.ti);
  EXPECT_EQ(row.entry_linear, 0x4008u);
  EXPECT_FALSE(row.stale());
}

TEST_F(GuiSegments, RealModeComparesTheBaseWithSelectorTimes16) {
  // After reset CS = F000h with base FFFF0000h (SDM "Processor State After Reset"):
  // a far jump would reload base F0000h, so the cached base is "stale".
  SegmentRegister cs;
  cs.selector = 0xF000;
  cs.cache.set_real_mode(0xFFFF0000u);
  const SegmentInspection reset = inspect_segment(mmu, "CS", cs, state.gdtr, state.ldtr, false, false);
  EXPECT_EQ(reset.source, SegmentSource::RealMode);
  EXPECT_EQ(reset.differing, (std::vector<std::string_view>{"base"}));
  cs.cache.load_real_mode(0x1234);
  cs.selector = 0x1234;
  const SegmentInspection loaded = inspect_segment(mmu, "CS", cs, state.gdtr, state.ldtr, false, false);
  EXPECT_FALSE(loaded.stale());
  EXPECT_EQ(loaded.entry->base, 0x12340u);
}

TEST_F(GuiSegments, ARealModeSelectorIsAParagraphNotATableIndex) {
  // Real-mode CS F000h was labelled "7680/GDT/0" (issue 27): it indexes no table.
  CpuState reset;
  reset.cr0 = 0x60000010u;
  reset.segments[CS].selector = 0xF000;
  const auto real = inspect_segments(mmu, reset);
  EXPECT_EQ(selector_meaning(real[0]), "real mode");
  CpuState v86 = state;
  v86.eflags |= 1u << 17;  // EFLAGS.VM
  v86.segments[CS].selector = 0xF000;
  EXPECT_EQ(selector_meaning(inspect_segments(mmu, v86)[0]), "V86 mode");
  // In protected mode a selector is index/TI/RPL.
  CpuState protected_mode = state;
  protected_mode.segments[CS].selector = 0x002B;
  EXPECT_EQ(selector_meaning(inspect_segments(mmu, protected_mode)[0]), "5/GDT/3");
}

TEST_F(GuiSegments, InspectsAllEightRegistersInWindowOrder) {
  const auto rows = inspect_segments(mmu, state);
  ASSERT_EQ(rows.size(), 8u);
  const char* names[] = {"CS", "DS", "ES", "FS", "GS", "SS", "LDTR", "TR"};
  for (std::size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(rows[i].name, names[i]);
}

}  // namespace
}  // namespace x86lab::gui
