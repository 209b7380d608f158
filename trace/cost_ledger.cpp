// Pricing a run's ledger (trace/cost_ledger.h).
#include "trace/cost_ledger.h"

#include <algorithm>
#include <map>

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

void CostWindowRecorder::record(u32 linear, std::vector<u64> rows, const std::array<u64, kCostPartCount>& charged,
                                u64 skipped, u64 subcycles) {
  if (open_) {
    auto sum = std::find_if(sums_.begin(), sums_.end(),
                            [&](const Sum& s) { return s.open == last_linear_ && s.close == linear; });
    if (sum == sums_.end()) {
      sums_.push_back({last_linear_, linear, 0, {std::vector<u64>(rows.size()), {}, 0, 0}});
      sum = sums_.end() - 1;
    }
    ++sum->count;
    Totals& t = sum->totals;
    for (std::size_t r = 0; r < rows.size() && r < last_.rows.size(); ++r) t.rows[r] += rows[r] - last_.rows[r];
    for (std::size_t p = 0; p < kCostPartCount; ++p) t.charged[p] += charged[p] - last_.charged[p];
    t.skipped += skipped - last_.skipped;
    t.subcycles += subcycles - last_.subcycles;
  }
  open_ = true;
  last_linear_ = linear;
  last_ = {std::move(rows), charged, skipped, subcycles};
}

std::vector<CostWindow> CostWindowRecorder::windows(const std::function<std::string(std::size_t)>& mnemonic_of) const {
  std::vector<CostWindow> windows;
  for (const Sum& sum : sums_) {
    CostWindow window{sum.open, sum.close, sum.count, {}, sum.totals.subcycles};
    std::map<std::string, u64> counts;
    for (std::size_t r = 0; r < sum.totals.rows.size(); ++r)
      if (sum.totals.rows[r]) counts[mnemonic_of(r)] += sum.totals.rows[r];
    window.ledger.mnemonics.assign(counts.begin(), counts.end());
    window.ledger.charged = sum.totals.charged;
    window.ledger.skipped_subcycles = sum.totals.skipped;
    windows.push_back(std::move(window));
  }
  return windows;
}

}  // namespace x86lab
