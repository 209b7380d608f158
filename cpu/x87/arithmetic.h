// Basic x87 arithmetic on unpacked operands with exact rounding under the rounding
// and precision controls, and the SDM's masked responses for invalid operands,
// NaNs, denormal operands and division by zero (Intel SDM Vol. 1, "Floating-Point
// Exception Conditions", "Operating on SNaNs and QNaNs"; Vol. 2, each instruction's
// "Operation" and "Floating-Point Exceptions").
#pragma once
#include "cpu/x87/operand.h"

namespace x86lab::x87 {

// The control word fields an operation needs.
struct Environment {
  RoundingMode mode;
  int precision = 64;  // PC: 24, 53 or 64 bits
  u8 masks = exception::kAll;

  // Control word: bits 0-5 masks, 8-9 PC (00 single, 10 double, 11 extended;
  // 01 is reserved and rounds like double extended), 10-11 RC.
  static Environment from_control(u16 control);
  // Register results of FADD/FSUB/FMUL/FDIV/FSQRT round to PC; others to 64 bits.
  Format precision_format() const { return register_format(precision); }
  bool masked(u8 exception_flag) const { return (masks & exception_flag) != 0; }
};

// A register result. When `exceptions` holds an unmasked IE, DE or ZE the value is
// meaningless: the instruction leaves its destination and the stack alone.
struct Result {
  Float80 value;
  u8 exceptions = 0;
  bool rounded_up = false;  // C1
};

// Rounds an exact value to a register with `format`'s precision.
Result round_to_register(const Exact& x, const Format& format, const Environment& env);

Result add(const Operand& a, const Operand& b, const Environment& env);       // a + b (PC)
Result subtract(const Operand& a, const Operand& b, const Environment& env);  // a - b (PC)
Result multiply(const Operand& a, const Operand& b, const Environment& env);  // a * b (PC)
Result divide(const Operand& a, const Operand& b, const Environment& env);    // a / b (PC)
Result square_root(const Operand& a, const Environment& env);                // FSQRT (PC)
Result round_to_integral(const Operand& a, const Environment& env);          // FRNDINT
Result scale(const Operand& a, const Operand& b, const Environment& env);     // FSCALE: a * 2^trunc(b)

// FXTRACT: `exponent` goes to ST(1), `significand` to ST(0).
struct Extracted {
  Float80 exponent, significand;
  u8 exceptions = 0;
};
Extracted extract(const Operand& a, const Environment& env);

// FPREM (truncating quotient) and FPREM1 (IEEE, quotient rounded to nearest even).
// `complete` is false for a partial remainder (C2 = 1); `quotient` holds the low
// three quotient bits for C0, C3, C1.
struct Remainder {
  Result result;
  bool complete = true;
  unsigned quotient = 0;
};
Remainder remainder(const Operand& a, const Operand& b, bool ieee, const Environment& env);

// Comparisons (FCOM, FUCOM, FCOMI, FTST, FICOM): `quiet` (FUCOM) signals #IA only for
// SNaNs; the others for every NaN. Unsupported operands are always invalid.
enum class Relation : u8 { Greater, Less, Equal, Unordered };
struct Comparison {
  Relation relation = Relation::Unordered;
  u8 exceptions = 0;
};
Comparison compare(const Operand& a, const Operand& b, bool quiet);

// a / b for finite nonzero operands: 128 quotient bits, the last one sticky.
Exact exact_quotient(const Operand& a, const Operand& b);

// The two-operand NaN rules: true when `a` or `b` is a NaN or unsupported, with the
// x87's choice of result (the QNaN of larger significand, an SNaN quieted, or the
// indefinite) in `out`.
bool propagate_nan(const Operand& a, const Operand& b, Result& out);
bool propagate_nan(const Operand& a, Result& out);

}  // namespace x86lab::x87
