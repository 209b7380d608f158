// The P6 family's two performance-monitoring counters (Intel SDM Vol. 3, "Performance
// Monitoring (P6 Family Processor)"; Vol. 4, MSRs 0C1h-0C2h and 186h-187h).
//
// PerfEvtSel0/1 choose an event and the privilege levels counted (USR bit 16, OS bit
// 17); PerfEvtSel0.EN (bit 22) enables both counters. PerfCtr0/1 are 40 bits wide; WRMSR
// writes the low 32 bits and sign-extends bit 31 into bits 32-39. RDPMC and RDMSR read
// them. x86lab counts two events exactly: C0h INST_RETIRED (Counters::instructions) and
// 79h CPU_CLK_UNHALTED (modeled cycles; DEVIATION: cycles skipped in HLT count too).
// Other event codes read back the last value written. DEVIATION: with either USR or OS
// set, a counter counts at every privilege level (x86lab keeps no per-CPL totals).
#pragma once
#include "cpu/cpu_state.h"
#include "trace/counters.h"
#include "trace/modeled_clock.h"

namespace x86lab::pmc {

inline constexpr u32 kPerfCtr0 = 0xC1, kPerfCtr1 = 0xC2, kPerfEvtSel0 = 0x186, kPerfEvtSel1 = 0x187;
inline constexpr u32 kUsr = 1u << 16, kOs = 1u << 17, kEnable = 1u << 22;
inline constexpr u8 kInstructionsRetired = 0xC0, kCpuClocksUnhalted = 0x79;
inline constexpr u64 kCounterMask = (u64{1} << 40) - 1;

// What counter n (0 or 1) counts now, in the unit of its event; 0 for an event x86lab
// does not model or a counter that is off.
inline u64 event_source(const CpuState& s, const Counters& counters, const ModeledClock& clock, unsigned n) {
  const u32 select = s.perfevtsel[n];
  if (!(s.perfevtsel[0] & kEnable) || !(select & (kUsr | kOs))) return 0;
  switch (static_cast<u8>(select)) {
    case kInstructionsRetired: return counters.instructions;
    case kCpuClocksUnhalted: return clock.cycles();
    default: return 0;
  }
}

// The 40-bit value of counter n (0 or 1).
inline u64 read_counter(const CpuState& s, const Counters& counters, const ModeledClock& clock, unsigned n) {
  return (s.perfctr_base[n] + event_source(s, counters, clock, n) - s.perfctr_since[n]) & kCounterMask;
}

// Applies `change` to the counter MSRs with both counters' values kept across it:
// their counts so far are folded into perfctr_base before and re-based after.
template <class Change>
void reprogram(CpuState& s, const Counters& counters, const ModeledClock& clock, Change change) {
  for (unsigned n = 0; n < 2; ++n) s.perfctr_base[n] = read_counter(s, counters, clock, n);
  change();
  for (unsigned n = 0; n < 2; ++n) s.perfctr_since[n] = event_source(s, counters, clock, n);
}

// WRMSR to PerfCtr n: bits 31-0 written, bit 31 extended into bits 39-32.
inline u64 counter_from_write(u32 low) { return static_cast<u64>(static_cast<i64>(static_cast<i32>(low))) & kCounterMask; }

}  // namespace x86lab::pmc
