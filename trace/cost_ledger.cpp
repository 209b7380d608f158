// Pricing a run's ledger (trace/cost_ledger.h).
#include "trace/cost_ledger.h"

namespace x86lab {

u64 price_subcycles(const CostLedger& ledger, const CostModel& model) {
  u64 total = ledger.skipped_subcycles;
  for (const auto& [mnemonic, count] : ledger.mnemonics) total += count * model.instruction_cost(mnemonic).value_or(0);
  for (std::size_t p = 0; p < kCostPartCount; ++p) total += ledger.charged[p] * model.parts[p];
  return total;
}

std::vector<CostLine> cost_lines(const CostLedger& ledger, const CostModel& model) {
  std::vector<CostLine> lines;
  const auto cycles = [](u64 subcycles) { return double(subcycles) / kSubcyclesPerCycle; };
  for (const auto& [mnemonic, count] : ledger.mnemonics)
    if (count) lines.push_back({"instruction." + mnemonic, double(count), cycles(model.instruction_cost(mnemonic).value_or(0))});
  for (std::size_t p = 0; p < kCostPartCount; ++p)
    if (ledger.charged[p]) lines.push_back({kCostPartKeys[p], double(ledger.charged[p]), cycles(model.parts[p])});
  if (ledger.skipped_subcycles) lines.push_back({"halted", 1, cycles(ledger.skipped_subcycles)});
  return lines;
}

}  // namespace x86lab
