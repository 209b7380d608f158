// The modeled clock: the CPU's cycle count, advanced by the cost model's prices
// (trace/cost_model.h) as instructions retire and events happen. Machine state, not a
// statistic: RDTSC and the performance counters read it, device time is derived from
// it (platform/clock.h) and the platform's next device event is a cycle limit on it.
// The CPU owns it (Cpu::clock) and attaches it to its physical bus
// (PhysicalBus::attach_clock), so every layer that charges a cost (the bus's locked
// cycles, the Mmu's page walks, segment loads, the CPU) charges the same one.
#pragma once
#include "trace/types.h"

namespace x86lab {

// Extra costs of events, in 1/256 cycles, copied from the active CostModel
// (trace/cost_model.h) so every layer can charge them without knowing the model.
struct CycleCosts {
  u32 memory_operand = 0, segment_load = 0, locked_access = 0, far_transfer = 0, exception_delivery = 0,
      interrupt_delivery = 0, iret = 0, task_switch = 0, page_walk = 0, new_code_line = 0, string_iteration = 0;
};

struct ModeledClock {
  // In 1/256 cycles: cycles() is its whole part, the low 8 bits the fraction the cost
  // model's prices carry.
  u64 subcycles = 0;
  CycleCosts costs;  // event costs of the active profile

  // Modeled cycles (RDTSC reads this).
  u64 cycles() const { return subcycles >> 8; }
  // Moves the clock to `cycle` whole cycles; the fraction stays.
  void set_cycles(u64 cycle) { subcycles = (cycle << 8) | (subcycles & 0xFF); }
  // Charges `cost` (1/256 cycles).
  void add_cost(u32 cost) { subcycles += cost; }
};

}  // namespace x86lab
