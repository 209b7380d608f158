// Segment and descriptor-table instructions: MOV to/from segment registers, LDS LES
// LSS LFS LGS, LLDT, LTR, SLDT, STR, LAR, LSL, VERR, VERW, ARPL (Intel SDM Vol. 2,
// each instruction's page). Segment loads themselves are in segmentation/.
#include "cpu/alu.h"
#include "cpu/cpu.h"
#include "cpu/instruction_table.h"
#include "cpu/privilege.h"
#include "segmentation/system_segments.h"

namespace x86lab {
namespace {

// MOV Sreg,Ew: CS is not a valid destination (#UD); MOV SS blocks interrupts and
// delays debug traps for one instruction (SDM "MOV").
void mov_to_segment(Cpu& c, const Instruction& i) {
  if (i.reg == CS || i.reg > GS) throw ud("MOV to CS or a reserved segment register");
  u16 selector;
  if (!read_operand<u16>(c, i, 1, selector)) return;
  c.load_segment(i.reg, selector);
  if (i.reg == SS) c.start_interrupt_shadow(true);
}

// MOV Ev,Sreg: a register destination with a 32-bit operand size is zero-extended
// (P6 behaviour); a memory destination is always 16 bits.
template <class T>
void mov_from_segment(Cpu& c, const Instruction& i) {
  if (i.reg > GS) throw ud("MOV from a reserved segment register");
  const u16 selector = c.state.segments[i.reg].selector;
  if (i.is_memory()) (void)write_operand<u16>(c, i, 0, selector);  // (nothing follows)
  else (void)write_operand<T>(c, i, 0, selector);
}

// LDS/LES/LSS/LFS/LGS Gv,Mp: offset then selector from memory. LSS loads SS:ESP in
// one instruction and so opens no interrupt shadow (only MOV SS and POP SS do).
template <class T, u8 kSegment>
void load_far_pointer(Cpu& c, const Instruction& i) {
  const u32 mask = i.address_size_32 ? 0xFFFFFFFFu : 0xFFFFu;
  const u32 ea = c.effective_address(i);
  T offset;
  u16 selector;
  if (!c.try_read<T>(i.segment, ea, offset) || !c.try_read<u16>(i.segment, (ea + sizeof(T)) & mask, selector)) return;
  c.load_segment(kSegment, selector);
  c.set_reg<T>(i.reg, offset);
}

// LLDT and LTR (their rows check protected mode and CPL 0: kProtectedModeOnly,
// kPrivileged); `load` loads `reg` from the
// selector operand with its own checks; the control-register trace event names the
// register by `trace_id` (10 LDTR, 11 TR).
template <class Register, class Load>
void load_system_register(Cpu& c, const Instruction& i, Register& reg, unsigned trace_id, Load load) {
  u16 selector;
  if (!read_operand<u16>(c, i, 0, selector)) return;
  SegmentationContext context = c.segmentation_context();
  const u16 old = reg.selector;
  load(context, reg, selector);
  c.trace_control(trace_id, old, selector);
}

// LLDT: a null selector makes the LDT unusable; otherwise an LDT descriptor in the
// GDT (segmentation/system_segments.cpp has the checks).
void lldt(Cpu& c, const Instruction& i) {
  load_system_register(c, i, c.state.ldtr, 10, [](SegmentationContext& context, SegmentRegister& ldtr, u16 selector) {
    load_ldt(context, ldtr, selector);
  });
}

// LTR: an available TSS in the GDT; its Busy bit is set with an implied locked
// read-modify-write (AccessKind::TssBusyBit, SDM "Automatic Locking").
void ltr(Cpu& c, const Instruction& i) { load_system_register(c, i, c.state.tr, 11, load_task_register); }

template <class T>
void sldt(Cpu& c, const Instruction& i) {
  if (i.is_memory()) (void)write_operand<u16>(c, i, 0, c.state.ldtr.selector);  // (nothing follows)
  else (void)write_operand<T>(c, i, 0, c.state.ldtr.selector);
}

template <class T>
void str(Cpu& c, const Instruction& i) {
  if (i.is_memory()) (void)write_operand<u16>(c, i, 0, c.state.tr.selector);  // (nothing follows)
  else (void)write_operand<T>(c, i, 0, c.state.tr.selector);
}

// LAR, LSL, VERR, VERW: the descriptor is examined without loading it; failure
// clears ZF instead of faulting (SDM "LAR", "LSL", "VERR/VERW").
std::optional<Descriptor> visible_descriptor(Cpu& c, Selector selector) {
  if (selector.null()) return std::nullopt;
  try {
    SegmentationContext context = c.segmentation_context();
    const Descriptor d = read_descriptor(context, selector).descriptor;
    if (d.s && d.conforming()) return d;  // conforming code: no privilege check
    if (d.dpl < c.state.cpl || d.dpl < selector.rpl()) return std::nullopt;
    return d;
  } catch (const Fault& fault) {
    if (fault.vector == static_cast<u8>(Vector::PF)) throw;  // a page fault on the table is real
    return std::nullopt;
  }
}

bool lar_type_valid(const Descriptor& d) {
  if (d.s) return true;
  switch (static_cast<SystemType>(d.type)) {
    case SystemType::InterruptGate16: case SystemType::TrapGate16: case SystemType::InterruptGate32:
    case SystemType::TrapGate32: return false;
    default: return d.type != 0 && d.type != 8 && d.type != 10 && d.type != 13;
  }
}

template <class T>
void lar(Cpu& c, const Instruction& i) {
  u16 selector;
  if (!read_operand<u16>(c, i, 1, selector)) return;
  const auto d = visible_descriptor(c, Selector{selector});
  if (!d || !lar_type_valid(*d)) return c.set_flags(0, flag::ZF);
  (void)write_operand<T>(c, i, 0, static_cast<T>((d->raw() >> 32) & 0x00F0FF00u));  // a register
  c.set_flags(flag::ZF, flag::ZF);
}

template <class T>
void lsl(Cpu& c, const Instruction& i) {
  u16 selector;
  if (!read_operand<u16>(c, i, 1, selector)) return;
  const auto d = visible_descriptor(c, Selector{selector});
  const bool valid_system = d && !d->s && (d->type == 1 || d->type == 2 || d->type == 3 || d->type == 9 || d->type == 11);
  if (!d || (!d->s && !valid_system)) return c.set_flags(0, flag::ZF);
  (void)write_operand<T>(c, i, 0, static_cast<T>(d->limit()));  // a register
  c.set_flags(flag::ZF, flag::ZF);
}

void verr(Cpu& c, const Instruction& i) {
  u16 selector;
  if (!read_operand<u16>(c, i, 0, selector)) return;
  const auto d = visible_descriptor(c, Selector{selector});
  c.set_flags(d && d->s && d->readable() ? flag::ZF : 0, flag::ZF);
}

void verw(Cpu& c, const Instruction& i) {
  u16 selector;
  if (!read_operand<u16>(c, i, 0, selector)) return;
  const auto d = visible_descriptor(c, Selector{selector});
  c.set_flags(d && d->writable() ? flag::ZF : 0, flag::ZF);
}

// ARPL Ew,Gw: raise the destination's RPL to the source's (SDM "ARPL"). The destination
// is written only when its RPL is raised, so a memory destination in a read-only data
// segment (or a read-only page) whose RPL is already at least the source's is read and
// not written, and takes no #GP(0): measured on an Intel host (a 32-bit process with a
// read-only LDT data segment, docs/test386.md), and what test386's POST 17h expects.
// The SDM's #GP(0) "destination in a non-writable segment" holds for the write.
void arpl(Cpu& c, const Instruction& i) {
  u16 source, destination;
  if (!read_operand<u16>(c, i, 1, source) || !read_operand<u16>(c, i, 0, destination)) return;
  const u16 source_rpl = source & 3;
  const bool adjusted = (destination & 3) < source_rpl;
  if (adjusted && !write_operand<u16>(c, i, 0, static_cast<u16>((destination & ~3) | source_rpl))) return;
  c.set_flags(adjusted ? flag::ZF : 0, flag::ZF);
}

// The rows of cpu/opcode_map.tsv whose family is exec_segment (cpu/generate_forms.cmake).
constexpr InstructionForm kForms[] = {
#include "cpu/forms/exec_segment.inc"
};

}  // namespace

FormList segment_forms() { return kForms; }

}  // namespace x86lab
