// The cycle-cost model of a CPU profile (DESIGN.md section 5, docs/cost-model.md):
// data, one file per profile, every number with its provenance. Costs are in cycles
// and may have fractions; the simulator accumulates them in 1/256-cycle units so that
// totals stay deterministic integers.
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "trace/cache_model.h"
#include "trace/modeled_clock.h"
#include "trace/types.h"

namespace x86lab {

inline constexpr u32 kSubcyclesPerCycle = 256;

// Where a constant comes from (docs/cost-model.md, "Provenance"): the tag of its line.
enum class Provenance : u8 {
  Source,        // `source:` a citable document or measurement
  Assumption,    // `assumption:` the reasoning, no document gives the number
  Calibrated,    // `calibrated on:` a seed figure; that figure is then reported as calibrated
};
const char* name_of(Provenance provenance);  // "source", "assumption", "calibrated"

struct ConstantProvenance {
  Provenance kind = Provenance::Assumption;
  std::string text;  // what follows the tag
  int line = 0;      // in the profile file
  double value = 0;  // the number as written (cycles, or MHz for cpu-mhz)
  // The range an `assumption:` constant may plausibly take (cycles, low <= value <= high;
  // docs/cost-model.md "Ranges"): written `value [low..high]`, its reasoning after
  // `range:` in the text. A line without one gets half to double its value
  // (`range_given` false). Other tags: low = high = value.
  double low = 0, high = 0;
  bool range_given = false;
  std::string range_reason;  // the text after "range:", empty when not given
};

struct CostModel {
  std::string name;                        // profile name
  double cpu_mhz = 500;                    // the profile's clock: MachineConfig::cpu_hz unless --cpu-mhz is given
  std::map<std::string, u32> instruction;  // per mnemonic as the SDM spells it (total for the instruction), 1/256 cycles
  CycleCosts parts{};                      // per CostPart, 1/256 cycles (kCostPartKeys)
  // Every key's provenance, by key as written ("instruction.LLDT", "segment-load", "cpu-mhz").
  std::map<std::string, ConstantProvenance> provenance;
  // The L1 cache model (trace/cache_model.h, docs/cost-model.md "Cache model"): the
  // geometry of each cache (none when its keys are absent); a miss costs the parts
  // l1i-miss / l1d-miss.
  CacheGeometry l1i, l1d;

  // Cost of one retired instruction with this mnemonic, in 1/256 cycles; nullopt when
  // the profile has none (the instruction is uncosted: it charges nothing and the run
  // lists it, docs/cost-model.md "No default").
  std::optional<u32> instruction_cost(const std::string& mnemonic) const {
    const auto it = instruction.find(mnemonic);
    if (it == instruction.end()) return std::nullopt;
    return it->second;
  }
  u32 part(CostPart p) const { return parts[static_cast<std::size_t>(p)]; }
};

// The largest cost a line may give, in cycles: costs are held in 1/256 cycles in a u32.
inline constexpr u32 kMaxCostCycles = ~u32{0} / kSubcyclesPerCycle;

// Whether a mnemonic names instructions x86lab executes (the CPU's instruction table,
// which this layer cannot see); empty: any upper-case mnemonic is taken.
using MnemonicCheck = std::function<bool(const std::string&)>;

// Parses a profile file's text. Each non-blank, non-comment line is
//   key = number [low..high]  TAG text
// with TAG one of `source:`, `assumption:`, `calibrated on:` (the first on the line,
// followed by text); the optional range belongs to `assumption:` lines only and its
// reasoning follows `range:` in the text. Throws std::invalid_argument "FILE:LINE: problem"
// for a malformed range, a range that does not hold the value or is on a line not tagged
// `assumption:`, a range without `range:` reasoning, an unknown key
// (instruction.default among them: there is no default cost), a key given twice, a bad
// number, a cost above kMaxCostCycles, an instruction.MNEMONIC that `is_mnemonic` does
// not know, a missing tag or one without text, or a NUL byte.
CostModel parse_cost_model(const std::string& text, const std::string& file_name, const MnemonicCheck& is_mnemonic);

// The built-in profiles (trace/profiles/*.cost, embedded at build time).
const std::vector<std::string>& builtin_cost_model_names();
// Returns the built-in profile `name`, or throws std::invalid_argument.
CostModel builtin_cost_model(const std::string& name);
// The text of built-in profile `name`'s file, or throws std::invalid_argument.
std::string builtin_cost_model_text(const std::string& name);

}  // namespace x86lab
