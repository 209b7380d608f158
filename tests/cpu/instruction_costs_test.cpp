// Every mnemonic of the CPU's instruction table has a cost line in every built-in
// profile (docs/cost-model.md, "No default"): a guest may execute any of them, and one
// without a cost would charge nothing.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "cpu/instruction_table.h"
#include "trace/cost_model.h"

namespace x86lab {
namespace {

TEST(InstructionCosts, EveryTableMnemonicHasACostInEveryBuiltinProfile) {
  std::set<std::string> mnemonics;
  for (const InstructionForm* row : InstructionTable::get().rows()) mnemonics.emplace(row->mnemonic);
  for (const std::string& profile : builtin_cost_model_names()) {
    const CostModel model = builtin_cost_model(profile);
    std::string missing;
    for (const std::string& mnemonic : mnemonics)
      if (!model.instruction_cost(mnemonic)) missing += " " + mnemonic;
    EXPECT_EQ(missing, "") << profile;
  }
}

}  // namespace
}  // namespace x86lab
