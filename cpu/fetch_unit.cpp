// Instruction fetch and the decode cache (cpu/fetch_unit.h; Intel SDM Vol. 2,
// "Instruction Format").
#include "cpu/fetch_unit.h"

#include "cpu/cpu.h"
#include "cpu/decoder.h"

namespace x86lab {

namespace {

// The executor of an instruction that may load CS (kLoadsCs): the form's own, then
// Attention::kCodeSegmentLoaded, which ends a linked run after it, since the fetch
// context the run assumes may be gone (LinkedRunner::run_linked).
void execute_ending_run(Cpu& cpu, const Instruction& insn) {
  insn.form_executor()(cpu, insn);
  cpu.note_code_segment_load();
}

// The executor decode_at gives `insn`.
Executor own_executor(const Instruction& insn) {
  return insn.form->attributes & kLoadsCs ? &execute_ending_run : insn.form_executor();
}

}  // namespace

void FetchUnit::decode_at(Cpu& cpu, u32 eip, Instruction& insn, u8* bytes) {
  current_entry_ = nullptr;  // the fetch may fault
  const SegmentRegister& cs = cpu.state.segments[CS];
  Mmu& mmu = cpu.mmu();
  decode([&](unsigned i) -> u8 {
    const u32 offset = cs.cache.db ? eip + i : (eip + i) & 0xFFFF;
    if (offset < cs.cache.valid_min || offset > cs.cache.valid_max) throw gp(0, "code segment limit");
    // (Mmu::fetch, keeping the first byte's physical address for the cache model.)
    const u32 physical = mmu.translate(cs.cache.base + offset, AccessIntent::Execute, cpu.user());
    if (i == 0) decoded_physical_ = physical & mmu.bus().a20_mask();
    const u8 byte = mmu.bus().fetch<u8>(physical);
    if (bytes) bytes[i] = byte;
    return byte;
  }, cs.cache.db, insn);
  insn.cost = cpu.instruction_cost(insn);
  insn.execute = own_executor(insn);
  insn.operands_resolved = true;
  for (unsigned n = 0; n < insn.register_operand.size(); ++n) {
    insn.register_operand[n] = operand_detail::register_operand(insn, n);
    if (insn.register_operand[n] == kNoRegister || insn.register_operand[n] == kModrmMemoryOperand)
      insn.operands_resolved = false;
    if (insn.register_operand[n] == kImmediateOperand) insn.immediate_operand = operand_detail::immediate_value(insn, n);
  }
}

const Instruction* FetchUnit::cached_instruction(Cpu& cpu, u32 eip) {
  const DescriptorCache& cs = cpu.state.segments[CS].cache;
  const u32 offset = cs.db ? eip : eip & 0xFFFF;
  if (offset < cs.valid_min || offset > cs.valid_max) [[unlikely]] return nullptr;
  current_entry_ = nullptr;  // the translation may fault
  Mmu& mmu = cpu.mmu();
  const u32 physical = mmu.translate(cs.base + offset, AccessIntent::Execute, cpu.user()) & mmu.bus().a20_mask();
  return look_up(cpu, cs, eip, offset, physical);
}

const Instruction* FetchUnit::decode_and_cache(Cpu& cpu, u32 eip, u32 offset, u32 physical) {
  const bool db = cpu.state.segments[CS].cache.db;
  decode_at(cpu, eip, scratch_, nullptr);
  // Cached only when the bytes were contiguous: no wrap of the offset or linear address.
  const u32 last = offset + scratch_.length - 1;
  if (last >= offset && (db || last <= 0xFFFF) && decode_cache_.cacheable(physical, scratch_.length)) {
    current_entry_ = decode_cache_.insert(physical, db, scratch_);
    cpu.code_footprint().decoded(decode_cache_.slot(*current_entry_));
    // Its retirement or fault counts the bytes as fetched, and the bus has counted
    // this fetch already.
    if constexpr (kStatistics)
      cpu.counters().accesses_by_kind[static_cast<std::size_t>(AccessKind::CodeFetch)] -= scratch_.length;
  }
  return &scratch_;
}

}  // namespace x86lab
