// A run's cycles as counts x constants (docs/cost-model.md, "Cycles are counts x
// constants"): what was charged, by mnemonic and by part, so a report can break the
// modeled cycles down and re-price them under another profile or a changed constant
// without running the guest again.
#pragma once
#include <array>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "trace/cost_model.h"

namespace x86lab {

struct CostLedger {
  std::vector<std::pair<std::string, u64>> mnemonics;  // retired instructions by mnemonic, sorted
  std::array<u64, kCostPartCount> charged{};           // charges by CostPart (MemoryOperand: instructions with one)
  u64 skipped_subcycles = 0;                           // the clock moved forward while halted (not a cost)
  std::vector<std::string> uncosted;                   // retired mnemonics the profile has no cost for
};

// The charges between two consecutive RDTSC executions, summed over every time the same
// pair ran (Cpu::enable_cost_windows): what a guest's RDTSC-bracketed measurement
// paid, by part. Opened by the RDTSC at linear `open`, closed by the one at `close`
// (each RDTSC's own cost falls into the window it opens).
struct CostWindow {
  u32 open = 0, close = 0;  // linear addresses of the two RDTSCs
  u64 count = 0;            // how many times the pair ran
  CostLedger ledger;        // their charges, summed (uncosted left empty)
  u64 subcycles = 0;        // their clock advance, summed
};

// Sums the counts between consecutive RDTSCs by pair of RDTSC sites (Cpu::note_rdtsc).
class CostWindowRecorder {
 public:
  bool enabled = false;
  // An RDTSC at linear `linear` with these running totals: closes the window opened
  // by the previous RDTSC and opens the next. `rows`: retirements by instruction-table
  // row; `charged`: by part (MemoryOperand = instructions with a memory operand).
  void record(u32 linear, std::vector<u64> rows, const std::array<u64, kCostPartCount>& charged, u64 skipped,
              u64 subcycles);
  // The windows in the order each pair first ran; `mnemonic_of(row)` names a row.
  std::vector<CostWindow> windows(const std::function<std::string(std::size_t)>& mnemonic_of) const;

 private:
  struct Totals {
    std::vector<u64> rows;
    std::array<u64, kCostPartCount> charged{};
    u64 skipped = 0, subcycles = 0;
  };
  struct Sum {
    u32 open, close;
    u64 count = 0;
    Totals totals;
  };
  bool open_ = false;
  u32 last_linear_ = 0;
  Totals last_;
  std::vector<Sum> sums_;
};

// The ledger's cycles priced with `model`, in 1/256 cycles: each mnemonic's count x its
// cost (0 when uncosted), each part's charges x its cost, plus the skipped cycles.
// With the model of the run it equals the clock (ModeledClock::subcycles).
u64 price_subcycles(const CostLedger& ledger, const CostModel& model);

// One priced line of a breakdown: "instruction.MOV" or a part key, its count, and the
// cycles of one (model's cost), in cycles.
struct CostLine {
  std::string part;
  double count = 0;  // negative in a difference of two runs, a fraction in a per-operation mean
  double cycles_each = 0;
};
// The ledger's non-zero lines priced with `model`, the idle cycles last ("halted", count
// 1, cycles_each = the skipped cycles) when there are any.
std::vector<CostLine> cost_lines(const CostLedger& ledger, const CostModel& model);

}  // namespace x86lab
