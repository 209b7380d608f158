// The x87 instruction families (D8-DF and 9B): each exec_*.cpp file of cpu/x87/ holds
// its executors and includes its rows of cpu/opcode_map.tsv; x87_forms() in
// x87_forms.cpp joins the rows.
#pragma once
#include "cpu/instruction_table.h"
#include "cpu/x87/fpu.h"

namespace x86lab::x87 {

FormList transfer_forms();        // exec_transfer.cpp: FLD FST FILD FIST FBLD FBSTP FXCH FCMOVcc constants
FormList arithmetic_forms();      // exec_arithmetic.cpp: FADD FSUB FMUL FDIV FSQRT FPREM FSCALE ...
FormList compare_forms();         // exec_compare.cpp: FCOM FUCOM FICOM FCOMI FTST FXAM
FormList control_forms();         // exec_control.cpp: FNINIT FLDCW FNSTENV FNSAVE FWAIT ...
FormList transcendental_forms();  // exec_transcendental.cpp: FSIN FCOS FPTAN FPATAN F2XM1 FYL2X ...

// Memory source operands of the arithmetic and compare families (m32fp, m64fp, m16int,
// m32int as the SDM names them), read before anything changes.
struct Single {
  static Operand read(Fpu& f) { return unpack_single(f.read<u32>()); }
};
struct Double {
  static Operand read(Fpu& f) { return unpack_double(f.read<u64>()); }
};
struct Word {
  static Operand read(Fpu& f) { return unpack_integer(static_cast<i16>(f.read<u16>())); }
};
struct Short {
  static Operand read(Fpu& f) { return unpack_integer(static_cast<i32>(f.read<u32>())); }
};

// FXTRACT, FPTAN and FSINCOS replace ST(0) and push a second result, so they need a
// valid ST(0) and an empty ST(7). Otherwise a stack underflow or overflow (#IS) is
// raised; when masked, ST(0) and the pushed register get the QNaN indefinite. Returns
// whether the instruction goes on (SDM Vol. 1 "Stack Overflow or Underflow Exception").
inline bool room_for_two_results(Fpu& f) {
  const bool underflow = f.empty(0);
  if (!underflow && f.empty(7)) return true;
  if (underflow ? f.stack_underflow() : f.stack_overflow()) {
    f.set_st(0, kIndefinite);
    f.push(kIndefinite);
  }
  return false;
}

}  // namespace x86lab::x87
