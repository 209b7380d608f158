// Reset, the run loop and instruction fetch (Intel SDM Vol. 3, "Processor State After
// Reset"; Vol. 2, "Instruction Format"). Fault delivery is in cpu/delivery.cpp.
#include "cpu/cpu.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "cpu/decoder.h"
#include "cpu/execute_one.h"
#include "cpu/instruction_table.h"
#include "segmentation/system_segments.h"
#include "trace/tracer.h"

namespace x86lab {

Cpu::Cpu(Mmu& mmu, PortBus& ports, Counters& counters, const CpuProfile& profile)
    : mmu_(mmu), ports_(ports), counters_(counters), profile_(profile), decode_cache_(mmu.bus(), counters) {
  mmu_.bus().attach_clock(&clock_);
  if (InstructionTable::get().rows().size() > Counters::kInstructionRowCapacity)
    throw std::logic_error("the instruction table has more rows than Counters::instructions_by_row holds");
  mmu_.set_tlb_geometry(profile.tlb);
  // A changed translation or a written code page ends a linked run after its
  // instruction (LinkedRunner::run_linked).
  mmu_.watch_translation_changes(attention_);
  decode_cache_.watch_retirements(attention_);
  reset();
}

Cpu::~Cpu() {
  mmu_.unwatch_translation_changes(attention_);
  if (&mmu_.bus().clock() == &clock_) mmu_.bus().attach_clock(nullptr);
  if (mmu_.bus().caches() == &caches_) {
    mmu_.bus().attach_caches(nullptr);
    mmu_.set_direct_access(true);
  }
}

void Cpu::reset() {
  state = CpuState{};
  state.eflags = 2;
  state.eip = 0xFFF0;
  state.gpr[EDX] = profile_.signature;
  for (auto& segment : state.segments) reset_segment(segment, 0, 0, 3);
  reset_segment(state.segments[CS], 0xF000, 0xFFFF0000u, 0xB);  // execute/read code, accessed
  state.gdtr = {0, 0xFFFF};
  state.idtr = {0, 0xFFFF};  // SDM reset-state table: base 0, limit FFFFh
  reset_segment(state.ldtr, 0, 0, 2, true);  // LDT
  reset_segment(state.tr, 0, 0, 11, true);   // busy 32-bit TSS
  attention_.clear(~u32{0});
  caches_.invalidate();  // (SDM "Memory Cache Control": RESET invalidates the caches)
  if (monitor_) attention_.raise(Attention::kMonitor);
  pending_debug_ = instruction_debug_hits_ = 0;
  task_switch_committed_ = push_rf_ = false;
  fault_chain_size_ = 0;
  replay_.clear();
  write_debug_register(6, 0);
  write_debug_register(7, 0);
  sync_paging();
}

void Cpu::write_eflags(u32 value, u32 writable) {
  // Bit 1 always reads as 1 and is not among the writable bits (kImplemented), so it is set after masking.
  state.eflags = (((state.eflags & ~writable) | (value & writable)) & flag::kImplemented) | flag::Reserved1;
  if (state.eflags & flag::TF) attention_.raise(Attention::kTrap);
  attention_.raise(Attention::kCheckInterrupt);
}

void Cpu::sync_paging() {
  PagingControl control;
  control.pg = (state.cr0 & cr0::PG) && (state.cr0 & cr0::PE);
  control.wp = state.cr0 & cr0::WP;
  control.pse = state.cr4 & cr4::PSE;
  control.pge = state.cr4 & cr4::PGE;
  control.cr3 = state.cr3;
  mmu_.set_control(control);
}

void Cpu::write_cr0(u32 value) {
  // #GP(0): PG without PE, or NW without CD (SDM "MOV - Move to/from Control Registers").
  if ((value & cr0::PG) && !(value & cr0::PE)) throw gp(0, "CR0.PG without CR0.PE");
  if ((value & cr0::NW) && !(value & cr0::CD)) throw gp(0, "CR0.NW without CR0.CD");
  trace_control(0, state.cr0, value | cr0::ET);
  state.cr0 = value | cr0::ET;  // ET is hard-wired to 1 on P6
  sync_paging();
  update_access_checks();
}

void Cpu::write_cr3(u32 value) {
  trace_control(3, state.cr3, value);
  // Bits 2-0 and 11-5 are reserved and stay clear; PWT and PCD are kept.
  const bool reload = (value & 0xFFFFF018u) == state.cr3;
  state.cr3 = value & 0xFFFFF018u;
  sync_paging();
  if (reload) mmu_.flush_non_global();  // a new value flushed in sync_paging already
}

void Cpu::write_cr4(u32 value) {
  constexpr u32 kSupported = cr4::TSD | cr4::DE | cr4::PSE | cr4::PGE | cr4::PCE;
  if (value & ~kSupported) throw gp(0, "reserved CR4 bit");
  trace_control(4, state.cr4, value);
  state.cr4 = value;
  sync_paging();
}

void Cpu::load_segment(u8 segment, u16 selector) {
  ++counters_.segment_loads[segment];
  SegmentRegister& reg = state.segments[segment];
  if (!protected_mode()) {
    if (virtual_8086()) load_virtual_8086_segment(reg, selector, false);
    else load_real_mode_segment(reg, selector);
    trace_descriptorless_load(segment);
    return;
  }
  SegmentationContext context = segmentation_context();
  if (segment == SS) load_stack_segment(context, reg, selector);
  else load_data_segment(context, reg, selector);
}

void Cpu::load_code_segment_real(u16 selector) {
  ++counters_.segment_loads[CS];
  if (virtual_8086()) load_virtual_8086_segment(state.segments[CS], selector, true);
  else load_real_mode_segment(state.segments[CS], selector);
  trace_descriptorless_load(CS);
}


void Cpu::set_cost_model(const CostModel& model) {
  const auto& rows = InstructionTable::get().rows();
  row_costs_.assign(rows.size(), 0);
  row_uncosted_.assign(rows.size(), false);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto cost = model.instruction_cost(std::string(rows[i]->mnemonic));
    row_costs_[i] = cost.value_or(0);
    row_uncosted_[i] = !cost;
  }
  clock_.costs = model.parts;
  caches_.configure(model.l1i, model.l1d);  // (its miss costs are in clock_.costs)
  decode_cache_.clear();  // cached instructions carry the old costs
}

