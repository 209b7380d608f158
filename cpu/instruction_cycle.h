// The instruction cycle (Intel SDM Vol. 3, "Exception and Interrupt Handling";
// docs/performance.md): between-instruction events, then begin, fetch (through a
// fetch policy), execute, retire; a fault, thrown or signalled, aborts the
// instruction (the instruction-start state restored) and is delivered. Runners drive
// a Cpu through these entry points: the reference interpreter (run_reference, step;
// instruction_cycle.cpp) and the accelerator (cpu/linked_runner.cpp), which inline
// them with their own fetch policy. A fetch policy is a class with
//   const Instruction* fetch(Cpu&, u32 eip)   // null: decode byte by byte
//   void retired(Cpu&, DecodeCache::Entry*, u32 linear)
//   void faulted(Cpu&)
// Include only from runners' .cpp files.
#pragma once
#include "cpu/cpu.h"
#include "cpu/decoder.h"
#include "trace/tracer.h"

namespace x86lab {

// The reference fetch policy: a full look-up in the decode cache (FetchUnit::cached_instruction).
struct ReferenceFetch {
  const Instruction* fetch(Cpu& cpu, u32 eip) { return cpu.fetch_unit().cached_instruction(cpu, eip); }
  void retired(Cpu&, DecodeCache::Entry*, u32) {}
  void faulted(Cpu&) {}
};

// The cache-free fetch policy: every instruction decoded from its bytes
// (FetchUnit::decode_at), no decode cache at all (Cpu::set_decode_cache(false)).
struct DecodeEveryStep {
  const Instruction* fetch(Cpu&, u32) { return nullptr; }
  void retired(Cpu&, DecodeCache::Entry*, u32) {}
  void faulted(Cpu&) {}
};

class InstructionCycle {
 public:
  // ---- the reference interpreter (instruction_cycle.cpp) ----
  // Cpu::step: one step (an instruction, a delivery, or nothing when halted), then the
  // decode cache's statistics settled.
  static void step(Cpu& cpu);
  // Up to `max_steps` steps of the reference loop (Cpu::run when something observes
  // every instruction, or with the decode cache off): stops as Cpu::run does.
  static StopReason run_reference(Cpu& cpu, u64 max_steps);

  // ---- one step ----
  // The step: shutdown, then the between-instruction events (a delivered event takes
  // the place of an instruction), a halt, then one instruction.
  template <class Fetch>
  static void execute_step(Cpu& cpu, Fetch& policy);
  // One instruction: begin, fetch, execute, retire; a fault aborts it.
  template <class Fetch>
  static void execute_one(Cpu& cpu, Fetch& policy);
  // The checks of a run loop before a step: the step monitor, a stop request, the
  // cycle limit and the signal stop. True (with `reason`) when the run ends.
  static bool stop_before_step(Cpu& cpu, StopReason& reason);
  // After a step: shutdown, or a halt nothing can wake (an interrupt it can take or an NMI).
  static bool stop_after_step(const Cpu& cpu, StopReason& reason);

