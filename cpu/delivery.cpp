// Exception and interrupt delivery (Intel SDM Vol. 3, "Interrupt and Exception
// Handling": "Exception and Interrupt Handling in Real-Address Mode", "Interrupt
// Descriptor Table", "Exception and Interrupt Handling" with and without a privilege
// change, "Interrupt 8 - Double Fault Exception").
#include "cpu/cpu.h"

namespace x86lab {

void Cpu::deliver_fault(const Fault& fault) {
  // #DF by the SDM's class table: contributory after contributory, or contributory/#PF
  // after #PF, becomes #DF; any fault while delivering #DF shuts the CPU down.
  if (delivery_depth_ > 0) {
    if (delivering_vector_ == 8) {
      state.shutdown = true;
      return;
    }
    const FaultClass first = class_of(delivering_vector_), second = class_of(fault.vector);
    const bool double_fault = (first == FaultClass::Contributory && second == FaultClass::Contributory) ||
                              (first == FaultClass::PageFault && second != FaultClass::Benign);
    if (double_fault) {
      delivering_vector_ = 8;
      try {
        deliver(8, 0, EventSource::Exception, instruction_eip_);
      } catch (const Fault&) {
        state.shutdown = true;
      }
      return;
    }
  }
  if (fault.vector == static_cast<u8>(Vector::PF)) state.cr2 = fault.linear_address;
  ++delivery_depth_;
  const u8 saved_vector = delivering_vector_;
  delivering_vector_ = fault.vector;
  try {
    deliver(fault.vector, fault.error_code, EventSource::Exception, instruction_eip_);
  } catch (const Fault& second) {
    deliver_fault(second);
  }
  delivering_vector_ = saved_vector;
  --delivery_depth_;
}

void Cpu::deliver(u8 vector, std::optional<u32> error_code, EventSource source, u32 return_eip) {
  ++counters_.exceptions_by_vector[vector];
  state.halted = false;
  if (real_mode()) deliver_real_mode(vector, return_eip);
  else deliver_protected_mode(vector, error_code, source, return_eip);
}

void Cpu::deliver_real_mode(u8 vector, u32 return_eip) {
  const u32 entry = u32{vector} * 4;
  if (entry + 3 > state.idtr.limit) throw gp(0, "vector outside the IVT limit");
  const u32 target = mmu_.read<u32>(state.idtr.base + entry, AccessKind::InterruptTableRead, false);
  const u32 esp = state.gpr[ESP];
  try {
    push<u16>(static_cast<u16>(state.eflags));
    push<u16>(state.segments[CS].selector);
    push<u16>(static_cast<u16>(return_eip));
  } catch (...) {
    state.gpr[ESP] = esp;
    throw;
  }
  state.eflags &= ~(flag::IF | flag::TF | flag::AC | flag::RF);
  load_code_segment_real(static_cast<u16>(target >> 16));
  state.eip = target & 0xFFFF;
}

void Cpu::deliver_protected_mode(u8 vector, std::optional<u32> error_code, EventSource source, u32 return_eip) {
  const u32 ext = (source == EventSource::External || source == EventSource::Exception) ? 1 : 0;
  const u32 idt_error = u32{vector} * 8 + 2 + ext;
  if (u32{vector} * 8 + 7 > state.idtr.limit) throw gp(idt_error, "vector outside the IDT limit");
  const Descriptor gate = Descriptor::parse(
      mmu_.read<u64>(state.idtr.base + u32{vector} * 8, AccessKind::InterruptTableRead, false));
  const auto type = static_cast<SystemType>(gate.type);
  const bool interrupt_gate = type == SystemType::InterruptGate16 || type == SystemType::InterruptGate32;
  const bool trap_gate = type == SystemType::TrapGate16 || type == SystemType::TrapGate32;
  if (gate.s || (!interrupt_gate && !trap_gate && type != SystemType::TaskGate)) throw gp(idt_error, "not a gate");
  if (source == EventSource::SoftwareInterrupt && state.cpl > gate.dpl) throw gp(idt_error, "gate DPL < CPL");
  if (!gate.present) throw np(idt_error, "gate not present");
  if (type == SystemType::TaskGate) throw gp(idt_error, "task gates are not implemented yet");
  const bool gate32 = type == SystemType::InterruptGate32 || type == SystemType::TrapGate32;

  // The target code segment.
  const Selector selector{gate.gate_selector()};
  if (selector.null()) throw gp(ext, "null code selector in gate");
  SegmentationContext context = segmentation_context();
  DescriptorSlot slot = read_descriptor(context, selector);
  const Descriptor& code = slot.descriptor;
  if (!code.is_code() || code.dpl > state.cpl) throw gp(selector.error_code() + ext, "gate target not a code segment");
  if (!code.present) throw np(selector.error_code() + ext, "gate target not present");

  const bool from_v86 = virtual_8086();
  const u8 new_cpl = code.conforming() ? state.cpl : code.dpl;
  if (from_v86 && new_cpl != 0) throw gp(selector.error_code() + ext, "V86 interrupt to a ring above 0");
  const u32 old_eflags = state.eflags;
  const u16 old_cs = state.segments[CS].selector, old_ss = state.segments[SS].selector;
  const u32 old_esp = state.gpr[ESP];
  const CpuState saved = state;

  try {
    if (new_cpl < state.cpl) {
      // Inter-privilege: SS:ESP for the new ring from the TSS (32-bit TSS: ESPn at 4+8n, SSn at 8+8n).
      const bool tss32 = state.tr.cache.type == 9 || state.tr.cache.type == 11;
      const u32 at = tss32 ? 4 + 8u * new_cpl : 2 + 4u * new_cpl;
      if (at + (tss32 ? 7 : 3) > state.tr.cache.limit) throw ts(state.tr.selector & 0xFFFC, "TSS too small for stack");
      const u32 new_esp = tss32 ? mmu_.read<u32>(state.tr.cache.base + at, AccessKind::TssRead, false)
                                : mmu_.read<u16>(state.tr.cache.base + at, AccessKind::TssRead, false);
      const u16 new_ss = mmu_.read<u16>(state.tr.cache.base + at + (tss32 ? 4 : 2), AccessKind::TssRead, false);
      SegmentationContext stack_context = context;
      stack_context.cpl = new_cpl;
      if ((new_ss & 3) != new_cpl) throw ts(new_ss & 0xFFFC, "new SS RPL");
      ++counters_.segment_loads[SS];
      load_stack_segment(stack_context, state.segments[SS], new_ss, 10);
      state.gpr[ESP] = new_esp;
      state.cpl = new_cpl;
      if (from_v86) {
        auto push_v = [&](u32 v) { gate32 ? push<u32>(v) : push<u16>(static_cast<u16>(v)); };
        push_v(saved.segments[GS].selector);
        push_v(saved.segments[FS].selector);
        push_v(saved.segments[DS].selector);
        push_v(saved.segments[ES].selector);
        for (u8 seg : {ES, DS, FS, GS}) {
          state.segments[seg].selector = 0;
          state.segments[seg].cache.usable = false;
        }
      }
      if (gate32) {
        push<u32>(old_ss);
        push<u32>(old_esp);
      } else {
        push<u16>(old_ss);
        push<u16>(static_cast<u16>(old_esp));
      }
    }
    state.eflags &= ~flag::VM;
    if (gate32) {
      push<u32>(old_eflags);
      push<u32>(old_cs);
      push<u32>(return_eip);
      if (error_code) push<u32>(*error_code);
    } else {
      push<u16>(static_cast<u16>(old_eflags));
      push<u16>(old_cs);
      push<u16>(static_cast<u16>(return_eip));
      if (error_code) push<u16>(static_cast<u16>(*error_code));
    }
    ++counters_.segment_loads[CS];
    load_code_segment(context, state.segments[CS], slot, selector.value, new_cpl);
    state.cpl = new_cpl;
    state.eip = gate32 ? gate.gate_offset() : gate.gate_offset() & 0xFFFF;
    if (state.eip > state.segments[CS].cache.limit) throw gp(0, "gate offset outside code segment");
  } catch (...) {
    state = saved;
    throw;
  }
  state.eflags &= ~(flag::TF | flag::NT | flag::RF | flag::VM);
  if (interrupt_gate) state.eflags &= ~flag::IF;
}

}  // namespace x86lab