void Cpu::set_cache_model(bool on) {
  counters_.cache_model = on;
  mmu_.bus().attach_caches(on ? &caches_ : nullptr);
  mmu_.set_direct_access(!on);
  caches_.invalidate();
}

u32 Cpu::instruction_cost(const Instruction& insn) const {
  const u32 row = row_costs_.empty() ? kSubcyclesPerCycle : row_costs_[insn.row];
  return row + (insn.is_memory() ? clock_.cost(CostPart::MemoryOperand) : 0);
}

std::vector<std::string> Cpu::uncosted_mnemonics() const {
  std::set<std::string> names;
  const auto& rows = InstructionTable::get().rows();
  for (std::size_t i = 0; i < row_uncosted_.size() && i < counters_.instructions_by_row.size(); ++i)
    if (row_uncosted_[i] && counters_.instructions_by_row[i]) names.emplace(rows[i]->mnemonic);
  return {names.begin(), names.end()};
}

std::vector<std::pair<std::string, u64>> Cpu::retirements_by_mnemonic() const {
  std::map<std::string, u64> counts;
  const auto& rows = InstructionTable::get().rows();
  for (std::size_t i = 0; i < counters_.instructions_by_row.size() && i < rows.size(); ++i)
    if (counters_.instructions_by_row[i]) counts[std::string(rows[i]->mnemonic)] += counters_.instructions_by_row[i];
  return {counts.begin(), counts.end()};
}

CostLedger Cpu::cost_ledger() const {
  CostLedger ledger;
  ledger.mnemonics = retirements_by_mnemonic();
  ledger.charged = clock_.charged;
  ledger.charged[static_cast<std::size_t>(CostPart::MemoryOperand)] = counters_.memory_operand_instructions;
  ledger.skipped_subcycles = clock_.skipped_subcycles;
  ledger.uncosted = uncosted_mnemonics();
  return ledger;
}

// Closes the RDTSC window (CostWindowRecorder) with the counts now: the counters plus
// the decode cache's pending retirements (settling the cache here would drop the
// running entry's count).
void Cpu::close_cost_window() {
  const std::size_t rows = InstructionTable::get().rows().size();
  std::vector<u64> now(counters_.instructions_by_row.begin(), counters_.instructions_by_row.begin() + rows);
  auto charged = clock_.charged;
  u64& memory_operand = charged[static_cast<std::size_t>(CostPart::MemoryOperand)];
  memory_operand = counters_.memory_operand_instructions;
  decode_cache_.for_each_pending([&](const Instruction& insn, u64 n) {
    now[insn.row] += n;
    if (insn.is_memory()) memory_operand += n;
  });
  cost_windows_.record(state.segments[CS].cache.base + instruction_eip_, std::move(now), charged,
                       clock_.skipped_subcycles, clock_.subcycles);
}

