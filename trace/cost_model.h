// The cycle-cost model of a CPU profile (DESIGN.md section 5, docs/cost-model.md):
// data, one file per profile, every number with its source. Costs are in cycles and
// may have fractions; the simulator accumulates them in 1/256-cycle units so that
// totals stay deterministic integers.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "trace/cache_model.h"
#include "trace/types.h"

namespace x86lab {

inline constexpr u32 kSubcyclesPerCycle = 256;

struct CostModel {
  std::string name;                       // profile name
  double cpu_mhz = 500;                   // the profile's clock: MachineConfig::cpu_hz unless --cpu-mhz is given
  u32 instruction_default = 256;          // per retired instruction not listed, in 1/256 cycles
  std::map<std::string, u32> instruction; // per mnemonic as the SDM spells it (total for the instruction)
  u32 memory_operand = 0;                 // extra per instruction with a memory operand
  u32 segment_load = 0;                   // a segment-register load in protected mode (descriptor fetch included)
  u32 locked_access = 0;                  // each implied or explicit locked read-modify-write
  u32 far_transfer = 0;                   // extra for far JMP/CALL/RET (besides the CS load)
  u32 exception_delivery = 0;             // delivering an exception or INT n through the IDT/IVT
  u32 interrupt_delivery = 0;             // delivering an external interrupt
  u32 iret = 0;                           // extra for IRET
  u32 task_switch = 0;                    // a task switch
  u32 page_walk = 0;                      // a TLB miss's page walk
  u32 new_code_line = 0;                  // fetching code from a 32-byte line not fetched before
  u32 string_iteration = 0;               // extra, per element a REP-prefixed string instruction processes
  // The L1 cache model (trace/cache_model.h, docs/cost-model.md "Cache model"): the
  // geometry of each cache (none when its keys are absent) and the cost of a miss.
  CacheGeometry l1i, l1d;
  u32 l1i_miss = 0, l1d_miss = 0;

  // Cost of one retired instruction with this mnemonic, in 1/256 cycles.
  u32 instruction_cost(const std::string& mnemonic) const {
    const auto it = instruction.find(mnemonic);
    return it == instruction.end() ? instruction_default : it->second;
  }
};

// The largest cost a line may give, in cycles: costs are held in 1/256 cycles in a u32.
inline constexpr u32 kMaxCostCycles = ~u32{0} / kSubcyclesPerCycle;

// Whether a mnemonic names instructions x86lab executes (the CPU's instruction table,
// which this layer cannot see); empty: any upper-case mnemonic is taken.
using MnemonicCheck = std::function<bool(const std::string&)>;

// Parses a profile file's text. Each non-blank, non-comment line is
//   key = number  source: where the number comes from
// Throws std::invalid_argument "FILE:LINE: problem" for an unknown key, a key given
// twice, a bad number, a cost above kMaxCostCycles, an instruction.MNEMONIC that
// `is_mnemonic` does not know, a missing source, or a NUL byte.
CostModel parse_cost_model(const std::string& text, const std::string& file_name, const MnemonicCheck& is_mnemonic);

// The built-in profiles (trace/profiles/*.cost, embedded at build time).
const std::vector<std::string>& builtin_cost_model_names();
// Returns the built-in profile `name`, or throws std::invalid_argument.
CostModel builtin_cost_model(const std::string& name);

}  // namespace x86lab
