// The CPU's part of a machine snapshot (docs/snapshots.md): the architectural state
// (cpu/cpu_state.h) and the run loop's state between instructions that software can
// observe later (debug traps waiting, RF for the next delivery, the replay watch, the
// fault chain, the step count). The decode cache and the accelerator's links are
// rebuilt, and the code-line set is saved with the CPU since its counters grow from it.
#include <set>

#include "cpu/cpu.h"

namespace x86lab {

namespace {

void transfer(StateArchive& a, DescriptorCache& cache) {
  a.field(cache.base, "descriptor cache base");
  a.field(cache.limit, "descriptor cache limit");
  a.field(cache.valid_min, "descriptor cache valid_min");
  a.field(cache.valid_max, "descriptor cache valid_max");
  a.field(cache.type, "descriptor cache type", 15);
  a.field(cache.s, "descriptor cache S");
  a.field(cache.dpl, "descriptor cache DPL", 3);
  a.field(cache.present, "descriptor cache P");
  a.field(cache.db, "descriptor cache D/B");
  a.field(cache.g, "descriptor cache G");
  a.field(cache.avl, "descriptor cache AVL");
  a.field(cache.usable, "descriptor cache usable");
}

void transfer(StateArchive& a, SegmentRegister& segment) {
  a.field(segment.selector, "selector");
  transfer(a, segment.cache);
}

void transfer(StateArchive& a, DescriptorTableRegister& table) {
  a.field(table.base, "table register base");
  a.field(table.limit, "table register limit");
}

void transfer(StateArchive& a, FpuState& fpu) {
  for (x87::Float80& r : fpu.registers) {
    a.field(r.significand, "x87 register");
    a.field(r.sign_exponent, "x87 register");
  }
  a.field(fpu.control, "x87 FCW");
  a.field(fpu.status, "x87 FSW");
  a.field(fpu.tag, "x87 FTW");
  a.field(fpu.fip, "x87 FIP");
  a.field(fpu.fcs, "x87 FCS");
  a.field(fpu.fop, "x87 FOP", 0x7FF);
  a.field(fpu.fdp, "x87 FDP");
  a.field(fpu.fds, "x87 FDS");
}

// Fault causes are string literals of the CPU; a loaded one is kept here for the
// rest of the process (a handful of distinct texts).
std::string_view interned(std::string text) {
  static std::set<std::string> texts;
  return *texts.insert(std::move(text)).first;
}

}  // namespace

void transfer_cpu_state(StateArchive& a, CpuState& s) {
  a.array(s.gpr, "general register");
  a.field(s.eip, "EIP");
  a.field(s.eflags, "EFLAGS");
  for (SegmentRegister& segment : s.segments) transfer(a, segment);
  transfer(a, s.ldtr);
  transfer(a, s.tr);
  transfer(a, s.gdtr);
  transfer(a, s.idtr);
  a.field(s.cr0, "CR0");
  a.field(s.cr2, "CR2");
  a.field(s.cr3, "CR3");
  a.field(s.cr4, "CR4");
  a.array(s.dr, "debug register");
  a.field(s.cpl, "CPL", 3);
  a.field(s.sysenter_cs, "IA32_SYSENTER_CS");
  a.field(s.sysenter_esp, "IA32_SYSENTER_ESP");
  a.field(s.sysenter_eip, "IA32_SYSENTER_EIP");
  a.field(s.tsc_offset, "TSC offset");
  a.array(s.perfevtsel, "PerfEvtSel");
  a.array(s.perfctr_base, "PerfCtr");
  a.array(s.perfctr_since, "PerfCtr");
  a.field(s.halted, "halted");
  a.field(s.shutdown, "shutdown");
  a.field(s.interrupt_shadow, "interrupt shadow");
  a.field(s.mov_ss_shadow, "MOV SS shadow");
  a.field(s.nmi_pending, "NMI pending");
  a.field(s.nmi_blocked, "NMI blocked");
  transfer(a, s.fpu);
}

void Cpu::transfer_state(StateArchive& a) {
  transfer_cpu_state(a, state);
  a.field(steps_, "step count");
  a.field(instruction_eip_, "instruction EIP");
  caches_.transfer_state(a);
  a.field(pending_debug_, "pending debug traps");
  a.field(instruction_debug_hits_, "debug hits");
  a.field(push_rf_, "RF push");
  replay_.transfer_state(a);
  u8 chain_size = fault_chain_size_;
  a.local(chain_size, "fault chain length", fault_chain_.size());
  std::array<FaultRecord, 8> chain = fault_chain_;
  for (u8 i = 0; i < chain_size; ++i) {
    FaultRecord& record = chain[i];
    a.local(record.vector, "fault chain vector");
    bool has_code = record.error_code.has_value();
    u32 code = record.error_code.value_or(0);
    a.local(has_code, "fault chain error code");
    a.local(code, "fault chain error code");
    std::vector<u8> cause(record.cause.begin(), record.cause.end());
    a.local_sequence(cause, "fault chain cause", 256);
    if (a.loading()) {
      record.error_code = has_code ? std::optional<u32>(code) : std::nullopt;
      record.cause = interned(std::string(cause.begin(), cause.end()));
    }
  }
  footprint_.transfer_state(a);
  if (!a.loading()) return;
  fault_chain_ = chain;
  fault_chain_size_ = chain_size;
  // Derived state: armed breakpoints (DR7), the access checks (CR0.AM), the paging
  // bits the Mmu holds (the caller restores the TLB after this, since a change of
  // paging bits flushes it), and no decoded instruction or link survives.
  write_debug_register(7, state.dr[7]);
  sync_paging();
  fetch_.decode_cache().clear();
  signalled_fault_.reset();
  task_switch_committed_ = false;
  fetch_.forget_entry();
  // Everything the slow step might have to look at: asking costs one slow step.
  attention_.clear(~u32{Attention::kMonitor});
  attention_.raise(Attention::kCheckInterrupt | Attention::kSlowStep | Attention::kTranslationChanged |
                   Attention::kCodePageWritten | Attention::kCodeSegmentLoaded);
  if (state.eflags & flag::TF) attention_.raise(Attention::kTrap);
  if (pending_debug_) attention_.raise(Attention::kDebugTrap);
  if (state.nmi_pending) attention_.raise(Attention::kNmi);
  if (state.interrupt_shadow) attention_.raise(Attention::kInterruptShadow);
}

}  // namespace x86lab