std::vector<CostWindow> Cpu::cost_windows() const {
  const auto& rows = InstructionTable::get().rows();
  return cost_windows_.windows([&](std::size_t row) { return std::string(rows[row]->mnemonic); });
}

// The executor of an instruction that may load CS (kLoadsCs): the form's own, then
// Attention::kCodeSegmentLoaded, which ends a linked run after it, since the fetch
// context the run assumes may be gone (LinkedRunner::run_linked).
void Cpu::execute_ending_run(Cpu& cpu, const Instruction& insn) {
  insn.form_executor()(cpu, insn);
  cpu.attention_.raise(Attention::kCodeSegmentLoaded);
}

// The executor decode_at gives `insn`.
Executor Cpu::own_executor(const Instruction& insn) {
  return insn.form->attributes & kLoadsCs ? &execute_ending_run : insn.form_executor();
}

void Cpu::decode_at(u32 eip, Instruction& insn, u8* bytes) {
  current_entry_ = nullptr;  // the fetch may fault
  const SegmentRegister& cs = state.segments[CS];
  decode([&](unsigned i) -> u8 {
    const u32 offset = cs.cache.db ? eip + i : (eip + i) & 0xFFFF;
    if (offset < cs.cache.valid_min || offset > cs.cache.valid_max) throw gp(0, "code segment limit");
    // (Mmu::fetch, keeping the first byte's physical address for the cache model.)
    const u32 physical = mmu_.translate(cs.cache.base + offset, AccessIntent::Execute, user());
    if (i == 0) decoded_physical_ = physical & mmu_.bus().a20_mask();
    const u8 byte = mmu_.bus().fetch<u8>(physical);
    if (bytes) bytes[i] = byte;
    return byte;
  }, cs.cache.db, insn);
  insn.cost = instruction_cost(insn);
  insn.execute = own_executor(insn);
  insn.operands_resolved = true;
  for (unsigned n = 0; n < insn.register_operand.size(); ++n) {
    insn.register_operand[n] = operand_detail::register_operand(insn, n);
    if (insn.register_operand[n] == kNoRegister || insn.register_operand[n] == kModrmMemoryOperand)
      insn.operands_resolved = false;
    if (insn.register_operand[n] == kImmediateOperand) insn.immediate_operand = operand_detail::immediate_value(insn, n);
  }
}

// The reference fetch (docs/performance.md). It has the same effects as decode_at:
// the first byte's limit check and translation come first (a #GP or #PF there is the
// one decode_at would raise); a hit then needs every byte inside the limit (and, for
// a 16-bit segment, no wrap at FFFFh) and counts the bytes as code fetches. Any other
// case returns null and decode_at repeats the fetch byte by byte: the repeated
// translation hits the TLB the first one filled and is counted in the TLB model once
// per page, as before.
[[gnu::always_inline]] inline const Instruction* Cpu::cached_instruction(u32 eip, Instruction& scratch) {
  const DescriptorCache& cs = state.segments[CS].cache;
  const u32 offset = cs.db ? eip : eip & 0xFFFF;
  if (offset < cs.valid_min || offset > cs.valid_max) [[unlikely]] return nullptr;
  current_entry_ = nullptr;  // the translation may fault
  const u32 physical = mmu_.translate(cs.base + offset, AccessIntent::Execute, user()) & mmu_.bus().a20_mask();
  return look_up(eip, offset, physical, scratch);
}

// The decode cache's miss path (out of line, so the hit path stays short).
const Instruction* Cpu::decode_and_cache(u32 eip, u32 offset, u32 physical, Instruction& scratch) {
  const bool db = state.segments[CS].cache.db;
  decode_at(eip, scratch, nullptr);
  // Cached only when the bytes were contiguous: no wrap of the offset or linear address.
  const u32 last = offset + scratch.length - 1;
  if (last >= offset && (db || last <= 0xFFFF) && decode_cache_.cacheable(physical, scratch.length)) {
    current_entry_ = decode_cache_.insert(physical, db, scratch);
    footprint_.decoded(decode_cache_.slot(*current_entry_));
    // Its retirement or fault counts the bytes as fetched, and the bus has counted
    // this fetch already.
    if constexpr (kStatistics)
      counters_.accesses_by_kind[static_cast<std::size_t>(AccessKind::CodeFetch)] -= scratch.length;
  }
  return &scratch;
}

