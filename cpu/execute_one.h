// The instruction cycle the reference interpreter (Cpu::step, cpu/cpu.cpp) and the
// accelerator's slow step (cpu/linked_runner.cpp) share: between-instruction events,
// then fetch (through a fetch policy: Cpu::ReferenceFetch or LinkedRunner), execute,
// retire; a fault restores the instruction-start state and is delivered. A header so
// that each of the two units inlines it with its own fetch policy. Also the inline
// per-step helpers both run loops use (stop checks, retirement counting, delivery of a
// signalled fault, the replay watch), declared in cpu/cpu.h. Include only from
// cpu/cpu.cpp and cpu/linked_runner.cpp.
#pragma once
#include "cpu/cpu.h"
#include "cpu/decoder.h"
#include "trace/tracer.h"

namespace x86lab {

// The decode cache's look-up for the instruction at CS offset `offset` (EIP `eip`)
// once its first byte passed the limit check and was translated to `physical` (A20
// applied): a hit needs every byte inside the limit (and, for a 16-bit segment, no
// wrap at FFFFh) and counts the bytes as code fetches (at the retirement or fault);
// a miss decodes and caches (decode_and_cache). Null: decode_at must decode it byte
// by byte.
[[gnu::always_inline]] inline const Instruction* Cpu::look_up(u32 eip, u32 offset, u32 physical, Instruction& scratch) {
  const DescriptorCache& cs = state.segments[CS].cache;
  if (DecodeCache::Entry* entry = decode_cache_.find_entry(physical, cs.db)) [[likely]] {
    const u32 last = offset + entry->insn.length - 1;
    if (last < offset || last > cs.valid_max || (!cs.db && last > 0xFFFF)) [[unlikely]] return nullptr;
    decode_cache_.list(*entry);
    return &use_entry(*entry);
  }
  return decode_and_cache(eip, offset, physical, scratch);
}

// The instruction is fetched through `fetch` (ReferenceFetch: a full look-up in the
// decode cache; LinkedRunner: successor links first), which is told of its retirement
// and of a fault; everything else is the same for both.
template <class Fetch>
[[gnu::always_inline]] inline void Cpu::execute_one(Fetch& fetch) {
  instruction_eip_ = state.eip;
  watch_replay_start();
  const u32 start_esp = state.gpr[ESP];
  Tracer* tracer = this->tracer();
  std::array<u32, 10> before;  // EAX..EDI, EIP, EFLAGS for register-write events (while tracing)
  u16 selector = 0;            // CS at the start (while tracing)
  bool code32 = false;         // CS.D at the start (while tracing)
  if (tracer) [[unlikely]] {
    const SegmentRegister& cs = state.segments[CS];
    selector = cs.selector;
    code32 = cs.cache.db;
    tracer->begin_instruction(counters_.instructions, clock_.cycles(), cs.selector, state.eip, state.cpl);
    std::copy(state.gpr.begin(), state.gpr.end(), before.begin());
    before[8] = state.eip;
    before[9] = state.eflags;
  }
  std::array<u8, kMaxInstructionBytes> bytes;  // filled while tracing
  try {
    // Instruction breakpoints are checked first unless RF suppresses them; RF is then
    // cleared (SDM "Debug Exceptions": "cleared at the start of the instruction after
    // the check for code breakpoint").
    if (code_breakpoints_ && !(state.eflags & flag::RF)) [[unlikely]] check_code_breakpoint();
    bool single_step = false;
    if (state.eflags & (flag::RF | flag::TF)) [[unlikely]] {
      state.eflags &= ~flag::RF;
      single_step = state.eflags & flag::TF;
    }
    const u32 eip = state.eip;
    // While tracing, every instruction is decoded from its bytes (the trace shows them).
    const Instruction* decoded = tracer ? nullptr : fetch.fetch(*this, eip, scratch_);
    if (!decoded) [[unlikely]] {
      decode_at(eip, scratch_, bytes.data());
      decoded = &scratch_;
    }
    const Instruction& insn = *decoded;
    // Its L1I access, by the physical address of its first byte (trace/cache_model.h).
    if constexpr (kStatistics)
      if (counters_.cache_model) [[unlikely]]
        caches_.fetch(decoded == &scratch_ ? decoded_physical_ : current_entry_->physical);
    // The instruction's linear address, from CS's base at its fetch (a far transfer
    // changes the base).
    const u32 linear = state.segments[CS].cache.base + eip;
    state.eip = eip + insn.length;
    if (!state.segments[CS].cache.db) state.eip &= 0xFFFF;
    insn.execute(*this, insn);
    // A fault raised by signal_fault is delivered as a caught one (deliver_fault
    // handles faults of the delivery itself, so nothing is thrown from it).
    if (deliver_signalled_fault(start_esp, fetch)) [[unlikely]] return;
    if (single_step || instruction_debug_hits_) [[unlikely]] note_debug_traps(single_step);
    fetch.retired(*this, current_entry_, linear);
    count_retirement<true, false>(insn, current_entry_, linear);
    if (tracer) [[unlikely]] trace_retired(insn, selector, code32, linear, bytes, before);
  } catch (const Fault& fault) {
    fetch.faulted(*this);
    abort_instruction(fault, start_esp);
  }
}

template <class Fetch>
[[gnu::always_inline]] inline void Cpu::execute_step(Fetch& fetch) {
  if (state.shutdown) return;
  // Debug traps of the previous instruction, NMI and INTR (between_instructions.cpp);
  // a delivered event takes the place of an instruction.
  if (attention_.any() && service_events()) return;
  if (state.halted) return;
  state.interrupt_shadow = false;
  state.mov_ss_shadow = false;
  execute_one(fetch);
}


// ---- the run loops' per-step helpers (declared in cpu/cpu.h, private) ----

inline bool Cpu::stop_before_step(StopReason& reason) {
  if (attention_.has(Attention::kStopRequested | Attention::kMonitor)) [[unlikely]] {
    if (attention_.has(Attention::kMonitor)) monitor_->before_step();
    if (attention_.has(Attention::kStopRequested)) {
      attention_.clear(Attention::kStopRequested);
      reason = StopReason::StopRequested;
      return true;
    }
  }
  // A signal stop ends the run as a reached cycle limit does (stop_from_signal).
  if (clock_.subcycles >= subcycle_limit_ || attention_.signalled()) {
    reason = StopReason::CycleLimit;
    return true;
  }
  return false;
}

inline bool Cpu::stop_after_step(StopReason& reason) const {
  if (!(state.shutdown | state.halted)) [[likely]] return false;
  if (state.shutdown) {
    reason = StopReason::Shutdown;
    return true;
  }
  if ((!pic_ || !(state.eflags & flag::IF) || !pic_->interrupt_pending()) && !state.nmi_pending) {
    reason = StopReason::Halted;
    return true;
  }
  return false;
}

template <bool kMayBeReplay, bool kViaLink>
[[gnu::always_inline]] inline void Cpu::count_retirement(const Instruction& insn, DecodeCache::Entry* entry,
                                                         u32 linear) {
  ++counters_.instructions;
  if (kMayBeReplay && replay_.take_replay()) [[unlikely]] ++counters_.replayed_instructions;
  clock_.add_cost(insn.cost);
  if constexpr (kStatistics) {
    if (entry) [[likely]] {
      ++entry->executions;
      if (!kViaLink) footprint_.retired(decode_cache_.slot(*entry), linear, insn.length);
    } else {
      retire_uncached(insn, linear);
    }
  }
}

template <class Fetch>
inline bool Cpu::deliver_signalled_fault(u32 start_esp, Fetch& fetch) {
  if (!signalled_fault_) [[likely]] return false;
  const Fault fault = *signalled_fault_;
  signalled_fault_.reset();
  fetch.faulted(*this);
  abort_instruction(fault, start_esp);
  return true;
}

inline void Cpu::watch_replay_start() {
  if (!replay_.pending()) [[likely]] return;
  const SegmentRegister& cs = state.segments[CS];
  const u32 linear = cs.cache.base + state.eip;
  if (!replay_.may_act_at(state.cpl, linear)) return;
  // The linked run retires a replay's start in its attention branch (LinkedRunner::run_linked).
  if (replay_.instruction_starts(state.cpl, cs.selector, linear)) request_slow_step();
}

}  // namespace x86lab
