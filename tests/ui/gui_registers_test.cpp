// The CPU window's register model: EFLAGS, CR0, CR4, DR6 and DR7 field names and bit
// positions as the SDM's figures give them, and change detection against the last stop.
#include <gtest/gtest.h>

#include "ui/gui/cpu_registers_model.h"

namespace x86lab::gui {
namespace {

const BitField* find(std::span<const BitField> fields, std::string_view name) {
  for (const BitField& f : fields)
    if (f.name == name) return &f;
  return nullptr;
}

TEST(GuiRegisters, EflagsFieldsSitWhereTheSdmFigureDrawsThem) {
  // SDM Vol. 1, Figure "EFLAGS Register": bit, width.
  const std::pair<std::string_view, std::pair<int, int>> expected[] = {
      {"CF", {0, 1}},  {"PF", {2, 1}},  {"AF", {4, 1}},  {"ZF", {6, 1}},   {"SF", {7, 1}},   {"TF", {8, 1}},
      {"IF", {9, 1}},  {"DF", {10, 1}}, {"OF", {11, 1}}, {"IOPL", {12, 2}}, {"NT", {14, 1}}, {"RF", {16, 1}},
      {"VM", {17, 1}}, {"AC", {18, 1}}, {"VIF", {19, 1}}, {"VIP", {20, 1}}, {"ID", {21, 1}}};
  EXPECT_EQ(bit_fields(BitRegister::Eflags).size(), std::size(expected));
  for (const auto& [name, position] : expected) {
    const BitField* field = find(bit_fields(BitRegister::Eflags), name);
    ASSERT_NE(field, nullptr) << name;
    EXPECT_EQ(field->bit, position.first) << name;
    EXPECT_EQ(field->width, position.second) << name;
  }
}

TEST(GuiRegisters, EflagsAfterCmpOfEqualValuesReadsIfZfPf) {
  // 00000246h: IF (bit 9), ZF (6), PF (2) and the always-1 bit 1; IOPL 0.
  EXPECT_EQ(describe_bits(bit_fields(BitRegister::Eflags), 0x00000246u), "IOPL=0 IF ZF PF");
  // 00003202h: IOPL 3 with IF, as a V86 monitor might run.
  EXPECT_EQ(describe_bits(bit_fields(BitRegister::Eflags), 0x00003202u), "IOPL=3 IF");
  // 00020002h: VM alone.
  EXPECT_EQ(describe_bits(bit_fields(BitRegister::Eflags), 0x00020002u), "VM IOPL=0");
}

TEST(GuiRegisters, Cr0AtResetHasCdNwEt) {
  // SDM Vol. 3, "Processor State After Reset": CR0 = 60000010h.
  EXPECT_EQ(describe_bits(bit_fields(BitRegister::Cr0), 0x60000010u), "CD NW ET");
  EXPECT_EQ(describe_bits(bit_fields(BitRegister::Cr0), 0x80000011u), "PG ET PE");
  EXPECT_EQ(find(bit_fields(BitRegister::Cr0), "WP")->bit, 16);
  EXPECT_EQ(find(bit_fields(BitRegister::Cr0), "AM")->bit, 18);
}

TEST(GuiRegisters, Cr4PseAndPgeBits) {
  EXPECT_EQ(describe_bits(bit_fields(BitRegister::Cr4), 0x00000090u), "PGE PSE");
}

TEST(GuiRegisters, Dr7DecodesEnablesConditionsAndLengths) {
  // L0 G0, R/W0 = 11b (read/write), LEN0 = 11b (4 bytes): bits 16-19 all set.
  const u32 dr7 = 0x000F0003u;
  EXPECT_EQ(field_value(*find(bit_fields(BitRegister::Dr7), "R/W0"), dr7), 3u);
  EXPECT_EQ(field_value(*find(bit_fields(BitRegister::Dr7), "LEN0"), dr7), 3u);
  EXPECT_EQ(describe_bits(bit_fields(BitRegister::Dr7), dr7), "LEN3=0 R/W3=0 LEN2=0 R/W2=0 LEN1=0 R/W1=0 LEN0=3 R/W0=3 G0 L0");
  EXPECT_EQ(find(bit_fields(BitRegister::Dr7), "GD")->bit, 13);
  EXPECT_EQ(describe_bits(bit_fields(BitRegister::Dr6), 0xFFFF4FF1u), "BS B0");
}

TEST(GuiRegisters, OnlyRegistersThatDifferFromTheLastStopAreMarkedChanged) {
  CpuState before, now;
  now.gpr[EAX] = 1;
  now.eip = 0x10;
  now.cr3 = 0x1000;
  const auto general = general_registers(now, before);
  ASSERT_EQ(general.size(), 10u);
  EXPECT_EQ(general[0].name, "EAX");
  EXPECT_TRUE(general[0].changed);
  EXPECT_FALSE(general[1].changed);
  EXPECT_EQ(general[8].name, "EIP");
  EXPECT_TRUE(general[8].changed);
  EXPECT_FALSE(general[9].changed);  // EFLAGS
  const auto control = control_registers(now, before);
  EXPECT_FALSE(control[0].changed);
  EXPECT_TRUE(control[2].changed);  // CR3
}

}  // namespace
}  // namespace x86lab::gui
