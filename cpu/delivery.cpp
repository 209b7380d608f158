// Exception and interrupt delivery (Intel SDM Vol. 3, "Interrupt and Exception
// Handling": "Exception and Interrupt Handling in Real-Address Mode", "Interrupt
// Descriptor Table", "Exception and Interrupt Handling" with and without a privilege
// change, "Error Code", "Interrupt 8 - Double Fault Exception"; "Virtual-8086 Mode":
// "Handling an Interrupt or Exception Through a Protected-Mode Trap or Interrupt Gate").
#include "cpu/cpu.h"
#include "segmentation/system_segments.h"
#include "trace/tracer.h"

namespace x86lab {

void Cpu::record_fault(u8 vector, std::optional<u32> error_code, std::string_view cause) {
  if (fault_chain_size_ < fault_chain_.size()) fault_chain_[fault_chain_size_++] = {vector, error_code, cause};
}

void Cpu::deliver_fault(const Fault& fault) {
  fault_chain_size_ = 0;
  record_fault(fault.vector, fault.error_code, fault.cause);
  if (fault.vector == static_cast<u8>(Vector::PF)) state.cr2 = fault.linear_address;
  delivery_cause_ = fault.cause;
  // SDM "Debug Exceptions": every fault-class exception pushes RF = 1 except a #DB
  // for an instruction breakpoint, so the handler's IRET re-executes the instruction
  // without hitting an instruction breakpoint again.
  push_rf_ = fault.cause != kInstructionBreakpointCause;
  const SegmentRegister& cs = state.segments[CS];
  replay_.fault_delivered(state.cpl, cs.selector, cs.cache.base + state.eip);
  deliver_event(fault.vector, fault.error_code, EventSource::Exception);
  replay_.handler_entered(state.cpl);
}

void Cpu::deliver_event(u8 vector, std::optional<u32> error_code, EventSource source) {
  for (;;) {
    try {
      deliver(vector, error_code, source, state.eip);
      push_rf_ = false;
      return;
    } catch (const Fault& second) {
      // A fault while delivering an event (SDM "Interrupt 8 - Double Fault Exception",
      // Table 6-5): contributory after contributory, or contributory/#PF after #PF,
      // becomes #DF; anything while delivering #DF shuts the processor down. Interrupts
      // and benign exceptions let the second fault be delivered serially. State was
      // restored to before the failed delivery (or is the new task's, after a task
      // switch's commit point), so the fault reports the current CS:EIP.
      record_fault(second.vector, second.error_code, second.cause);
      task_switch_committed_ = false;
      if (source == EventSource::Exception && vector == static_cast<u8>(Vector::DF)) {
        shutdown();
        return;
      }
      const FaultClass first = source == EventSource::Exception ? class_of(vector) : FaultClass::Benign;
      const FaultClass next = class_of(second.vector);
      if (second.vector == static_cast<u8>(Vector::PF)) state.cr2 = second.linear_address;
      const bool double_fault = (first == FaultClass::Contributory && next == FaultClass::Contributory) ||
                                (first == FaultClass::PageFault && next != FaultClass::Benign);
      // QUIRK: a benign exception raised again by its own delivery (#AC from the pushes
      // onto a misaligned stack of a CPL-3 handler) would be delivered serially forever.
      // The attempt is abandoned with the state as it was, so the next step retries it:
      // the guest livelocks as on hardware, one delivery attempt per step.
      if (source == EventSource::Exception && next == FaultClass::Benign && second.vector == vector) {
        push_rf_ = false;
        return;
      }
      delivery_cause_ = double_fault ? std::string_view{"double fault"} : second.cause;
      vector = double_fault ? static_cast<u8>(Vector::DF) : second.vector;
      error_code = double_fault ? std::optional<u32>{0} : second.error_code;
      source = EventSource::Exception;
      push_rf_ = true;
    }
  }
}

void Cpu::shutdown() {
  state.shutdown = true;
  push_rf_ = false;
  emit(tracer(), events::Exception{.vector = static_cast<u8>(Vector::DF), .cs = state.segments[CS].selector,
                                    .eip = state.eip, .cause = "triple fault", .shutdown = true});
}

void Cpu::deliver(u8 vector, std::optional<u32> error_code, EventSource source, u32 return_eip) {
  ++counters_.exceptions_by_vector[vector];
  clock_.charge(source == EventSource::External ? CostPart::InterruptDelivery : CostPart::ExceptionDelivery);
  emit(tracer(), [&] {
    return events::Exception{.vector = vector, .has_error_code = error_code.has_value(),
                             .error_code = error_code.value_or(0), .cs = state.segments[CS].selector,
                             .eip = return_eip, .source = static_cast<u8>(source),
                             .cause = source == EventSource::Exception ? delivery_cause_ : std::string_view{},
                             .double_fault = vector == 8};
  });
  delivery_cause_ = {};
  state.halted = false;
  // SDM "Error Code": EXT is set when the fault happened while delivering an event
  // external to the program (an interrupt, NMI or an earlier exception), not INT n,
  // INT3 or INTO. #PF's bit 0 means "protection violation" and is left alone.
  const bool ext = source != EventSource::SoftwareInterrupt;
  try {
    if (real_mode()) deliver_real_mode(vector, return_eip);
    else deliver_protected_mode(vector, error_code, source, return_eip);
  } catch (Fault& fault) {
    if (ext && fault.error_code && fault.vector != static_cast<u8>(Vector::PF)) *fault.error_code |= 1;
    throw;
  }
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

namespace {

struct GateInfo {
  bool interrupt_gate;  // clears IF
  bool gate32;
};

// The IDT gate checks of SDM "INT n/INTO/INT3" in their order: limit, type, DPL
// (software interrupts only), present. `idt_error` carries the IDT bit and EXT.
GateInfo check_idt_gate(const Descriptor& gate, EventSource source, u8 cpl, u32 idt_error) {
  const auto type = static_cast<SystemType>(gate.type);
  const bool interrupt_gate = type == SystemType::InterruptGate16 || type == SystemType::InterruptGate32;
  const bool trap_gate = type == SystemType::TrapGate16 || type == SystemType::TrapGate32;
  if (gate.s || (!interrupt_gate && !trap_gate && type != SystemType::TaskGate)) throw gp(idt_error, "IDT entry not a gate");
  if (source == EventSource::SoftwareInterrupt && gate.dpl < cpl) throw gp(idt_error, "gate DPL < CPL");
  if (!gate.present) throw np(idt_error, "gate not present");
  return {interrupt_gate, type == SystemType::InterruptGate32 || type == SystemType::TrapGate32};
}

}  // namespace

void Cpu::deliver_protected_mode(u8 vector, std::optional<u32> error_code, EventSource source, u32 return_eip) {
  const u32 ext = source == EventSource::SoftwareInterrupt ? 0 : 1;
  const u32 idt_error = u32{vector} * 8 + 2 + ext;
  if (u32{vector} * 8 + 7 > state.idtr.limit) throw gp(idt_error, "vector outside the IDT limit");
  const Descriptor gate = Descriptor::parse(
      mmu_.read<u64>(state.idtr.base + u32{vector} * 8, AccessKind::InterruptTableRead, false));
  const GateInfo info = check_idt_gate(gate, source, state.cpl, idt_error);
  if (static_cast<SystemType>(gate.type) == SystemType::TaskGate)
    return deliver_through_task_gate(gate, error_code, return_eip);

  // The target code segment (SDM "INT n": PROTECTED-MODE and TRAP-OR-INTERRUPT-GATE).
  const Selector selector{gate.gate_selector()};
  if (selector.null()) throw gp(0, "null code selector in gate");
  SegmentationContext context = segmentation_context(SegmentLoadCause::Delivery);
  DescriptorSlot slot = read_descriptor(context, selector);
  const Descriptor& code = slot.descriptor;
  if (!code.is_code() || code.dpl > state.cpl) throw gp(selector.error_code(), "gate target not a code segment");
  if (!code.present) throw np(selector.error_code(), "gate target not present");

  const bool from_v86 = virtual_8086();
  const bool inner = !code.conforming() && code.dpl < state.cpl;
  // From virtual-8086 mode only a non-conforming ring-0 handler may be called
  // (SDM "INT n": INTERRUPT-FROM-VIRTUAL-8086-MODE).
  if (from_v86 && (!inner || code.dpl != 0)) throw gp(selector.error_code(), "V86 interrupt to a ring above 0");
  const u8 new_cpl = inner ? code.dpl : state.cpl;
  const u32 eip = info.gate32 ? gate.gate_offset() : gate.gate_offset() & 0xFFFF;
  const u32 pushed_eflags = state.eflags | (push_rf_ ? flag::RF : 0);
  const CpuState saved = state;

  try {
    if (inner) {
      switch_to_inner_stack(context, new_cpl, info.gate32, (from_v86 ? 9 : 5) + (error_code ? 1 : 0));
      if (eip > slot.descriptor.limit()) throw gp(0, "gate offset outside code segment");
      auto push_value = [&](u32 v) { info.gate32 ? push<u32>(v) : push<u16>(static_cast<u16>(v)); };
      if (from_v86) {
        push_value(saved.segments[GS].selector);
        push_value(saved.segments[FS].selector);
        push_value(saved.segments[DS].selector);
        push_value(saved.segments[ES].selector);
      }
      push_value(saved.segments[SS].selector);
      push_value(saved.gpr[ESP]);
    } else {
      const u32 frame = (3 + (error_code ? 1 : 0)) * (info.gate32 ? 4 : 2);
      const u32 bottom = stack_pointer_plus(static_cast<u32>(-static_cast<i32>(frame)));
      check_write(SS, stack32() ? bottom : bottom & 0xFFFF, frame);
      if (eip > slot.descriptor.limit()) throw gp(0, "gate offset outside code segment");
    }
    if (info.gate32) {
      push<u32>(pushed_eflags);
      push<u32>(saved.segments[CS].selector);
      push<u32>(return_eip);
      if (error_code) push<u32>(*error_code);
    } else {
      push<u16>(static_cast<u16>(pushed_eflags));
      push<u16>(saved.segments[CS].selector);
      push<u16>(static_cast<u16>(return_eip));
      if (error_code) push<u16>(static_cast<u16>(*error_code));
    }
    ++counters_.segment_loads[CS];
    load_code_segment(context, state.segments[CS], slot, selector.value, new_cpl);
    if (from_v86)
      for (u8 seg : {ES, DS, FS, GS}) load_unusable_segment(state.segments[seg], 0);
  } catch (...) {
    state = saved;
    throw;
  }
  state.cpl = new_cpl;
  state.eip = eip;
  state.eflags &= ~(flag::TF | flag::NT | flag::RF | flag::VM);
  if (info.interrupt_gate) state.eflags &= ~flag::IF;
}

void Cpu::switch_to_inner_stack(SegmentationContext& context, u8 new_cpl, bool frame32, unsigned frame_items) {
  // SS:ESP for the new ring from the current TSS: a 32-bit TSS holds ESPn at 4 + 8n
  // and SSn at 8 + 8n, a 16-bit TSS SPn at 2 + 4n and SSn at 4 + 4n.
  const bool tss32 = state.tr.cache.type == 9 || state.tr.cache.type == 11;
  const u32 at = tss32 ? 4 + 8u * new_cpl : 2 + 4u * new_cpl;
  if (at + (tss32 ? 7 : 3) > state.tr.cache.limit) throw ts(state.tr.selector & 0xFFFC, "TSS too small for the stack");
  const u32 new_esp = tss32 ? mmu_.read<u32>(state.tr.cache.base + at, AccessKind::TssRead, false)
                            : mmu_.read<u16>(state.tr.cache.base + at, AccessKind::TssRead, false);
  const u16 new_ss = mmu_.read<u16>(state.tr.cache.base + at + (tss32 ? 4 : 2), AccessKind::TssRead, false);
  SegmentationContext stack_context = context;
  stack_context.cpl = new_cpl;
  SegmentRegister ss = state.segments[SS];
  ++counters_.segment_loads[SS];
  load_stack_segment(stack_context, ss, new_ss, static_cast<u8>(Vector::TS));
  // The whole frame must fit below the new ESP: #SS(new SS) (SDM "CALL", "INT n").
  if (!stack_has_room(ss.cache, new_esp, frame_items * (frame32 ? 4 : 2)))
    throw Fault{12, u32{new_ss} & 0xFFFC, "no room for the frame on the new stack"};
  state.segments[SS] = ss;
  state.gpr[ESP] = new_esp;
  state.cpl = new_cpl;
  ++counters_.stack_switches;
  clock_.charge(CostPart::StackSwitch);
}

}  // namespace x86lab
