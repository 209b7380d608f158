// The Descriptor tables and TSS windows' model: SDM type names, gate targets, and
// table reads that leave no trace on the bus (no counters, no Accessed bits).
#include <gtest/gtest.h>

#include <string_view>

#include "tests/ui/gui_test_memory.h"
#include "ui/gui/descriptor_model.h"

namespace x86lab::gui {
namespace {

Descriptor parse(u32 high, u32 low) { return Descriptor::parse((u64{high} << 32) | low); }

TEST(GuiDescriptors, TypeNamesFollowTheSdmTables) {
  struct Case {
    u32 high, low;  // the descriptor's dwords
    std::string_view name;
  };
  const Case cases[] = {
      // SDM "Code- and Data-Segment Types": 2 read/write, 4/6 expand-down, 8 execute-only,
      // A execute/read, C/E conforming; the Accessed bit (type bit 0) is not part of the name.
      {0x00CF9A00, 0x0000FFFF, "Code execute/read"},
      {0x00CF9B00, 0x0000FFFF, "Code execute/read"},
      {0x00CF9800, 0x0000FFFF, "Code execute-only"},
      {0x00CF9E00, 0x0000FFFF, "Code execute/read conforming"},
      {0x00CF9200, 0x0000FFFF, "Data read/write"},
      {0x00CF9000, 0x0000FFFF, "Data read-only"},
      // The flipped TLS descriptor of docs/scenarios.md section 1 (type 6).
      {0xB7D4F6E0, 0x000081FF, "Data read/write expand-down"},
      // SDM "System-Segment and Gate-Descriptor Types", 32-bit column.
      {0x00008200, 0x0000FFFF, "LDT"},
      {0x00008900, 0x00000067, "32-bit TSS"},
      {0x00008B00, 0x00000067, "32-bit TSS"},
      {0x00008100, 0x0000002B, "16-bit TSS"},
      {0x00008500, 0x00280000, "Task gate"},
      {0x00108E00, 0x00081234, "32-bit interrupt gate"},
      {0x00108F00, 0x00081234, "32-bit trap gate"},
      {0x00108C00, 0x00081234, "32-bit call gate"},
      {0x00008800, 0x00000000, "Reserved (type 8)"},
  };
  for (const Case& c : cases) EXPECT_EQ(descriptor_type_name(parse(c.high, c.low)), c.name) << std::hex << c.high;
}

TEST(GuiDescriptors, GateSummariesNameTheTarget) {
  // Interrupt gate: selector in low dword bits 31:16, offset split 15:0 / 63:48.
  EXPECT_EQ(descriptor_summary(parse(0x00108E00, 0x00081234)), "-> 0008:00101234 DPL 0");
  // Call gate, DPL 3, two parameter dwords (high dword bits 4:0).
  EXPECT_EQ(descriptor_summary(parse(0x0010EC02, 0x00081234)), "-> 0008:00101234 DPL 3 params 2");
  EXPECT_EQ(descriptor_summary(parse(0x00008500, 0x00280000)), "-> TSS 0028 DPL 0");
  EXPECT_EQ(descriptor_summary(parse(0x00100E00, 0x00081234)), "-> 0008:00101234 DPL 0 not present");
}

TEST(GuiDescriptors, SegmentSummaryOfTheTruncatedTlsDescriptor) {
  // docs/scenarios.md: truncated by the hypervisor, base B7E00000h, limit 445FFh pages.
  EXPECT_EQ(descriptor_summary(parse(0xB7D4F2E0, 0x000045FF)), "base B7E00000 limit 445FF*4K DPL 3 32-bit");
}

class GuiDescriptorTable : public ::testing::Test, protected GuiTestMemory {
 protected:
  void put(u32 address, u64 raw) { put64(address, raw); }
};

TEST_F(GuiDescriptorTable, ReadsEntriesWithinTheLimitAndFlagsAccessedAndBusy) {
  put(0x1000, 0);
  put(0x1008, 0x00CF9B000000FFFFull);  // code, accessed
  put(0x1010, 0x00CF93000000FFFFull);  // data, accessed
  put(0x1018, 0x00008B0200000067ull);  // busy 32-bit TSS at 20000h
  const auto rows = read_descriptor_table(mmu, 0x1000, 0x1F);  // limit 1Fh: four entries
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_TRUE(rows[1].accessed);
  EXPECT_FALSE(rows[1].busy);
  EXPECT_TRUE(rows[3].busy);
  EXPECT_FALSE(rows[3].accessed);
  EXPECT_EQ(rows[3].linear, 0x1018u);
  EXPECT_EQ(rows[3].descriptor.base, 0x20000u);
  EXPECT_EQ(read_descriptor_table(mmu, 0x1000, 0x1E).size(), 3u);  // the 4th entry's last byte is beyond
}

TEST_F(GuiDescriptorTable, DisplayReadsLeaveNoTraceOnTheBus) {
  put(0x1008, 0x00CF9A000000FFFFull);  // code, Accessed clear
  const Counters before = counters;
  read_descriptor_table(mmu, 0x1000, 0xFFFF);
  read_tss32(mmu, 0x1000);
  EXPECT_EQ(counters.accesses_by_kind, before.accesses_by_kind);
  EXPECT_EQ(counters.locked_by_kind, before.locked_by_kind);
  EXPECT_EQ(bus.peek(0x1008 + 5), 0x9A);  // Accessed still clear
}

TEST_F(GuiDescriptorTable, RealModeVectorsAreOffsetThenSegment) {
  // SDM Vol. 3, "Interrupt and Exception Handling in Real-Address Mode": entry n at
  // IDTR.base + 4n, the offset in its low word. Here INT 10h -> C000:0190.
  put32(0x40, 0xC0000190u);
  const IvtRow row = read_ivt_row(mmu, 0, 0x10);
  EXPECT_TRUE(row.mapped);
  EXPECT_EQ(row.linear, 0x40u);
  EXPECT_EQ(row.segment, 0xC000u);
  EXPECT_EQ(row.offset, 0x0190u);
  EXPECT_EQ(row.handler(), 0xC0190u);
  EXPECT_EQ(ivt_entries(0x3FF), 256u);  // the reset IDTR limit 3FFh (SDM "Processor State After Reset")
  EXPECT_EQ(ivt_entries(0xFFFF), 256u);
  EXPECT_EQ(ivt_entries(0x0F), 4u);
}

TEST_F(GuiDescriptorTable, Tss32FieldsAtTheirSdmOffsets) {
  // SDM Figure "32-Bit Task-State Segment": link 0, ESP0 4, SS0 8, CR3 1Ch, EIP 20h,
  // EFLAGS 24h, EAX 28h, ES 48h, CS 4Ch, LDT 60h, T bit 64h bit 0, I/O map base 66h.
  const std::pair<u32, u32> fields[] = {{0x00, 0x0028},     {0x04, 0x9FFF0},    {0x08, 0x0010},
                                        {0x1C, 0x00107000}, {0x20, 0x00101000}, {0x24, 0x00000202},
                                        {0x28, 0xAAAA5555}, {0x48, 0x0023},     {0x4C, 0x001B},
                                        {0x60, 0x0048},     {0x64, 0x00680001}};
  for (const auto& [offset, value] : fields) put32(0x3000 + offset, value);
  const auto tss = read_tss32(mmu, 0x3000);
  ASSERT_TRUE(tss);
  EXPECT_EQ(tss->previous_task_link, 0x28);
  EXPECT_EQ(tss->esp[0], 0x9FFF0u);
  EXPECT_EQ(tss->ss[0], 0x10);
  EXPECT_EQ(tss->cr3, 0x00107000u);
  EXPECT_EQ(tss->eip, 0x00101000u);
  EXPECT_EQ(tss->eflags, 0x202u);
  EXPECT_EQ(tss->gpr[0], 0xAAAA5555u);
  EXPECT_EQ(tss->segments[0], 0x23);
  EXPECT_EQ(tss->segments[1], 0x1B);
  EXPECT_EQ(tss->ldt, 0x48);
  EXPECT_TRUE(tss->t);
  EXPECT_EQ(tss->io_map_base, 0x68);
}

}  // namespace
}  // namespace x86lab::gui
