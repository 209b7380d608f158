// The reference interpreter and the out-of-line parts of the instruction cycle
// (cpu/instruction_cycle.h).
#include "cpu/instruction_cycle.h"

#include <algorithm>

namespace x86lab {

void InstructionCycle::step(Cpu& cpu) {
  cpu.attention().raise(Attention::kCheckInterrupt);  // as at the start of run(): the state may have been edited
  if (cpu.decode_cache_on()) {
    ReferenceFetch reference;
    execute_step(cpu, reference);
  } else {
    DecodeEveryStep reference;
    execute_step(cpu, reference);
  }
  cpu.fetch_unit().decode_cache().settle();
}

namespace {

template <class Fetch>
StopReason reference_loop(Cpu& cpu, u64 max_steps) {
  Fetch reference;
  StopReason reason;
  for (u64 i = 0; i < max_steps; ++i) {
    if (InstructionCycle::stop_before_step(cpu, reason)) [[unlikely]] return reason;
    InstructionCycle::execute_step(cpu, reference);
    cpu.count_steps(1);
    if (InstructionCycle::stop_after_step(cpu, reason)) [[unlikely]] return reason;
  }
  return StopReason::InstructionLimit;
}

}  // namespace

StopReason InstructionCycle::run_reference(Cpu& cpu, u64 max_steps) {
  return cpu.decode_cache_on() ? reference_loop<ReferenceFetch>(cpu, max_steps)
                               : reference_loop<DecodeEveryStep>(cpu, max_steps);
}

void InstructionCycle::retire_uncached(Cpu& cpu, const Instruction& insn, u32 linear) {
  Counters& counters = cpu.counters();
  ++counters.opcodes[insn.opcode_index];
  ++counters.instructions_by_row[insn.row];
  if (insn.is_memory()) ++counters.memory_operand_instructions;
  counters.code_bytes += insn.length;
  cpu.code_footprint().retired_uncached(linear, insn.length);
}

void InstructionCycle::abort(Cpu& cpu, const Fault& fault, u32 start_esp) {
  // An instruction from the decode cache was fetched: its bytes count as fetched (the
  // bus counted those of one decoded from memory).
  FetchUnit& unit = cpu.fetch_unit();
  Counters& counters = cpu.counters();
  if (kStatistics && unit.current_entry())
    counters.accesses_by_kind[static_cast<std::size_t>(AccessKind::CodeFetch)] += unit.current_entry()->insn.length;
  unit.forget_entry();
  if (fault.vector == static_cast<u8>(Vector::UD) && fault.cause == "undefined opcode") ++counters.undefined_opcodes;
  cpu.restore_instruction_start(start_esp);
  cpu.clock().charge(CostPart::FaultingInstruction);
  cpu.deliver_fault(fault);
}

// The Instruction event of a retired instruction fetched at `selector`:EIP (CS at its
// start; a far transfer changes it), linear address `linear`.
void InstructionCycle::trace_retired(Cpu& cpu, const Instruction& insn, u16 selector, bool code32, u32 linear,
                                     const std::array<u8, kMaxInstructionBytes>& bytes,
                                     const std::array<u32, 10>& before) {
  Tracer* tracer = cpu.tracer();
  const CpuState& state = cpu.state;
  emit(tracer, events::Instruction{.cs = selector, .eip = cpu.instruction_eip(), .linear = linear, .cpl = state.cpl,
                                   .bytes = std::span<const u8>(bytes.data(), insn.length),
                                   .mnemonic = insn.form->mnemonic, .code_size = static_cast<u8>(code32 ? 32 : 16)});
  if (!tracer->wants(EventKind::RegisterWrite)) return;
  std::array<u32, 10> after{};
  std::copy(state.gpr.begin(), state.gpr.end(), after.begin());
  after[8] = state.eip;
  after[9] = state.eflags;
  for (u8 r = 0; r < 10; ++r) {
    if (r == 8 || before[r] == after[r]) continue;  // EIP changes every instruction: not an event
    emit(tracer, events::RegisterWrite{.reg = r, .old_value = before[r], .new_value = after[r]});
  }
}

}  // namespace x86lab
