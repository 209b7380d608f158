// One x87 instruction's view of the CPU: the checks before it runs (#NM, then a
// pending unmasked exception: #MF, or the FERR#/IGNNE# freeze), the register stack,
// the memory operand, exceptions with their masked responses, and afterwards the
// error summary, FERR# and the FPU pointers (Intel SDM Vol. 1, "Programming with the
// x87 FPU", "x87 FPU Floating-Point Exception Handling", "Waiting vs. Non-waiting
// Instructions"; Vol. 3, "Interrupt 7", "Interrupt 16").
#pragma once
#include "cpu/cpu.h"
#include "cpu/x87/arithmetic.h"
#include "cpu/x87/error_pins.h"

namespace x86lab::x87 {

// Whether an instruction first checks for a pending unmasked exception (all but the
// FN- forms), and whether it is a non-control instruction whose CS:EIP, opcode and
// operand address the FPU records (SDM "Last Instruction Opcode").
enum class Waits : u8 { Yes, No };
enum class Pointers : u8 { Record, Keep };

class Fpu {
 public:
  Fpu(Cpu& cpu, const Instruction& insn) : s(cpu.state.fpu), cpu_(cpu), insn_(insn) {}

  FpuState& s;
  Cpu& cpu() { return cpu_; }
  const Instruction& insn() const { return insn_; }
  Environment environment() const { return Environment::from_control(s.control); }

  // ---- the register stack ----
  bool empty(unsigned i) const { return s.empty(i); }
  Float80 st(unsigned i) const { return s.st(i); }
  Operand operand(unsigned i) const { return unpack(s.st(i)); }
  void set_st(unsigned i, Float80 v);  // writes ST(i) and its tag
  void push(Float80 v);                // TOP - 1, then ST(0) = v
  void pop();                          // tags ST(0) empty, TOP + 1
  void free(unsigned i);               // tags ST(i) empty

  // ---- exceptions ----
  void raise(u8 flags) { s.status |= flags; }
  bool masked(u8 flags) const { return (s.control & flags) == flags; }
  // True when `exceptions` hold an unmasked IE, DE or ZE: the instruction changes
  // neither its destination nor the stack (SDM "x87 FPU Exception Conditions").
  bool stops(u8 exceptions) const {
    return (exceptions & ~s.control & (exception::IE | exception::DE | exception::ZE)) != 0;
  }
  // Stack underflow (#IS, C1 = 0) and overflow (#IS, C1 = 1); return true when #I is
  // masked and the caller delivers the indefinite.
  bool stack_underflow();
  bool stack_overflow();
  // Raises r's exceptions, sets C1 to "rounded up" and, unless they stop the
  // instruction, writes r's value to ST(i). Returns whether it wrote.
  bool store(unsigned i, const Result& r);
  void set_condition(u16 mask, u16 values) { s.status = static_cast<u16>((s.status & ~mask) | (values & mask)); }
  void set_c1(bool v) { set_condition(fsw::C1, v ? fsw::C1 : 0); }

  // ---- the memory operand (its segment, the effective address plus `at`) ----
  u32 offset(u32 at = 0) const;
  template <class T>
  T read(u32 at = 0) {
    return cpu_.read<T>(insn_.segment, offset(at));
  }
  template <class T>
  void write(T value, u32 at = 0) {
    cpu_.write<T>(insn_.segment, offset(at), value);
  }
  // Checks that `size` bytes can be written before the first store (no partial stores).
  void check_write(u32 size) { cpu_.check_write(insn_.segment, offset(), size); }
  Float80 read_float80(u32 at = 0);
  void write_float80(Float80 v, u32 at = 0);

 private:
  Cpu& cpu_;
  const Instruction& insn_;
};

// The checks before an x87 instruction. #NM when CR0.EM or CR0.TS is set. Then, for
// waiting instructions with a pending unmasked exception (ES = 1): #MF when CR0.NE =
// 1; with CR0.NE = 0 the instruction runs if IGNNE# is asserted, and otherwise the
// CPU freezes before it (halted, EIP at the instruction) until an interrupt - the
// PC's IRQ 13 raised by FERR#. Returns false when frozen.
bool x87_begin(Cpu& c, Waits waits);
// The pending-exception check alone (FWAIT, after its own #NM check); the same
// outcomes as x87_begin.
bool x87_check_pending(Cpu& c);
// After the instruction: ES and B follow the unmasked exception flags; FERR# follows
// ES; non-control instructions record the FPU pointers.
void x87_end(Cpu& c, const Instruction& i, Pointers pointers, bool es_before);

// Recomputes ES and B: set exactly when an exception flag is set and unmasked (the
// hardware derives them; FLDCW, FLDENV and FRSTOR change them through the masks).
void sync_error_summary(FpuState& s);

// The executor of an x87 row: `Body` between x87_begin and x87_end.
template <void (*Body)(Fpu&), Waits W = Waits::Yes, Pointers P = Pointers::Record>
void x87(Cpu& c, const Instruction& i) {
  const bool es_before = (c.state.fpu.status & fsw::ES) != 0;
  if (!x87_begin(c, W)) return;
  Fpu f(c, i);
  Body(f);
  x87_end(c, i, P, es_before);
}

}  // namespace x86lab::x87
