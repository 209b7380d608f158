// Reset, control registers, segment loads, the cost model's bookkeeping and run()
// (Intel SDM Vol. 3, "Processor State After Reset"). The instruction cycle is in
// cpu/instruction_cycle.*, fetch in cpu/fetch_unit.*, fault delivery in cpu/delivery.cpp.
#include "cpu/cpu.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "cpu/instruction_cycle.h"
#include "cpu/instruction_table.h"
#include "cpu/linked_runner.h"
#include "segmentation/system_segments.h"
#include "trace/tracer.h"

namespace x86lab {

Cpu::Cpu(Mmu& mmu, PortBus& ports, Counters& counters, const CpuProfile& profile)
    : mmu_(mmu), ports_(ports), counters_(counters), profile_(profile), fetch_(mmu.bus(), counters),
      runner_(std::make_unique<LinkedRunner>(fetch_.decode_cache())) {
  mmu_.bus().attach_clock(&clock_);
  if (InstructionTable::get().rows().size() > Counters::kInstructionRowCapacity)
    throw std::logic_error("the instruction table has more rows than Counters::instructions_by_row holds");
  mmu_.set_tlb_geometry(profile.tlb);
  // A changed translation or a written code page ends a linked run after its
  // instruction (LinkedRunner::run_linked).
  mmu_.watch_translation_changes(attention_);
  fetch_.decode_cache().watch_retirements(attention_);
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
  fetch_.decode_cache().clear();  // cached instructions carry the old costs
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
  fetch_.decode_cache().for_each_pending([&](const Instruction& insn, u64 n) {
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

void Cpu::step() { InstructionCycle::step(*this); }

StopReason Cpu::run(u64 max_instructions) {
  // Counters are exact between runs. At most 2^30 steps between two settles keep a
  // decode-cache entry's u32 count of retirements from wrapping.
  constexpr u64 kSettleSteps = u64{1} << 30;
  for (;;) {
    const u64 chunk = std::min(max_instructions, kSettleSteps);
    const StopReason reason = run_instructions(chunk);
    fetch_.decode_cache().settle();
    max_instructions -= chunk;
    if (reason != StopReason::InstructionLimit || max_instructions == 0) return reason;
  }
}

StopReason Cpu::run_instructions(u64 max_instructions) {
  // The state may have been changed from outside (a debugger setting IF, a loader):
  // look at INTR once; from here on the PIC and IF changes ask for the check.
  attention_.raise(Attention::kCheckInterrupt);
  // The slice goes to the accelerator unless something observes every instruction
  // or the decode cache is off.
  if (!tracer() && !monitor_ && decode_cache_on_) [[likely]] return runner_->run(*this, max_instructions);
  return InstructionCycle::run_reference(*this, max_instructions);
}

}  // namespace x86lab
