// Far JMP/CALL, far RET and IRET in real, virtual-8086 and protected mode (Intel SDM
// Vol. 2, "JMP", "CALL", "RET", "IRET/IRETD"; Vol. 3, "Calling Procedures Using CALL
// and RET", "Returning from an Interrupt or Exception-Handling Procedure").
#include "cpu/far_transfer.h"

#include "cpu/instruction_table.h"
#include "segmentation/system_segments.h"

namespace x86lab {
namespace {

void push_return(Cpu& c, bool operand32, u16 cs, u32 eip) {
  if (operand32) {
    c.push<u32>(cs);
    c.push<u32>(eip);
  } else {
    c.push<u16>(cs);
    c.push<u16>(static_cast<u16>(eip));
  }
}

// The checks on a code-segment descriptor that JMP/CALL target directly
// (SDM "JMP": conforming needs DPL <= CPL; non-conforming RPL <= CPL and DPL = CPL).
void check_direct_code_target(const Cpu& c, Selector selector, const Descriptor& d) {
  if (d.conforming()) {
    if (d.dpl > c.state.cpl) throw gp(selector.error_code(), "conforming code DPL > CPL");
  } else if (selector.rpl() > c.state.cpl || d.dpl != c.state.cpl) {
    throw gp(selector.error_code(), "non-conforming code privilege");
  }
  if (!d.present) throw np(selector.error_code(), "code segment not present");
}


// Loads CS:EIP and (for outer rings) SS:ESP for RETF and IRET in protected mode.
// `frame` bytes above ESP hold EIP, CS (and for IRET EFLAGS); `extra` bytes more are
// released (RET imm16). Returns the new CPL.
u8 return_protected(Cpu& c, bool operand32, u16 cs_value, u32 eip, u32 frame, u32 extra) {
  const Selector selector{cs_value};
  if (selector.null()) throw gp(0, "null return CS");
  SegmentationContext context = c.segmentation_context(SegmentLoadCause::FarTransfer);
  DescriptorSlot slot = read_descriptor(context, selector);
  const Descriptor& d = slot.descriptor;
  if (!d.is_code()) throw gp(selector.error_code(), "return CS not a code segment");
  if (selector.rpl() < c.state.cpl) throw gp(selector.error_code(), "return to an inner ring");
  if (d.conforming() ? d.dpl > selector.rpl() : d.dpl != selector.rpl())
    throw gp(selector.error_code(), "return CS privilege");
  if (!d.present) throw np(selector.error_code(), "return CS not present");
  const u8 new_cpl = selector.rpl();
  if (new_cpl == c.state.cpl) {
    if (eip > d.limit()) throw gp(0, "return EIP outside CS limit");
    ++c.counters().segment_loads[CS];
    load_code_segment(context, c.state.segments[CS], slot, cs_value, new_cpl);
    c.state.gpr[ESP] = c.stack_pointer_plus(frame + extra);
    c.state.eip = eip;
    return new_cpl;
  }
  // Return to an outer ring: SS:ESP follow the frame.
  const u32 new_esp = operand32 ? c.peek_stack<u32>(frame + extra) : c.peek_stack<u16>(frame + extra);
  const u16 new_ss = operand32 ? static_cast<u16>(c.peek_stack<u32>(frame + extra + 4)) : c.peek_stack<u16>(frame + extra + 2);
  SegmentationContext outer = context;
  outer.cpl = new_cpl;
  SegmentRegister ss = c.state.segments[SS];
  ++c.counters().segment_loads[SS];
  load_stack_segment(outer, ss, new_ss);
  if (eip > d.limit()) throw gp(0, "return EIP outside CS limit");
  ++c.counters().segment_loads[CS];
  load_code_segment(context, c.state.segments[CS], slot, cs_value, new_cpl);
  c.state.segments[SS] = ss;
  c.state.cpl = new_cpl;
  c.state.gpr[ESP] = ss.cache.db ? new_esp + extra : (c.state.gpr[ESP] & 0xFFFF0000u) | ((new_esp + extra) & 0xFFFF);
  c.state.eip = eip;
  clear_inner_segments(c);
  return new_cpl;
}

}  // namespace

void clear_inner_segments(Cpu& c) {
  for (u8 seg : {ES, DS, FS, GS}) {
    SegmentRegister& reg = c.state.segments[seg];
    const DescriptorCache& cache = reg.cache;
    const bool data_or_nonconforming = !cache.is_code() || !(cache.type & 4);
    if (data_or_nonconforming && cache.dpl < c.state.cpl && cache.usable) load_unusable_segment(reg, 0);
  }
}

void far_jump_or_call(Cpu& c, u16 selector_value, u32 offset, bool is_call, bool operand32) {
  c.clock().charge(CostPart::FarTransfer);
  if (!operand32) offset &= 0xFFFF;
  const u16 old_cs = c.state.segments[CS].selector;
  const u32 old_eip = c.state.eip;
  if (!c.protected_mode()) {
    // Real and V86 mode: the return address is pushed before CS changes.
    if (is_call) push_return(c, operand32, old_cs, old_eip);
    if (offset > c.state.segments[CS].cache.valid_max) throw gp(0, "far target outside CS limit");
    c.load_code_segment_real(selector_value);
    c.state.eip = offset;
    return;
  }
  const Selector selector{selector_value};
  if (selector.null()) throw gp(0, "null far target");
  SegmentationContext context = c.segmentation_context(SegmentLoadCause::FarTransfer);
  DescriptorSlot slot = read_descriptor(context, selector);
  const Descriptor& d = slot.descriptor;
  if (!d.s) {
    switch (static_cast<SystemType>(d.type)) {
      case SystemType::CallGate16:
      case SystemType::CallGate32: return call_gate_transfer(c, selector, d, is_call);
      case SystemType::TaskGate:
      case SystemType::Tss16Available:
      case SystemType::Tss16Busy:
      case SystemType::Tss32Available:
      case SystemType::Tss32Busy: return task_transfer(c, selector, slot, is_call);
      default: throw gp(selector.error_code(), "far target is a system descriptor that is not a gate or TSS");
    }
  }
  if (!d.is_code()) throw gp(selector.error_code(), "far target not a code segment");
  check_direct_code_target(c, selector, d);
  if (offset > d.limit()) throw gp(0, "far target outside CS limit");
  if (is_call) {
    const u32 size = operand32 ? 8 : 4;
    const u32 bottom = c.stack_pointer_plus(static_cast<u32>(-static_cast<i32>(size)));
    c.check_write(SS, c.stack32() ? bottom : bottom & 0xFFFF, size);
  }
  if (is_call) push_return(c, operand32, old_cs, old_eip);
  ++c.counters().segment_loads[CS];
  load_code_segment(context, c.state.segments[CS], slot, selector_value, c.state.cpl);
  c.state.eip = offset;
}

namespace {

// JMP/CALL ptr16:16/32 (the pointer is the immediate) or m16:16/32 (read from memory,
// offset first): the far transfer to that selector and offset.
template <class T, bool kCall>
void far_pointer_transfer(Cpu& c, const Instruction& i) {
  if (i.operands[0].method == OperandMethod::A) return far_jump_or_call(c, static_cast<u16>(i.immediate2), i.immediate, kCall, sizeof(T) == 4);
  const u32 mask = i.address_size_32 ? 0xFFFFFFFFu : 0xFFFFu;
  const u32 ea = c.effective_address(i);
  const u32 offset = c.read<T>(i.segment, ea);
  const u16 selector = c.read<u16>(i.segment, (ea + sizeof(T)) & mask);
  far_jump_or_call(c, selector, offset, kCall, sizeof(T) == 4);
}
template <class T>
void jmp_far(Cpu& c, const Instruction& i) {
  far_pointer_transfer<T, false>(c, i);
}
template <class T>
void call_far(Cpu& c, const Instruction& i) {
  far_pointer_transfer<T, true>(c, i);
}

template <class T>
void retf(Cpu& c, const Instruction& i) {
  c.clock().charge(CostPart::FarTransfer);
  const u32 extra = i.operands[0].method == OperandMethod::I ? (i.immediate & 0xFFFF) : 0;
  const u32 eip = c.peek_stack<T>(0);
  const u16 cs = static_cast<u16>(c.peek_stack<T>(sizeof(T)));
  if (c.protected_mode()) {
    return_protected(c, sizeof(T) == 4, cs, eip, 2 * sizeof(T), extra);
    return;
  }
  if (eip > c.state.segments[CS].cache.valid_max) throw gp(0, "return EIP outside CS limit");
  c.state.gpr[ESP] = c.stack_pointer_plus(2 * sizeof(T) + extra);
  c.load_code_segment_real(cs);
  c.state.eip = eip;
}

// IRET in real and V86 mode (V86 needs IOPL 3): pops IP, CS, FLAGS; IOPL is kept in V86.
template <class T>
void iret_real(Cpu& c) {
  if (c.virtual_8086() && c.iopl() < 3) throw gp(0, "IRET in V86 mode with IOPL < 3");
  const u32 eip = c.peek_stack<T>(0);
  const u16 cs = static_cast<u16>(c.peek_stack<T>(sizeof(T)));
  const u32 eflags = c.peek_stack<T>(2 * sizeof(T));
  if (eip > c.state.segments[CS].cache.valid_max) throw gp(0, "IRET EIP outside CS limit");
  c.state.gpr[ESP] = c.stack_pointer_plus(3 * sizeof(T));
  c.load_code_segment_real(cs);
  c.state.eip = eip;
  u32 writable = sizeof(T) == 4 ? 0x00257FD5u : 0x7FD5u;  // not VM, VIF, VIP
  if (c.virtual_8086()) writable &= ~flag::IOPL;
  c.write_eflags(eflags, writable);
}

// IRET in protected mode: same ring, outer ring or back to virtual-8086 mode.
template <class T>
void iret_protected(Cpu& c) {
  if (c.flag_set(flag::NT)) return task_return(c);
  const u32 eip = c.peek_stack<T>(0);
  const u16 cs = static_cast<u16>(c.peek_stack<T>(sizeof(T)));
  const u32 eflags = c.peek_stack<T>(2 * sizeof(T));
  if (sizeof(T) == 4 && (eflags & flag::VM) && c.state.cpl == 0) {
    // RETURN-TO-VIRTUAL-8086-MODE: EIP CS EFLAGS ESP SS ES DS FS GS, all 36 bytes
    // inside the stack limit (#SS(0)), every selector loaded as selector * 16.
    const u32 esp = c.peek_stack<u32>(12);
    u16 selectors[5];
    for (unsigned n = 0; n < 5; ++n) selectors[n] = static_cast<u16>(c.peek_stack<u32>(16 + 4 * n));
    c.write_eflags(eflags, flag::kImplemented);
    c.state.cpl = 3;
    ++c.counters().segment_loads[CS];
    load_virtual_8086_segment(c.state.segments[CS], cs, true);
    constexpr u8 order[5] = {SS, ES, DS, FS, GS};
    for (unsigned n = 0; n < 5; ++n) {
      ++c.counters().segment_loads[order[n]];
      load_virtual_8086_segment(c.state.segments[order[n]], selectors[n], false);
    }
    c.state.gpr[ESP] = esp;
    c.state.eip = eip & 0xFFFF;
    return;
  }
  const u8 old_cpl = c.state.cpl, old_iopl = c.iopl();
  return_protected(c, sizeof(T) == 4, cs, eip, 3 * sizeof(T), 0);
  u32 writable = flag::CF | flag::PF | flag::AF | flag::ZF | flag::SF | flag::TF | flag::DF | flag::OF | flag::NT;
  if (sizeof(T) == 4) writable |= flag::RF | flag::AC | flag::ID;
  if (old_cpl == 0) writable |= flag::IOPL | flag::IF | (sizeof(T) == 4 ? flag::VIF | flag::VIP : 0);
  else if (old_cpl <= old_iopl) writable |= flag::IF;
  if (sizeof(T) == 2) writable &= 0xFFFF;
  c.write_eflags(eflags, writable);
}

// Any IRET ends the blocking of further NMIs that began with an NMI's delivery
// (SDM "Handling Multiple NMIs").
template <class T>
void iret(Cpu& c, const Instruction&) {
  c.clock().charge(CostPart::Iret);
  c.protected_mode() ? iret_protected<T>(c) : iret_real<T>(c);
  c.state.nmi_blocked = false;
  c.notify_interrupt();
}

// The rows of cpu/opcode_map.tsv whose family is far_transfer (cpu/generate_forms.cmake).
constexpr InstructionForm kForms[] = {
#include "cpu/forms/far_transfer.inc"
};

}  // namespace

FormList far_transfer_forms() { return kForms; }

}  // namespace x86lab