  // ---- entry points of one instruction ----
  // Starts the instruction at CS:EIP (Cpu::instruction_eip, the replay watch);
  // returns ESP at its start (abort restores it).
  static u32 begin(Cpu& cpu) {
    cpu.begin_instruction();
    cpu.watch_replay_start();
    return cpu.state.gpr[ESP];
  }
  // The decoded instruction at EIP `eip` through the fetch policy, or decoded byte by byte
  // (into the fetch unit's scratch instruction, `bytes` filled when not null) when the
  // policy gives none or `bytes` is wanted (tracing); then its L1I access.
  template <class Fetch>
  static const Instruction& fetch(Cpu& cpu, Fetch& policy, u32 eip, u8* bytes);
  // Executes `insn` fetched at EIP `eip`: EIP moves past it first. Returns its linear
  // address (CS's base at its fetch plus `eip`; a far transfer changes the base).
  static u32 execute(Cpu& cpu, const Instruction& insn, u32 eip) {
    const u32 linear = cpu.state.segments[CS].cache.base + eip;
    cpu.state.eip = eip + insn.length;
    if (!cpu.state.segments[CS].cache.db) cpu.state.eip &= 0xFFFF;
    insn.execute(cpu, insn);
    return linear;
  }
  // Counts a retired instruction: the instruction and its cost, a replayed start, the
  // statistics (in its decode-cache entry `entry` when it came from one; `linear`:
  // its linear address). `kMayBeReplay` false: the caller knows it is no replay
  // candidate. kViaLink: it came through a successor link, so its code lines are in
  // the set already (LinkedRunner::retired makes links only to retired instructions)
  // and `linear` is unused.
  template <bool kMayBeReplay, bool kViaLink>
  [[gnu::always_inline]] static void retire(Cpu& cpu, const Instruction& insn, DecodeCache::Entry* entry, u32 linear);
  // Restores the instruction-start state after `fault` (EIP, and ESP `start_esp`,
  // unless a task switch committed) and delivers it.
  static void abort(Cpu& cpu, const Fault& fault, u32 start_esp);
  // Delivers a fault raised by Cpu::signal_fault during the instruction as a caught
  // one, after telling the fetch policy; false when none was raised.
  template <class Fetch>
  static bool deliver_signalled_fault(Cpu& cpu, u32 start_esp, Fetch& policy);

