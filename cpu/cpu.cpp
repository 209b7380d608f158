// Reset, the run loop and instruction fetch (Intel SDM Vol. 3, "Processor State After
// Reset"; Vol. 2, "Instruction Format"). Fault delivery is in cpu/delivery.cpp.
#include "cpu/cpu.h"

#include "cpu/decoder.h"

namespace x86lab {

Cpu::Cpu(Mmu& mmu, PortBus& ports, Counters& counters, const CpuProfile& profile)
    : mmu_(mmu), ports_(ports), counters_(counters), profile_(profile) {
  reset();
}

void Cpu::reset() {
  state = CpuState{};
  state.eflags = 2;
  state.eip = 0xFFF0;
  state.gpr[EDX] = profile_.signature;
  for (auto& segment : state.segments) segment.cache.set_real_mode(0);
  state.segments[CS].selector = 0xF000;
  state.segments[CS].cache.set_real_mode(0xFFFF0000u);
  state.segments[CS].cache.type = 0xB;  // execute/read code, accessed
  state.gdtr = {0, 0xFFFF};
  state.idtr = {0, 0x03FF};
  state.ldtr.cache.set_real_mode(0);
  state.ldtr.cache.type = 2;  // LDT
  state.ldtr.cache.s = false;
  state.tr.cache.set_real_mode(0);
  state.tr.cache.type = 11;  // busy 32-bit TSS
  state.tr.cache.s = false;
  state.dr[6] = 0xFFFF0FF0u;
  state.dr[7] = 0x00000400u;
  attention_ = 0;
  delivery_depth_ = 0;
  sync_paging();
}

void Cpu::write_eflags(u32 value, u32 writable) {
  state.eflags = ((state.eflags & ~writable) | (value & writable) | flag::Reserved1) & flag::kImplemented;
  if (state.eflags & flag::TF) attention_ |= kTrap;
  attention_ |= kCheckInterrupt;
}

bool Cpu::condition(unsigned code) const {
  const u32 f = state.eflags;
  bool result;
  switch (code >> 1) {
    case 0: result = f & flag::OF; break;                                     // O
    case 1: result = f & flag::CF; break;                                     // B/C/NAE
    case 2: result = f & flag::ZF; break;                                     // E/Z
    case 3: result = f & (flag::CF | flag::ZF); break;                        // BE/NA
    case 4: result = f & flag::SF; break;                                     // S
    case 5: result = f & flag::PF; break;                                     // P/PE
    case 6: result = bool(f & flag::SF) != bool(f & flag::OF); break;         // L/NGE
    default: result = (f & flag::ZF) || bool(f & flag::SF) != bool(f & flag::OF); break;  // LE/NG
  }
  return (code & 1) ? !result : result;
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
  state.cr0 = value | cr0::ET;  // ET is hard-wired to 1 on P6
  sync_paging();
}

void Cpu::write_cr3(u32 value) {
  state.cr3 = value;
  sync_paging();
}

void Cpu::write_cr4(u32 value) {
  constexpr u32 kSupported = cr4::TSD | cr4::DE | cr4::PSE | cr4::PGE | cr4::PCE;
  if (value & ~kSupported) throw gp(0, "reserved CR4 bit");
  state.cr4 = value;
  sync_paging();
}

void Cpu::load_segment(u8 segment, u16 selector) {
  ++counters_.segment_loads[segment];
  SegmentRegister& reg = state.segments[segment];
  if (!protected_mode()) {
    if (virtual_8086()) reg.cache.load_virtual_8086(selector);
    else reg.cache.load_real_mode(selector);
    reg.selector = selector;
    return;
  }
  SegmentationContext context = segmentation_context();
  if (segment == SS) load_stack_segment(context, reg, selector);
  else load_data_segment(context, reg, selector);
}

void Cpu::load_code_segment_real(u16 selector) {
  ++counters_.segment_loads[CS];
  SegmentRegister& cs = state.segments[CS];
  if (virtual_8086()) {
    cs.cache.load_virtual_8086(selector);
    cs.cache.type = 0xB;
  } else {
    cs.cache.load_real_mode(selector);
  }
  cs.selector = selector;
}

void Cpu::execute_one() {
  instruction_eip_ = state.eip;
  const u32 start_esp = state.gpr[ESP];
  const SegmentRegister& cs = state.segments[CS];
  Instruction insn;
  try {
    const u32 eip = state.eip;
    decode([&](unsigned i) -> u8 {
      const u32 offset = cs.cache.db ? eip + i : (eip + i) & 0xFFFF;
      if (offset < cs.cache.valid_min || offset > cs.cache.valid_max) throw gp(0, "code segment limit");
      return mmu_.read<u8>(cs.cache.base + offset, AccessKind::CodeFetch, user(), AccessIntent::Execute);
    }, cs.cache.db, insn);
    state.eip = eip + insn.length;
    if (!cs.cache.db) state.eip &= 0xFFFF;
    insn.execute(*this, insn);
    ++counters_.instructions;
    ++counters_.cycles;
  } catch (const Fault& fault) {
    if (fault.vector == static_cast<u8>(Vector::UD) && fault.cause == "undefined opcode") ++counters_.undefined_opcodes;
    state.eip = instruction_eip_;
    state.gpr[ESP] = start_esp;
    ++counters_.cycles;
    deliver_fault(fault);
  }
}

bool Cpu::try_deliver_interrupt() {
  if (!pic_ || !(state.eflags & flag::IF) || !pic_->interrupt_pending()) return false;
  state.halted = false;
  const u8 vector = pic_->acknowledge();
  ++counters_.locked_by_kind[static_cast<std::size_t>(AccessKind::InterruptAcknowledge)];
  try {
    deliver(vector, std::nullopt, EventSource::External, state.eip);
  } catch (const Fault& fault) {
    deliver_fault(fault);
  }
  return true;
}

void Cpu::step() {
  if (state.shutdown) return;
  if (attention_) {
    if (attention_ & kCheckInterrupt) {
      attention_ &= ~kCheckInterrupt;
      if (!state.interrupt_shadow && try_deliver_interrupt()) {
        attention_ |= kCheckInterrupt;
        return;
      }
    }
  }
  if (state.halted) return;
  const bool trap_before = state.eflags & flag::TF;
  const bool shadow = state.interrupt_shadow;
  state.interrupt_shadow = false;
  execute_one();
  if (pic_) attention_ |= kCheckInterrupt;
  // TF single-step: a #DB trap after the instruction (not after one that set TF).
  if (trap_before && !shadow && !state.shutdown) {
    state.dr[6] |= 1u << 14;  // BS
    try {
      deliver(1, std::nullopt, EventSource::Exception, state.eip);
    } catch (const Fault& fault) {
      deliver_fault(fault);
    }
  }
}

StopReason Cpu::run(u64 max_instructions) {
  for (u64 i = 0; i < max_instructions; ++i) {
    if (attention_ & kStopRequested) {
      attention_ &= ~kStopRequested;
      return StopReason::StopRequested;
    }
    step();
    if (state.shutdown) return StopReason::Shutdown;
    if (state.halted) {
      // A halted CPU wakes only through an interrupt it can take.
      if (!pic_ || !(state.eflags & flag::IF) || !pic_->interrupt_pending()) return StopReason::Halted;
    }
  }
  return StopReason::InstructionLimit;
}

}  // namespace x86lab