void Cpu::retire_uncached(const Instruction& insn, u32 linear) {
  ++counters_.opcodes[insn.opcode_index];
  ++counters_.instructions_by_row[insn.row];
  if (insn.is_memory()) ++counters_.memory_operand_instructions;
  counters_.code_bytes += insn.length;
  footprint_.retired_uncached(linear, insn.length);
}

void Cpu::abort_instruction(const Fault& fault, u32 start_esp) {
  // An instruction from the decode cache was fetched: its bytes count as fetched (the
  // bus counted those of one decoded from memory).
  if (kStatistics && current_entry_)
    counters_.accesses_by_kind[static_cast<std::size_t>(AccessKind::CodeFetch)] += current_entry_->insn.length;
  current_entry_ = nullptr;
  if (fault.vector == static_cast<u8>(Vector::UD) && fault.cause == "undefined opcode") ++counters_.undefined_opcodes;
  instruction_debug_hits_ = 0;  // an instruction that faults reports no data breakpoint
  if (task_switch_committed_) {
    task_switch_committed_ = false;  // the fault is the new task's: its CS:EIP and ESP stay
  } else {
    state.eip = instruction_eip_;
    state.gpr[ESP] = start_esp;
  }
  clock_.charge(CostPart::FaultingInstruction);
  deliver_fault(fault);
}

// The Instruction event of a retired instruction fetched at `selector`:EIP (CS at its
// start; a far transfer changes it), linear address `linear`.
void Cpu::trace_retired(const Instruction& insn, u16 selector, bool code32, u32 linear,
                        const std::array<u8, kMaxInstructionBytes>& bytes, const std::array<u32, 10>& before) {
  Tracer* tracer = this->tracer();
  emit(tracer, events::Instruction{.cs = selector, .eip = instruction_eip_, .linear = linear, .cpl = state.cpl,
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

bool Cpu::try_deliver_interrupt() {
  if (!pic_ || !(state.eflags & flag::IF) || !pic_->interrupt_pending()) return false;
  const bool was_halted = state.halted;
  state.halted = false;
  const u8 vector = pic_->acknowledge();
  if (was_halted) emit(tracer(), events::Wake{.vector = vector});
  // The acknowledge is a locked bus cycle with the vector on the data bus (SDM
  // "Automatic Locking"); it has no address.
  ++counters_.locked_by_kind[static_cast<std::size_t>(AccessKind::InterruptAcknowledge)];
  emit(tracer(), events::MemoryAccess{.size = 1, .access = AccessKind::InterruptAcknowledge, .locked = true,
                                      .value = vector});
  fault_chain_size_ = 0;
  deliver_event(vector, std::nullopt, EventSource::External);
  return true;
}

void Cpu::step() {
  attention_.raise(Attention::kCheckInterrupt);  // as at the start of run(): the state may have been edited
  ReferenceFetch reference;
  execute_step(reference);
  decode_cache_.settle();
}

StopReason Cpu::run(u64 max_instructions) {
  // Counters are exact between runs. At most 2^30 steps between two settles keep a
  // decode-cache entry's u32 count of retirements from wrapping.
  constexpr u64 kSettleSteps = u64{1} << 30;
  for (;;) {
    const u64 chunk = std::min(max_instructions, kSettleSteps);
    const StopReason reason = run_instructions(chunk);
    decode_cache_.settle();
    max_instructions -= chunk;
    if (reason != StopReason::InstructionLimit || max_instructions == 0) return reason;
  }
}

StopReason Cpu::run_instructions(u64 max_instructions) {
  // The state may have been changed from outside (a debugger setting IF, a loader):
  // look at INTR once; from here on the PIC and IF changes ask for the check.
  attention_.raise(Attention::kCheckInterrupt);
  // The slice goes to the accelerator unless something observes every instruction.
  if (!tracer() && !monitor_) [[likely]] return LinkedRunner::run(*this, max_instructions);
  ReferenceFetch reference;
  StopReason reason;
  for (u64 i = 0; i < max_instructions; ++i) {
    if (stop_before_step(reason)) [[unlikely]] return reason;
    execute_step(reference);
    ++steps_;
    if (stop_after_step(reason)) [[unlikely]] return reason;
  }
  return StopReason::InstructionLimit;
}

}  // namespace x86lab
