// The modeled clock: the CPU's cycle count, advanced by the cost model's prices
// (trace/cost_model.h) as instructions retire and events happen. Machine state, not a
// statistic: RDTSC and the performance counters read it, device time is derived from
// it (platform/clock.h) and the platform's next device event is a cycle limit on it.
// The CPU owns it (Cpu::clock) and attaches it to its bus
// (PhysicalBus::attach_clock), so every layer that charges a cost (the bus's locked
// cycles, the Mmu's page walks, segment loads, the CPU) charges the same one.
//
// Every event cost is charged by part (CostPart) and the clock counts the charges of
// each part, so a run's cycles are exactly the sum of counts x constants: instruction
// retirements by row (Counters::instructions_by_row) x their costs, plus charges x
// part costs, plus the cycles the platform skipped while the CPU was halted (docs/cost-model.md,
// "Cycles are counts x constants").
#pragma once
#include <array>

#include "trace/types.h"

namespace x86lab {

// The parts of the hardware's work that the cost model prices (besides each retired
// instruction's own cost). The keys of a profile file are kCostPartKeys.
enum class CostPart : u8 {
  MemoryOperand,        // extra, per instruction with a ModRM memory operand
  SegmentLoad,          // a protected-mode segment-register load: descriptor read and checks
  LockedAccess,         // a locked read-modify-write (Accessed/Busy/A-D bits, XCHG, LOCK, INTA)
  FarTransfer,          // extra, per far JMP/CALL/RET (besides the CS load)
  ExceptionDelivery,    // an exception, trap or INT n through the IDT: gate read and frame pushes
  InterruptDelivery,    // an external interrupt through the IDT: gate read and frame pushes
  StackSwitch,          // extra, per delivery or call-gate CALL to an inner ring: TSS stack read and SS load
  Iret,                 // extra, per IRET (besides its segment loads)
  TaskSwitch,           // a hardware task switch (TSS save and load)
  PageWalk,             // a TLB miss's page walk
  NewCodeLine,          // a 32-byte code line fetched for the first time
  StringIteration,      // extra, per element a REP-prefixed string instruction processes
  FaultingInstruction,  // an instruction that faults (before its delivery)
  L1iMiss,              // an L1 instruction-cache miss (--cache-model on; trace/cache_model.h)
  L1dMiss,              // an L1 data-cache miss (--cache-model on)
};
inline constexpr std::size_t kCostPartCount = 15;
inline constexpr std::array<const char*, kCostPartCount> kCostPartKeys = {
    "memory-operand", "segment-load",       "locked-access", "far-transfer",   "exception-delivery",
    "interrupt-delivery", "stack-switch",   "iret",          "task-switch",    "page-walk",
    "new-code-line",  "string-iteration",   "faulting-instruction", "l1i-miss", "l1d-miss"};

// Extra costs of events, in 1/256 cycles, by CostPart, copied from the active CostModel
// so every layer can charge them without knowing the model.
using CycleCosts = std::array<u32, kCostPartCount>;

struct ModeledClock {
  // In 1/256 cycles: cycles() is its whole part, the low 8 bits the fraction the cost
  // model's prices carry.
  u64 subcycles = 0;
  CycleCosts costs{};  // event costs of the active profile
  std::array<u64, kCostPartCount> charged{};  // charges of each part so far (a statistic)
  u64 skipped_subcycles = 0;  // moved forward by set_cycles (halted until a device event)

  // Modeled cycles (RDTSC reads this).
  u64 cycles() const { return subcycles >> 8; }
  // Moves the clock to `cycle` whole cycles; the fraction stays.
  void set_cycles(u64 cycle) {
    const u64 next = (cycle << 8) | (subcycles & 0xFF);
    skipped_subcycles += next - subcycles;  // mod 2^64: a move back cancels a move forward
    subcycles = next;
  }
  // Charges `cost` (1/256 cycles): a retired instruction's own cost.
  void add_cost(u32 cost) { subcycles += cost; }
  // Charges one `part`.
  void charge(CostPart part) {
    const auto p = static_cast<std::size_t>(part);
    subcycles += costs[p];
    ++charged[p];
  }
  u32 cost(CostPart part) const { return costs[static_cast<std::size_t>(part)]; }
};

}  // namespace x86lab
