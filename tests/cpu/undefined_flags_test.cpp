// docs/undefined-flags.md must list every rule of cpu/undefined_flags.h as it stands.
#include "cpu/undefined_flags.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace x86lab {
namespace {

TEST(UndefinedFlags, DocumentationListsEveryRuleWithItsChoice) {
  std::ifstream file(std::string(X86LAB_SOURCE_DIR) + "/docs/undefined-flags.md");
  ASSERT_TRUE(file) << "docs/undefined-flags.md is missing";
  std::stringstream text;
  text << file.rdbuf();
  for (const auto& rule : kUndefinedFlags) {
    const std::string row = "| " + std::string(rule.mnemonic) + " | ";
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

}  // namespace
}  // namespace x86lab
