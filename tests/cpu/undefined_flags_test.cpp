// docs/undefined-flags.md must list every rule of cpu/undefined_flags.h as it stands.
#include "cpu/undefined_flags.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "cpu_fixture.h"

namespace x86lab {
namespace {

TEST(UndefinedFlags, DocumentationListsEveryRuleWithItsChoice) {
  std::ifstream file(std::string(X86LAB_SOURCE_DIR) + "/docs/undefined-flags.md");
  ASSERT_TRUE(file) << "docs/undefined-flags.md is missing";
  std::stringstream text;
  text << file.rdbuf();
  for (const auto& rule : kUndefinedFlags) {
    std::string row = "| ";
    row.append(rule.mnemonic);
    if (!rule.operands.empty()) row.append(" ").append(rule.operands);
    row.append(" | ");
    const auto at = text.str().find(row);
    ASSERT_NE(at, std::string::npos) << rule.mnemonic << " has no row";
    const std::string line = text.str().substr(at, text.str().find('\n', at) - at);
    EXPECT_NE(line.find(std::string(rule.x86lab)), std::string::npos) << line;
  }
}

TEST(UndefinedFlags, LogicInstructionsLeaveOnlyAfUndefined) {
  EXPECT_EQ(undefined_flags("AND"), flag::AF);
  EXPECT_EQ(undefined_flags("ADD"), 0u);
  EXPECT_EQ(undefined_flags("DIV"), flag::kStatus);
}

// The 16-bit SHLD/SHRD by 17-31 (docs/undefined-flags.md, cpu/exec_shift.cpp): values an
// Intel host (Xeon) gives for destination 1234h, source 5678h.
TEST(UndefinedFlags, SixteenBitDoubleShiftsBeyond16ShiftDestinationSourceDestination) {
  struct Case {
    u8 opcode, count;
    u16 result;
    bool cf;
  };
  const Case cases[] = {{0xA4, 17, 0xACF0, false}, {0xA4, 20, 0x6781, true},  {0xA4, 31, 0x091A, false},
                        {0xAC, 17, 0x2B3C, false}, {0xAC, 20, 0x4567, true},  {0xAC, 31, 0x2468, true}};
  for (const Case& c : cases) {
    testing::CpuFixture f;
    f.real_mode_at();
    f.cpu.state.gpr[EAX] = 0x1234;
    f.cpu.state.gpr[EBX] = 0x5678;
    f.code(0x1000, {0x0F, c.opcode, 0xD8, c.count});  // shld/shrd ax, bx, count
    f.cpu.step();
    EXPECT_EQ(f.cpu.reg<u16>(EAX), c.result) << (c.opcode == 0xA4 ? "SHLD " : "SHRD ") << int{c.count};
    EXPECT_EQ(f.cpu.flag_set(flag::CF), c.cf) << (c.opcode == 0xA4 ? "SHLD " : "SHRD ") << int{c.count};
  }
}

}  // namespace
}  // namespace x86lab
