// Stack instructions: PUSH, POP, PUSHA/PUSHAD, POPA/POPAD, PUSHF/POPF, ENTER, LEAVE,
// and PUSH/POP of segment registers (Intel SDM Vol. 2, each instruction's page).
#include "cpu/alu.h"
#include "cpu/cpu.h"
#include "cpu/instruction_table.h"

namespace x86lab {
namespace {

// PUSH ESP pushes the value before the push (SDM "PUSH").
template <class T>
void push(Cpu& c, const Instruction& i) {
  T value;
  if (read_operand<T>(c, i, 0, value)) c.push<T>(value);
}

// POP with an ESP-based memory destination computes the address after ESP is
// incremented (SDM "POP"); POP ESP loads the popped value.
template <class T>
void pop(Cpu& c, const Instruction& i) {
  const T value = c.peek_stack<T>(0);
  const u32 old_esp = c.state.gpr[ESP];
  c.state.gpr[ESP] = c.stack_pointer_plus(sizeof(T));
  if (!write_operand<T>(c, i, 0, value)) c.state.gpr[ESP] = old_esp;
}

// PUSH of a segment register: a 32-bit push writes only the low 16 bits on P6
// (QUIRK: "the processor ... writes only the low 16 bits"), leaving the rest.
template <class T>
void push_segment(Cpu& c, const Instruction& i) {
  u16 selector;
  if (!read_operand<u16>(c, i, 0, selector)) return;
  if constexpr (sizeof(T) == 4) {
    const u32 new_esp = c.stack_pointer_plus(static_cast<u32>(-4));
    c.check_write(SS, c.stack32() ? new_esp : new_esp & 0xFFFF, 4);
    c.write<u16>(SS, c.stack32() ? new_esp : new_esp & 0xFFFF, selector, AccessKind::Stack);
    c.state.gpr[ESP] = new_esp;
  } else {
    c.push<u16>(selector);
  }
}

// POP of a segment register: ESP is stepped with the stack-address size in force when
// the instruction started (SDM "POP": the increment belongs to the pop, which reads
// through the old SS), so POP SS from a 16-bit stack wraps SP and keeps ESP's upper
// half even when the new SS has B = 1. A faulting load leaves ESP unchanged.
template <class T>
void pop_segment(Cpu& c, const Instruction& i) {
  const u16 selector = static_cast<u16>(c.peek_stack<T>(0));
  const u8 segment = i.operands[0].fixed;
  const u32 new_esp = c.stack_pointer_plus(sizeof(T));
  c.load_segment(segment, selector);
  c.state.gpr[ESP] = new_esp;
  if (segment == SS) c.start_interrupt_shadow(true);
}

// PUSHA: all eight pushes are checked before any is written. On a 16-bit stack SP
// wraps from 0 to FFFEh between pushes, and a push that would straddle the wrap (a
// word at FFFFh, a doubleword at FFFDh-FFFFh: SP below the frame size and not a
// multiple of the operand size) is refused before the first write. SDM "PUSHA/PUSHAD":
// in real-address and virtual-8086 mode, SP = 7, 9, 11, 13 or 15 raises #GP(0) (SP = 1,
// 3 or 5 raises the #SS that its own delivery cannot push, hence #DF and shutdown);
// in protected mode an address outside the stack limit raises #SS(0).
template <class T>
void pusha(Cpu& c, const Instruction&) {
  constexpr u32 kFrame = 8 * sizeof(T);
  const u32 original_esp = c.state.gpr[ESP];
  if (!c.stack32()) {
    const u32 sp = original_esp & 0xFFFF;
    if (sp < kFrame && sp % sizeof(T) != 0) {
      if (!c.protected_mode() && sp >= 7 && sp <= 15) throw gp(0, "PUSHA with SP 7, 9, 11, 13 or 15");
      throw ss(0, "PUSHA straddles the 16-bit stack wrap");
    }
  }
  const u32 bottom = c.stack_pointer_plus(static_cast<u32>(-static_cast<i32>(kFrame)));
  c.check_write(SS, c.stack32() ? bottom : bottom & 0xFFFF, 1);
  for (unsigned r = 0; r < 8; ++r) c.push<T>(static_cast<T>(r == ESP ? original_esp : c.state.gpr[r]));
}

// POPA: the stored ESP is skipped.
template <class T>
void popa(Cpu& c, const Instruction&) {
  T values[8];
  for (unsigned r = 0; r < 8; ++r) values[7 - r] = c.peek_stack<T>(r * sizeof(T));
  for (unsigned r = 0; r < 8; ++r)
    if (r != ESP) c.set_reg<T>(r, values[r]);
  c.state.gpr[ESP] = c.stack_pointer_plus(8 * sizeof(T));
}

// PUSHF: VM and RF are pushed as 0 (SDM "PUSHF").
template <class T>
void pushf(Cpu& c, const Instruction&) {
  if (c.virtual_8086() && c.iopl() < 3) throw gp(0, "PUSHF in V86 mode with IOPL < 3");
  c.push<T>(static_cast<T>(c.state.eflags & ~(flag::VM | flag::RF)));
}

// POPF: which bits change depends on the mode and CPL (SDM "POPF" operation table).
template <class T>
void popf(Cpu& c, const Instruction&) {
  if (c.virtual_8086() && c.iopl() < 3) throw gp(0, "POPF in V86 mode with IOPL < 3");
  const u32 value = c.peek_stack<T>(0);
  u32 writable = flag::CF | flag::PF | flag::AF | flag::ZF | flag::SF | flag::TF | flag::DF | flag::OF | flag::NT;
  if (sizeof(T) == 4) writable |= flag::AC | flag::ID;
  if (c.real_mode() || c.state.cpl == 0) writable |= flag::IOPL | flag::IF;
  else if (c.state.cpl <= c.iopl() || c.virtual_8086()) writable |= flag::IF;
  if (sizeof(T) == 2) writable &= 0xFFFF;
  c.state.gpr[ESP] = c.stack_pointer_plus(sizeof(T));
  c.write_eflags(value, writable);
}

// ENTER Iw,Ib: a frame of `size` bytes with `level` (mod 32) nesting levels.
template <class T>
void enter(Cpu& c, const Instruction& i) {
  const u32 size = i.immediate & 0xFFFF;
  const unsigned level = i.immediate2 & 0x1F;
  const bool s32 = c.stack32();
  const u32 old_esp = c.state.gpr[ESP], old_ebp = c.state.gpr[EBP];
  try {
    c.push<T>(static_cast<T>(old_ebp));
    const u32 frame = c.state.gpr[ESP];
    u32 ebp = old_ebp;
    for (unsigned n = 1; n < level; ++n) {
      ebp = s32 ? ebp - sizeof(T) : (ebp & 0xFFFF0000u) | ((ebp - sizeof(T)) & 0xFFFF);
      c.push<T>(c.read<T>(SS, s32 ? ebp : ebp & 0xFFFF, AccessKind::Stack));
    }
    if (level > 0) c.push<T>(static_cast<T>(frame));
    const u32 new_esp = s32 ? c.state.gpr[ESP] - size : (c.state.gpr[ESP] & 0xFFFF0000u) | ((c.state.gpr[ESP] - size) & 0xFFFF);
    if (size) c.check_write(SS, s32 ? new_esp : new_esp & 0xFFFF, 1);
    c.set_reg<T>(EBP, static_cast<T>(frame));
    c.state.gpr[ESP] = new_esp;
  } catch (...) {
    c.state.gpr[ESP] = old_esp;
    c.state.gpr[EBP] = old_ebp;
    throw;
  }
}

// LEAVE: ESP = EBP, then POP EBP (with the stack's address size).
template <class T>
void leave(Cpu& c, const Instruction&) {
  const u32 frame = c.stack32() ? c.state.gpr[EBP] : c.state.gpr[EBP] & 0xFFFF;
  const T saved = c.read<T>(SS, frame, AccessKind::Stack);
  if (c.stack32()) c.state.gpr[ESP] = frame + sizeof(T);
  else c.state.gpr[ESP] = (c.state.gpr[ESP] & 0xFFFF0000u) | ((frame + sizeof(T)) & 0xFFFF);
  c.set_reg<T>(EBP, saved);
}

// The rows of cpu/opcode_map.tsv whose family is exec_stack (cpu/generate_forms.cmake).
constexpr InstructionForm kForms[] = {
#include "cpu/forms/exec_stack.inc"
};

}  // namespace

FormList stack_forms() { return kForms; }

}  // namespace x86lab
