// The opcode map's rows (cpu/opcode_map.tsv) against what is stated once elsewhere: the
// flags column's undefined flags against cpu/undefined_flags.h's rules (Intel SDM Vol. 2,
// each instruction's "Flags Affected"), and the rows' order against the SDM's opcode map
// (Vol. 2, Appendix A). The column's written flags are held to the host CPU by the
// differential tests (tests/cpu/host_differential.cpp, "flags-column").
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "cpu/instruction_table.h"
#include "cpu/undefined_flags.h"

namespace x86lab {
namespace {

std::string row_name(const InstructionForm& form) {
  return "cpu/opcode_map.tsv:" + std::to_string(form.map_line) + ": " + std::string(form.mnemonic) + " " +
         std::string(form.operands);
}

TEST(OpcodeMap, FlagsColumnMatchesTheUndefinedFlagsRules) {
  for (const InstructionForm* form : InstructionTable::get().rows()) {
    EXPECT_EQ(form->flags_undefined, undefined_flags(form->mnemonic, form->operands)) << row_name(*form);
    EXPECT_EQ(form->flags_undefined & ~form->flags_written, 0u) << row_name(*form) << ": u: outside w:";
  }
}

TEST(OpcodeMap, EveryUndefinedFlagsRuleHasARow) {
  for (const auto& rule : kUndefinedFlags) {
    bool found = false;
    for (const InstructionForm* form : InstructionTable::get().rows())
      found = found || (form->mnemonic == rule.mnemonic && (rule.operands.empty() || form->operands == rule.operands));
    EXPECT_TRUE(found) << rule.mnemonic << " " << rule.operands;
  }
}

// The SDM's "Flags Affected" for a few rows, spelt out: ADD writes the six status flags
// and defines them all, STC writes CF, POPF loads EFLAGS, CMPXCHG8B writes ZF alone,
// ROL leaves SF ZF AF PF alone.
TEST(OpcodeMap, FlagsColumnOfSomeRows) {
  const auto& slot = [](u16 opcode, int reg) -> const InstructionForm& {
    return *InstructionTable::get().slot(opcode).memory[reg < 0 ? 0 : reg].form;
  };
  EXPECT_EQ(slot(0x01, -1).flags_written, flag::kStatus);
  EXPECT_EQ(slot(0x01, -1).flags_undefined, 0u);
  EXPECT_EQ(slot(0xF9, -1).flags_written, flag::CF);
  EXPECT_EQ(slot(0x9D, -1).flags_written, flag::kImplemented);
  EXPECT_EQ(slot(0x1C7, 1).flags_written, flag::ZF);
  EXPECT_EQ(slot(0xD1, 0).flags_written, flag::OF | flag::CF);
  EXPECT_EQ(slot(0xD1, 0).flags_undefined, flag::OF);
  EXPECT_EQ(slot(0x88, -1).flags_written, 0u);  // MOV
}

// Appendix A's order: the one-byte map 00-FF without the x87 escapes, the two-byte map
// 0F 00-FF, then D8-DF with each opcode's memory forms by ModRM.reg before its register
// forms by ModRM byte; within an opcode, ModRM.reg.
TEST(OpcodeMap, RowsAreInTheSdmsOpcodeOrder) {
  const auto key = [](const InstructionForm& f) {
    const bool escape = f.opcode >= 0xD8 && f.opcode <= 0xDF;
    const int map = f.opcode >= 0x100 ? 1 : escape ? 2 : 0;
    const bool register_form = escape && (f.attributes & kRegisterOnly);
    const int modrm = register_form ? 0xC0 | f.extension << 3 | (f.rm < 0 ? 0 : f.rm) : f.extension;
    return std::make_tuple(map, f.opcode, register_form, modrm);
  };
  const auto& rows = InstructionTable::get().rows();
  for (std::size_t i = 1; i < rows.size(); ++i)
    EXPECT_LE(key(*rows[i - 1]), key(*rows[i])) << row_name(*rows[i]) << " comes after " << row_name(*rows[i - 1]);
  for (std::size_t i = 1; i < rows.size(); ++i)
    EXPECT_LE(rows[i - 1]->map_line, rows[i]->map_line) << "the table's rows follow the map's lines";
}

}  // namespace
}  // namespace x86lab