 private:
  // The statistics of a retired instruction that did not come from the decode cache.
  [[gnu::noinline]] static void retire_uncached(Cpu& cpu, const Instruction& insn, u32 linear);
  // The Instruction event (and, when wanted, RegisterWrite events) of a retired
  // instruction; only called while tracing. `selector`, `code32`: CS and CS.D at its start.
  static void trace_retired(Cpu& cpu, const Instruction& insn, u16 selector, bool code32, u32 linear,
                            const std::array<u8, kMaxInstructionBytes>& bytes, const std::array<u32, 10>& before);
};

template <class Fetch>
[[gnu::always_inline]] inline const Instruction& InstructionCycle::fetch(Cpu& cpu, Fetch& policy, u32 eip, u8* bytes) {
  FetchUnit& unit = cpu.fetch_unit();
  // While tracing, every instruction is decoded from its bytes (the trace shows them).
  const Instruction* decoded = bytes ? nullptr : policy.fetch(cpu, eip);
  if (!decoded) [[unlikely]] {
    unit.decode_at(cpu, eip, unit.scratch(), bytes);
    decoded = &unit.scratch();
  }
  // Its L1I access, by the physical address of its first byte (trace/cache_model.h).
  if constexpr (kStatistics)
    if (cpu.counters().cache_model) [[unlikely]]
      cpu.caches().fetch(decoded == &unit.scratch() ? unit.decoded_physical() : unit.current_entry()->physical);
  return *decoded;
}

template <class Fetch>
[[gnu::always_inline]] inline void InstructionCycle::execute_one(Cpu& cpu, Fetch& policy) {
  const u32 start_esp = begin(cpu);
  Tracer* tracer = cpu.tracer();
  std::array<u32, 10> before;  // EAX..EDI, EIP, EFLAGS for register-write events (while tracing)
  u16 selector = 0;            // CS at the start (while tracing)
  bool code32 = false;         // CS.D at the start (while tracing)
  CpuState& state = cpu.state;
  if (tracer) [[unlikely]] {
    const SegmentRegister& cs = state.segments[CS];
    selector = cs.selector;
    code32 = cs.cache.db;
    tracer->begin_instruction(cpu.counters().instructions, cpu.clock().cycles(), cs.selector, state.eip, state.cpl);
    std::copy(state.gpr.begin(), state.gpr.end(), before.begin());
    before[8] = state.eip;
    before[9] = state.eflags;
  }
  std::array<u8, kMaxInstructionBytes> bytes;  // filled while tracing
  try {
    // Instruction breakpoints are checked first unless RF suppresses them; RF is then
    // cleared (SDM "Debug Exceptions": "cleared at the start of the instruction after
    // the check for code breakpoint").
    if (cpu.code_breakpoints_armed() && !(state.eflags & flag::RF)) [[unlikely]] cpu.check_code_breakpoint();
    bool single_step = false;
    if (state.eflags & (flag::RF | flag::TF)) [[unlikely]] {
      state.eflags &= ~flag::RF;
      single_step = state.eflags & flag::TF;
    }
    const u32 eip = state.eip;
    const Instruction& insn = fetch(cpu, policy, eip, tracer ? bytes.data() : nullptr);
    const u32 linear = execute(cpu, insn, eip);
    // A fault raised by signal_fault is delivered as a caught one (deliver_fault
    // handles faults of the delivery itself, so nothing is thrown from it).
    if (deliver_signalled_fault(cpu, start_esp, policy)) [[unlikely]] return;
    if (single_step || cpu.data_breakpoint_hit()) [[unlikely]] cpu.note_debug_traps(single_step);
    DecodeCache::Entry* entry = cpu.fetch_unit().current_entry();
    policy.retired(cpu, entry, linear);
    retire<true, false>(cpu, insn, entry, linear);
    if (tracer) [[unlikely]] trace_retired(cpu, insn, selector, code32, linear, bytes, before);
  } catch (const Fault& fault) {
    policy.faulted(cpu);
    abort(cpu, fault, start_esp);
  }
}

template <class Fetch>
[[gnu::always_inline]] inline void InstructionCycle::execute_step(Cpu& cpu, Fetch& policy) {
  if (cpu.state.shutdown) return;
  // Debug traps of the previous instruction, NMI and INTR (between_instructions.cpp);
  // a delivered event takes the place of an instruction.
  if (cpu.attention().any() && cpu.service_events()) return;
  if (cpu.state.halted) return;
  cpu.state.interrupt_shadow = false;
  cpu.state.mov_ss_shadow = false;
  execute_one(cpu, policy);
}

inline bool InstructionCycle::stop_before_step(Cpu& cpu, StopReason& reason) {
  Attention& attention = cpu.attention();
  if (attention.has(Attention::kStopRequested | Attention::kMonitor)) [[unlikely]] {
    if (attention.has(Attention::kMonitor)) cpu.step_monitor()->before_step();
    if (attention.has(Attention::kStopRequested)) {
      attention.clear(Attention::kStopRequested);
      reason = StopReason::StopRequested;
      return true;
    }
  }
  // A signal stop ends the run as a reached cycle limit does (Cpu::stop_from_signal).
  if (cpu.clock().subcycles >= cpu.subcycle_limit() || attention.signalled()) {
    reason = StopReason::CycleLimit;
    return true;
  }
  return false;
}

inline bool InstructionCycle::stop_after_step(const Cpu& cpu, StopReason& reason) {
  const CpuState& state = cpu.state;
  if (!(state.shutdown | state.halted)) [[likely]] return false;
  if (state.shutdown) {
    reason = StopReason::Shutdown;
    return true;
  }
  const InterruptController* pic = cpu.interrupt_controller();
  if ((!pic || !(state.eflags & flag::IF) || !pic->interrupt_pending()) && !state.nmi_pending) {
    reason = StopReason::Halted;
    return true;
  }
  return false;
}

template <bool kMayBeReplay, bool kViaLink>
[[gnu::always_inline]] inline void InstructionCycle::retire(Cpu& cpu, const Instruction& insn,
                                                            DecodeCache::Entry* entry, u32 linear) {
  Counters& counters = cpu.counters();
  ++counters.instructions;
  if (kMayBeReplay && cpu.replay_watch().take_replay()) [[unlikely]] ++counters.replayed_instructions;
  cpu.clock().add_cost(insn.cost);
  if constexpr (kStatistics) {
    if (entry) [[likely]] {
      ++entry->executions;
      if (!kViaLink) cpu.code_footprint().retired(cpu.fetch_unit().decode_cache().slot(*entry), linear, insn.length);
    } else {
      retire_uncached(cpu, insn, linear);
    }
  }
}

template <class Fetch>
inline bool InstructionCycle::deliver_signalled_fault(Cpu& cpu, u32 start_esp, Fetch& policy) {
  if (!cpu.fault_signalled()) [[likely]] return false;
  const Fault fault = cpu.take_signalled_fault();
  policy.faulted(cpu);
  abort(cpu, fault, start_esp);
  return true;
}

}  // namespace x86lab
