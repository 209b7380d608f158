// JMP and CALL through call gates (Intel SDM Vol. 3, "Call Gates", "Accessing a Code
// Segment Through a Call Gate", "Stack Switching"; Vol. 2, "CALL": CALL-GATE,
// MORE-PRIVILEGE, SAME-PRIVILEGE; "JMP": CALL-GATE).
#include "cpu/far_transfer.h"
#include "segmentation/system_segments.h"

namespace x86lab {
namespace {

void push_value(Cpu& c, bool size32, u32 value) {
  if (size32) c.push<u32>(value);
  else c.push<u16>(static_cast<u16>(value));
}

// CALL to a more privileged non-conforming segment: SS:ESP for ring `code.dpl` from
// the TSS, then old SS, old ESP, the parameters and old CS:EIP on the new stack.
void call_inner(Cpu& c, SegmentationContext& context, DescriptorSlot& slot, Selector code_selector, bool gate32,
                u8 parameter_count, u32 eip) {
  const CpuState saved = c.state;
  try {
    // The parameters are read from the caller's stack before it is left: the
    // dword (32-bit gate) or word (16-bit gate) at the caller's ESP is the last
    // one pushed and stays nearest the return address.
    std::array<u32, 32> parameters{};
    for (unsigned n = 0; n < parameter_count; ++n)
      parameters[n] = gate32 ? c.peek_stack<u32>(4 * n) : c.peek_stack<u16>(2 * n);
    c.switch_to_inner_stack(context, slot.descriptor.dpl, gate32, 4u + parameter_count);
    if (eip > slot.descriptor.limit()) throw gp(0, "call gate offset outside the code segment");
    push_value(c, gate32, saved.segments[SS].selector);
    push_value(c, gate32, saved.gpr[ESP]);
    for (unsigned n = parameter_count; n-- > 0;) push_value(c, gate32, parameters[n]);
    push_value(c, gate32, saved.segments[CS].selector);
    push_value(c, gate32, saved.eip);
    ++c.counters().segment_loads[CS];
    load_code_segment(context, c.state.segments[CS], slot, code_selector.value, slot.descriptor.dpl);
  } catch (...) {
    c.state = saved;
    throw;
  }
  c.state.eip = eip;
}

}  // namespace

void call_gate_transfer(Cpu& c, Selector gate_selector, const Descriptor& gate, bool is_call) {
  const u8 cpl = c.state.cpl;
  if (gate.dpl < cpl || gate.dpl < gate_selector.rpl()) throw gp(gate_selector.error_code(), "call gate DPL < CPL or RPL");
  if (!gate.present) throw np(gate_selector.error_code(), "call gate not present");
  const Selector code_selector{gate.gate_selector()};
  if (code_selector.null()) throw gp(0, "null code selector in the call gate");
  SegmentationContext context = c.segmentation_context(SegmentLoadCause::FarTransfer);
  DescriptorSlot slot = read_descriptor(context, code_selector);
  const Descriptor& code = slot.descriptor;
  if (!code.is_code() || code.dpl > cpl) throw gp(code_selector.error_code(), "call gate target not code or DPL > CPL");
  // JMP never changes the privilege level: a non-conforming target must have DPL = CPL.
  if (!is_call && !code.conforming() && code.dpl != cpl)
    throw gp(code_selector.error_code(), "JMP through a call gate to another ring");
  if (!code.present) throw np(code_selector.error_code(), "call gate target not present");
  const bool gate32 = static_cast<SystemType>(gate.type) == SystemType::CallGate32;
  const u32 eip = gate32 ? gate.gate_offset() : gate.gate_offset() & 0xFFFF;

  if (is_call && !code.conforming() && code.dpl < cpl)
    return call_inner(c, context, slot, code_selector, gate32, gate.gate_parameter_count(), eip);

  if (is_call) {
    const u32 frame = gate32 ? 8 : 4;
    const u32 bottom = c.stack_pointer_plus(static_cast<u32>(-static_cast<i32>(frame)));
    c.check_write(SS, c.stack32() ? bottom : bottom & 0xFFFF, frame);
  }
  if (eip > code.limit()) throw gp(0, "call gate offset outside the code segment");
  if (is_call) {
    push_value(c, gate32, c.state.segments[CS].selector);
    push_value(c, gate32, c.state.eip);
  }
  ++c.counters().segment_loads[CS];
  load_code_segment(context, c.state.segments[CS], slot, code_selector.value, cpl);
  c.state.eip = eip;
}

}  // namespace x86lab
